"""``python -m empiric_proof audit``: recompute a record's evidence from its bundle.

Written from docs/statistics.md and docs/record.md, independently of the TypeScript core
(statistics in :mod:`empiric_proof._stats`). The audit checks the record (with a key, its
signature), that the observations file hashes to the record's ``observations`` dataset and the
scenario to ``config_hash``, then recomputes from the observations, under the scenario's plan,
every number of every evidence entry and pillar entity, the statistic names, intervals methods,
ranks, seeds, refusals, and the verdict, and compares: numbers to 1e-12 relative (ints and
strings exactly). Texts made for people (``cross_check``, ``reasoning``, ``analysis_plan``,
refusal reasons) are not recomputed here.

Comparative records (``analysis.comparison``: a candidate against a baseline) have a third
part, the baseline's observations (dataset ``baseline``, ``<record>.baseline.observations.jsonl``):
it must hash to that dataset, and both sides are recomputed, paired as the provenance records
(``empiric:paired`` of the baseline dataset entity), by :func:`compare_interval`: each side's
interval at one-sided beta/2 combined, the exact paired McNemar interval, or the percentile
bootstrap of the ratio or difference from one MT19937 stream (expanded shares for means), with
the same refusals as ``empiric audit``.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _stats as st
from ._canonical import canonicalize
from ._parse import parse
from ._record import _verify
from ._verdict import rule_outcome
from .errors import WireError

__all__ = ["analyze", "audit", "compare_interval", "read_observations", "TOLERANCE"]

TOLERANCE = 1e-12
"""Numbers agree when |a - b| <= TOLERANCE * max(|a|, |b|)."""

MAX = 1.7976931348623157e308
MIN_BOOTSTRAP_N = 100


class AuditError(Exception):
    """A bundle file that cannot be read (``dataset_invalid``, ``scenario_invalid``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def read_observations(data: bytes) -> List[Dict[str, Any]]:
    """Parse an observations file: one JSON object per line, ``item`` equal to its line index."""
    text = data.decode("utf-8")
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    out = []
    for i, line in enumerate(lines):
        try:
            o = parse(line)
        except WireError as e:
            raise AuditError("dataset_invalid", f"observations line {i + 1}: {e}") from None
        if (type(o) is not dict or type(o.get("item")) is not int or type(o.get("ok")) is not bool
                or type(o.get("metrics")) is not dict):
            raise AuditError("dataset_invalid", f"observations line {i + 1}: not an observation")
        if o["item"] != i:
            raise AuditError("dataset_invalid",
                             f"observations line {i + 1}: item is {o['item']}, not {i}")
        out.append(o)
    return out


def _finite(x: float) -> float:
    return MAX if x == math.inf else -MAX if x == -math.inf else x


def _statistic_name(spec: Dict[str, Any]) -> str:
    if spec["statistic"] == "quantile":
        return "quantile_" + _js_number(spec["p"])
    return spec["statistic"]


def _js_number(x: float) -> str:
    """A number as JavaScript's String() writes it (shortest round trip, no ``.0``)."""
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" in r:
        mant, exp = r.split("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mant}e{sign}{int(exp.lstrip('+-'))}"
    return r


def _sample(scenario: Dict[str, Any], spec: Dict[str, Any],
            obs: Sequence[Dict[str, Any]]) -> Tuple[List[float], Optional[List[bool]], bool]:
    """(values, censored flags or None, undecidable) of a pillar under intention to treat."""
    metric = scenario["metrics"][spec["metric"]]
    kind = metric["kind"]
    name = spec["metric"]

    def value(o: Dict[str, Any]) -> Optional[float]:
        v = o["metrics"].get(name)
        return None if v is None else float(v)

    if kind == "success":
        return [value(o) if value(o) is not None else 0.0 for o in obs], None, False
    if kind == "exact_match":
        return [(value(o) if value(o) is not None else 0.0) if o["ok"] else 0.0
                for o in obs], None, False
    if kind == "latency_ms" and spec["statistic"] in ("quantile", "median"):
        timeout = float(scenario["probe"]["timeout_ms"])
        vals = []
        for o in obs:
            if o["ok"]:
                v = value(o)
                vals.append(v if v is not None else float(o.get("latency_ms", 0.0)))
            else:
                vals.append(float(o.get("latency_ms", timeout)))
        return vals, [not o["ok"] for o in obs], False
    analysis = scenario["analysis"]
    if analysis.get("on_failure", "inconclusive") == "worst" and "worst" in metric:
        worst = float(metric["worst"])
        return [(value(o) if value(o) is not None else worst) if o["ok"] else worst
                for o in obs], None, False
    known = [value(o) if value(o) is not None else 0.0 for o in obs if o["ok"]]
    failed = sum(1 for o in obs if not o["ok"])
    return known, None, failed > 0


def _shape_refusal(values: Sequence[float], bootstrap: bool) -> bool:
    n = len(values)
    if n < 3:
        return True
    if all(v == values[0] for v in values):
        return True
    if all(v in (0.0, 1.0) for v in values):
        return True
    if bootstrap and n < MIN_BOOTSTRAP_N:
        return True
    return abs(st.skewness(values)) > 1


def _estimate(values: Sequence[float], spec: Dict[str, Any]) -> float:
    s = spec["statistic"]
    if s in ("mean", "proportion"):
        return st.mean(values)
    p = 0.5 if s == "median" else float(spec["p"])
    return st.quantile(values, p)


def _interval(values: Sequence[float], censored: Optional[Sequence[bool]],
              spec: Dict[str, Any], metric: Dict[str, Any], estimate: float, conf: float,
              resamples: int, seed: int) -> Tuple[bool, float, float, Dict[str, Any]]:
    """(refused, low, high, extra attributes) of a pillar's interval method."""
    method = spec["interval"]
    statistic = spec["statistic"]
    bootstrap = method in ("bootstrap_percentile", "bootstrap_bca")
    extra: Dict[str, Any] = {}
    if censored and any(censored) and method not in ("order_statistic", "none"):
        return True, 0.0, 0.0, extra
    if bootstrap and statistic != "mean":
        return True, 0.0, 0.0, extra
    if method == "none":
        return False, estimate, estimate, extra
    if method in ("clopper_pearson", "wilson"):
        successes = 0.0
        for v in values:
            successes += v
        fn = st.clopper_pearson if method == "clopper_pearson" else st.wilson
        low, high = fn(int(successes), len(values), conf)
        return False, low, high, extra
    if method == "order_statistic":
        p = 0.5 if statistic == "median" else float(spec["p"])
        low, high, r_low, r_high = st.order_statistic(values, p, conf, censored)
        return False, low, high, {"empiric:rank_low": r_low, "empiric:rank_high": r_high}
    if method == "t":
        extra["empiric:skewness"] = st.skewness(values)
        if _shape_refusal(values, False):
            return True, 0.0, 0.0, extra
        low, high = st.t_interval(values, conf)
        return False, low, high, extra
    if method == "bounded":
        if "range" not in metric:
            return True, 0.0, 0.0, extra
        lo, hi = float(metric["range"][0]), float(metric["range"][1])
        if any(v < lo or v > hi for v in values):
            return True, 0.0, 0.0, extra
        low, high = st.bounded_mean(values, lo, hi, conf)
        return False, low, high, {"empiric:range_low": lo, "empiric:range_high": hi}
    # the bootstrap (means only)
    if _shape_refusal(values, True):
        return True, 0.0, 0.0, extra
    extra = _bootstrap(values, estimate, method, resamples, seed, conf)
    low, high = extra.pop("low"), extra.pop("high")
    extra["empiric:skewness"] = st.skewness(values)
    return False, low, high, extra


def _pillar(scenario: Dict[str, Any], spec: Dict[str, Any], k: int,
            obs: Sequence[Dict[str, Any]], measured: int) -> Dict[str, Any]:
    """The recomputed evidence entry and pillar entity attributes.

    In ``attrs``, None means "must be absent" and True for ``empiric:refused`` and
    ``empiric:undecidable`` means "present, with a reason" (the reason's text is not compared).
    """
    analysis = scenario["analysis"]
    claim = scenario["claim"]
    conf = float(analysis["confidence"])
    beta = (1 - conf) / 2
    method = spec["interval"]
    statistic = spec["statistic"]
    deciding = spec["name"] == claim["threshold"]["metric"]
    seed = (int(analysis["seed"]) + k) % 2 ** 32
    resamples = int(analysis["resamples"])
    metric = scenario["metrics"][spec["metric"]]
    values, censored, undecidable = _sample(scenario, spec, obs)
    trivial = (0.0, 1.0) if statistic == "proportion" else (-math.inf, math.inf)
    attrs: Dict[str, Any] = {
        "empiric:pillar": spec["name"], "empiric:metric": spec["metric"],
        "empiric:metric_kind": metric["kind"], "empiric:statistic": _statistic_name(spec),
        "empiric:method": method, "empiric:n": measured,
        "empiric:failures": sum(1 for o in obs if not o["ok"]), "empiric:censored": 0,
        "empiric:confidence": conf, "empiric:one_sided_error": float(f"{beta:.12g}"),
        "empiric:deciding": deciding,
    }
    if statistic == "quantile":
        attrs["empiric:p"] = float(spec["p"])
    if statistic == "median":
        attrs["empiric:p"] = 0.5
    estimate_high: Optional[float] = None
    exact_error: Optional[float] = None
    estimate = _estimate(values, spec) if values else math.nan
    if not values or not math.isfinite(estimate):
        # No estimate (nothing to estimate from, or it overflows): the pillar cannot decide.
        estimate, refused, undecidable = 0.0, True, True
        low, high = trivial
    else:
        interval_refused, low, high, extra = _interval(values, censored, spec, metric, estimate,
                                                       conf, resamples, seed)
        attrs.update(extra)
        refused = undecidable or interval_refused
        if deciding and statistic == "proportion" and method == "wilson":
            t = claim["threshold"]
            exact_error = st.wilson_exact_error(len(values), float(t["value"]), t["comparator"],
                                                conf)
            if not refused and exact_error > beta * (1 + 1e-9):
                refused = True
        if censored is not None:
            attrs["empiric:censored"] = sum(1 for c in censored if c)
            if any(censored):
                p = 0.5 if statistic == "median" else float(spec["p"])
                estimate_high = _censored_high(values, censored, p)
    if method.startswith("bootstrap"):
        attrs["empiric:seed"] = seed
        attrs["empiric:resamples"] = resamples
    if refused:
        low, high = trivial
    ci_low, ci_high = _finite(low), _finite(high)
    attrs.update({
        "empiric:estimate": estimate,
        "empiric:ci_low": ci_low,
        "empiric:ci_high": ci_high,
        "empiric:ci_low_bounded": abs(ci_low) < MAX,
        "empiric:ci_high_bounded": abs(ci_high) < MAX,
    })
    if estimate_high is not None:
        attrs["empiric:estimate_high"] = _finite(estimate_high)
    if exact_error is not None:
        attrs["empiric:exact_one_sided_error"] = exact_error
    attrs["empiric:refused"] = True if refused else None
    attrs["empiric:undecidable"] = True if undecidable else None
    evidence = {
        "pillar": spec["name"],
        "statistic_name": _statistic_name(spec),
        "statistic_value": estimate,
        "ci_low": ci_low,
        "ci_high": ci_high,
    }
    return {"evidence": evidence, "attrs": attrs, "refused": refused, "undecidable": undecidable,
            "estimate_high": estimate_high}


def _censored_high(values: Sequence[float], censored: Sequence[bool], p: float) -> float:
    xs = sorted(math.inf if censored[i] else v for i, v in enumerate(values))
    n = len(xs)
    h = (n - 1) * p
    exact = h % 1 == 0
    lower = int(math.floor(h))
    upper = lower if exact else int(math.ceil(h))
    lo, hi = xs[lower], xs[upper]
    if not math.isfinite(hi):
        return lo if exact and math.isfinite(lo) else math.inf
    return lo if exact else lo + (h - lower) * (hi - lo)


def _bootstrap(values: Sequence[float], estimate: float, method: str, resamples: int,
               seed: int, conf: float) -> Dict[str, Any]:
    dist = sorted(st.bootstrap_means(values, resamples, seed))
    b = len(dist)
    expanded: Dict[str, Any] = {}
    if method == "bootstrap_percentile":
        # The expanded percentile interval of a mean (docs/statistics.md): the bounds are read at
        # the share Φ(−√(n/(n − 1))·t(1 − α/2, n − 1)) and its complement.
        n = len(values)
        share = st.normal_cdf(-math.sqrt(n / (n - 1)) * st.t_quantile(1 - (1 - conf) / 2, n - 1))
        levels = (share, 1 - share)
        low = st.quantile_sorted(dist, levels[0])
        high = st.quantile_sorted(dist, levels[1])
        expanded = {"empiric:percentile_low": levels[0], "empiric:percentile_high": levels[1]}
    elif dist[0] == dist[-1]:
        levels = (0.5, 0.5)
        low = high = estimate
    else:
        below = sum(1 for x in dist if x < estimate)
        not_above = sum(1 for x in dist if x <= estimate)
        share = (below + 0.5 * (not_above - below)) / b
        half = 0.5 / b
        z0 = st.normal_quantile(min(max(share, half), 1 - half))
        m = st.mean(values)
        s2 = s3 = 0.0
        for x in values:
            d = x - m
            d2 = d * d
            s2 += d2
            s3 += d2 * d
        a = 0.0 if s2 == 0 else s3 / (6 * s2 ** 1.5)
        if not math.isfinite(a):
            a = 0.0
        z = -st.normal_quantile((1 - conf) / 2)

        def level(zz: float) -> float:
            w = z0 + zz
            den = 1 - a * w
            if not den > 0:
                return 1.0 if w > 0 else 0.0
            return st.normal_cdf(z0 + w / den)

        levels = (level(-z), level(z))
        low = st.quantile_sorted(dist, levels[0])
        high = st.quantile_sorted(dist, levels[1])

    return {"low": low, "high": high, "empiric:mc_se_low": _mc_se(dist, levels[0]),
            "empiric:mc_se_high": _mc_se(dist, levels[1]), **expanded}


def _mc_se(dist: Sequence[float], lv: float) -> float:
    """Monte Carlo standard error of a bootstrap bound read at share ``lv`` of ``dist`` (sorted):
    half the distance between the quantiles one binomial standard error either side."""
    step = math.sqrt(lv * (1 - lv) / len(dist))

    def at(q: float) -> float:
        return st.quantile_sorted(dist, min(1.0, max(0.0, q)))
    return (at(lv + step) - at(lv - step)) / 2


class _AnalysisFailed(Exception):
    """Arguments the comparison cannot take (TypeScript's UsageError): the pillar falls back."""


def _trivial_comparison(statistic: str, kind: str) -> Tuple[float, float]:
    if kind == "ratio":
        return 0.0, math.inf
    return (-1.0, 1.0) if statistic == "proportion" else (-math.inf, math.inf)


def _is_binary(xs: Sequence[float]) -> bool:
    return all(x in (0.0, 1.0) for x in xs)


def _influence_skewness(c: Sequence[float], b: Sequence[float], kind: str, paired: bool,
                        ratio: float) -> float:
    """The skewness a bootstrapped mean comparison is guarded by: of each side when unpaired
    (the larger in absolute value, the candidate's on a tie), else of the paired differences
    c - b or linearised ratios c - R b."""
    if not paired:
        a, z = st.skewness(c), st.skewness(b)
        return a if abs(a) >= abs(z) else z
    zs = [x - ratio * y if kind == "ratio" else x - y for x, y in zip(c, b)]
    return 0.0 if all(z == zs[0] for z in zs) else st.skewness(zs)


def compare_interval(c: Sequence[float], b: Sequence[float], spec: Dict[str, Any],
                     metric: Dict[str, Any], kind: str, conf: float, paired: bool,
                     resamples: int, seed: int, cc: Optional[Sequence[bool]] = None,
                     cb: Optional[Sequence[bool]] = None) -> Dict[str, Any]:
    """The ratio (candidate / baseline) or difference (candidate - baseline) of a pillar's
    statistic with its interval (docs/statistics.md, "Comparative claims"), or refused.

    Methods: ``order_statistic``, ``clopper_pearson``, ``t``, ``bounded`` (each side's interval
    at one-sided beta/2, combined), ``mcnemar`` (paired proportions, discordant pairs),
    ``bootstrap_percentile`` (one resampling stream, paired or not; for means the expanded
    percentile shares and a skewness guard) and ``none``. Returns a dict with ``estimate``,
    ``low``, ``high``, ``refused`` and what the pillar entity records.

    >>> spec = {"statistic": "mean", "interval": "t"}
    >>> r = compare_interval([2.0, 4.0, 6.0, 9.0], [1.0, 2.0, 3.0, 4.5], spec, {}, "ratio", 0.9,
    ...                      True, 0, 0)
    >>> r["estimate"], r["refused"], r["low"] < 2 < r["high"]
    (2.0, False, True)
    """
    statistic = spec["statistic"]
    method = spec["interval"]
    if paired and len(c) != len(b):
        raise _AnalysisFailed(f"paired samples must have the same length, got {len(c)} and "
                              f"{len(b)}")
    ec, eb = _estimate(c, spec), _estimate(b, spec)
    out: Dict[str, Any] = {"estimate": 0.0, "low": 0.0, "high": 0.0, "refused": False,
                           "candidate_estimate": ec, "baseline_estimate": eb, "sides": None,
                           "skewness": None, "mc_se": None, "levels": None, "mcnemar": None}
    trivial = _trivial_comparison(statistic, kind)

    def refuse(estimate: float, **extra: Any) -> Dict[str, Any]:
        out.update(estimate=estimate, low=trivial[0], high=trivial[1], refused=True, **extra)
        return out

    if kind == "ratio":
        if any(x < 0 for x in c) or any(x < 0 for x in b):
            return refuse(0.0)  # a ratio needs non-negative values on both sides
        if not eb > 0:
            return refuse(0.0)  # a ratio to a baseline statistic of 0 is undefined
    estimate = ec / eb if kind == "ratio" else ec - eb
    if not math.isfinite(estimate):
        return refuse(0.0)
    if (method == "bootstrap_percentile" and statistic == "quantile"
            and not 0.25 <= float(spec["p"]) <= 0.75):
        return refuse(estimate)
    out["estimate"] = estimate
    beta = (1 - conf) / 2
    if method == "none":
        out["low"] = out["high"] = estimate
        return out
    if method == "mcnemar":
        if not paired:
            return refuse(estimate)
        if not (_is_binary(c) and _is_binary(b)):
            raise _AnalysisFailed("mcnemar needs 0/1 values on both sides")
        n10 = sum(1 for x, y in zip(c, b) if x == 1 and y == 0)
        n01 = sum(1 for x, y in zip(c, b) if x == 0 and y == 1)
        low, high, pi, q = st.paired_proportion_interval(len(c), n10, n01, conf)
        out.update(low=low, high=high, mcnemar={
            "candidate_only": n10, "baseline_only": n01,
            "p_value": st.mcnemar_exact_p(n10, n01), "share": pi, "discordance": q})
        return out
    if method == "bootstrap_percentile":
        if any(cc or ()) or any(cb or ()):
            return refuse(estimate)  # censored values: only order statistics handle them
        n_min = min(len(c), len(b))
        if n_min < MIN_BOOTSTRAP_N:
            return refuse(estimate)
        for xs in (c, b):
            if all(x == xs[0] for x in xs) or _is_binary(xs):
                return refuse(estimate)  # constant or binary side
        skewness: Optional[float] = None
        if statistic == "mean":
            skewness = _influence_skewness(c, b, kind, paired, estimate)
            if abs(skewness) > 1:
                return refuse(estimate, skewness=skewness)
        p = None if statistic == "mean" else 0.5 if statistic == "median" else float(spec["p"])
        dc, db = st.two_sample_bootstrap(c, b, p, paired, resamples, seed)
        dist: List[float] = []
        for x, y in zip(dc, db):
            if kind == "ratio" and not y > 0:
                return refuse(estimate)  # a resample's baseline statistic is 0
            dist.append(x / y if kind == "ratio" else x - y)
        dist.sort()
        levels: Tuple[float, float] = (beta, 1 - beta)
        if statistic == "mean":
            # The expanded percentile shares (n: the pairs, or the smaller side unpaired).
            tail = st.normal_cdf(-math.sqrt(n_min / (n_min - 1))
                                 * st.t_quantile(1 - beta, n_min - 1))
            levels = (tail, 1 - tail)
            out["levels"] = levels
        out.update(low=st.quantile_sorted(dist, levels[0]),
                   high=st.quantile_sorted(dist, levels[1]),
                   mc_se=(_mc_se(dist, levels[0]), _mc_se(dist, levels[1])), skewness=skewness)
        return out
    # Combined sides: each side's own interval at one-sided beta/2, a two-sided 1 - beta.
    side_conf = 1 - beta
    one = (0.0, 1.0) if statistic == "proportion" else (-math.inf, math.inf)
    sides: List[Dict[str, Any]] = []
    for values, censored in ((c, cc), (b, cb)):
        est = _estimate(values, spec)
        refused, low, high, extra = _interval(values, censored, spec, metric, est, side_conf,
                                              resamples, seed)
        if refused:
            low, high = one
        sides.append({"refused": refused, "low": low, "high": high, "confidence": side_conf,
                      "ranks": (extra["empiric:rank_low"], extra["empiric:rank_high"])
                      if "empiric:rank_low" in extra else None})
    out["sides"] = sides
    if sides[0]["refused"] or sides[1]["refused"]:
        return refuse(estimate)
    c_low, c_high = float(sides[0]["low"]), float(sides[0]["high"])
    b_low, b_high = float(sides[1]["low"]), float(sides[1]["high"])
    if kind == "difference":
        out.update(low=c_low - b_high, high=c_high - b_low)
    else:
        cl, bl = max(0.0, c_low), max(0.0, b_low)
        out.update(low=0.0 if b_high == math.inf else cl / b_high,
                   high=math.inf if bl == 0 else c_high / bl)
    return out


def _comparison_pillar(scenario: Dict[str, Any], spec: Dict[str, Any], k: int,
                       obs: Sequence[Dict[str, Any]], bobs: Sequence[Dict[str, Any]],
                       paired: bool) -> Dict[str, Any]:
    """A comparative claim's pillar: the candidate's statistic divided by, or minus, the
    baseline's, each side's sample under intention to treat (as :func:`_pillar`)."""
    analysis = scenario["analysis"]
    claim = scenario["claim"]
    kind = analysis["comparison"]["kind"]
    conf = float(analysis["confidence"])
    beta = (1 - conf) / 2
    method = spec["interval"]
    statistic = spec["statistic"]
    seed = (int(analysis["seed"]) + k) % 2 ** 32
    resamples = int(analysis["resamples"])
    metric = scenario["metrics"][spec["metric"]]
    c, cc, c_refused = _sample(scenario, spec, obs)
    b, cb, b_refused = _sample(scenario, spec, bobs)
    if paired and (c_refused or b_refused):
        # Failed items without a value (on_failure: inconclusive): paired sides keep only the
        # items both answered, so that pairs stay pairs (the pillar decides nothing either way).
        both = [o["ok"] and i < len(bobs) and bobs[i]["ok"] for i, o in enumerate(obs)]
        c, cc, _ = _sample(scenario, spec, [o for i, o in enumerate(obs) if both[i]])
        b, cb, _ = _sample(scenario, spec, [o for i, o in enumerate(bobs) if i < len(both)
                                            and both[i]])
    name = _statistic_name(spec) + "_" + kind
    trivial = _trivial_comparison(statistic, kind)
    attrs: Dict[str, Any] = {
        "empiric:pillar": spec["name"], "empiric:metric": spec["metric"],
        "empiric:metric_kind": metric["kind"], "empiric:statistic": name,
        "empiric:method": method, "empiric:n": len(obs),
        "empiric:failures": sum(1 for o in obs if not o["ok"]), "empiric:censored": 0,
        "empiric:confidence": conf, "empiric:one_sided_error": float(f"{beta:.12g}"),
        "empiric:deciding": spec["name"] == claim["threshold"]["metric"],
    }
    if statistic == "quantile":
        attrs["empiric:p"] = float(spec["p"])
    if statistic == "median":
        attrs["empiric:p"] = 0.5
    if method.startswith("bootstrap"):
        attrs["empiric:seed"] = seed
        attrs["empiric:resamples"] = resamples
    cmp: Optional[Dict[str, Any]] = None
    if c and b:
        try:
            cmp = compare_interval(c, b, spec, metric, kind, conf, paired, resamples, seed, cc,
                                   cb)
        except _AnalysisFailed:
            cmp = None
    if cmp is None:
        # Nothing to compare (an empty side) or arguments the comparison cannot take: the
        # pillar claims nothing and cannot decide.
        estimate, low, high, refused, undecidable = 0.0, trivial[0], trivial[1], True, True
    else:
        refused = c_refused or b_refused or cmp["refused"]
        # Failed items without a value: no rule can decide, the point rule included.
        undecidable = c_refused or b_refused
        estimate = cmp["estimate"]
        low, high = trivial if refused else (cmp["low"], cmp["high"])
        attrs["empiric:censored"] = sum(1 for x in cc or () if x)
        if cmp["mc_se"] is not None:
            attrs["empiric:mc_se_low"], attrs["empiric:mc_se_high"] = cmp["mc_se"]
        if cmp["levels"] is not None:
            attrs["empiric:percentile_low"], attrs["empiric:percentile_high"] = cmp["levels"]
        if cmp["skewness"] is not None:
            attrs["empiric:skewness"] = cmp["skewness"]
        attrs.update({
            "empiric:comparison": kind, "empiric:paired": paired,
            "empiric:candidate_estimate": cmp["candidate_estimate"],
            "empiric:baseline_estimate": cmp["baseline_estimate"],
            "empiric:baseline_n": len(bobs),
            "empiric:baseline_failures": sum(1 for o in bobs if not o["ok"]),
            "empiric:baseline_censored": sum(1 for x in cb or () if x),
        })
        for side, si in zip(("candidate", "baseline"), cmp["sides"] or ()):
            attrs[f"empiric:{side}_ci_low"] = _finite(si["low"])
            attrs[f"empiric:{side}_ci_high"] = _finite(si["high"])
            attrs[f"empiric:{side}_confidence"] = si["confidence"]
            if si["ranks"] is not None:
                attrs[f"empiric:{side}_rank_low"], attrs[f"empiric:{side}_rank_high"] = si["ranks"]
        m = cmp["mcnemar"]
        if m is not None:
            attrs.update({
                "empiric:discordant_candidate_only": m["candidate_only"],
                "empiric:discordant_baseline_only": m["baseline_only"],
                "empiric:mcnemar_p": m["p_value"],
                "empiric:discordant_share_low": m["share"][0],
                "empiric:discordant_share_high": m["share"][1],
                "empiric:discordance_low": m["discordance"][0],
                "empiric:discordance_high": m["discordance"][1],
            })
    ci_low, ci_high = _finite(low), _finite(high)
    attrs.update({
        "empiric:estimate": estimate, "empiric:ci_low": ci_low, "empiric:ci_high": ci_high,
        "empiric:ci_low_bounded": abs(ci_low) < MAX, "empiric:ci_high_bounded": abs(ci_high) < MAX,
        "empiric:refused": True if refused else None,
        "empiric:undecidable": True if undecidable else None,
    })
    evidence = {"pillar": spec["name"], "statistic_name": name, "statistic_value": estimate,
                "ci_low": ci_low, "ci_high": ci_high}
    censored = any(cb or ()) or (cmp is not None and any(cc or ()))
    return {"evidence": evidence, "attrs": attrs, "refused": refused, "undecidable": undecidable,
            "estimate_high": None, "censored": censored}


def analyze(scenario: Dict[str, Any], obs: Sequence[Dict[str, Any]],
            baseline: Optional[Tuple[Sequence[Dict[str, Any]], bool]] = None) -> Dict[str, Any]:
    """Recompute the pillars and the verdict (docs/statistics.md, "The verdict").

    ``baseline`` is a comparative claim's (baseline observations, paired); it is required
    exactly when the scenario declares ``analysis.comparison`` (ValueError otherwise).
    """
    analysis = scenario["analysis"]
    t = scenario["claim"]["threshold"]
    comparison = analysis.get("comparison")
    if comparison is not None and baseline is None:
        raise ValueError("the scenario makes a comparative claim and no baseline observations "
                         "were given")
    if comparison is None and baseline is not None:
        raise ValueError("baseline observations were given, but the scenario declares no "
                         "analysis.comparison")
    measured = len(obs)
    failures = sum(1 for o in obs if not o["ok"])
    retried = sum(1 for o in obs if o.get("attempts", 0) > 1)
    if baseline is None:
        pillars = [_pillar(scenario, spec, k, obs, measured)
                   for k, spec in enumerate(analysis["pillars"])]
    else:
        pillars = [_comparison_pillar(scenario, spec, k, obs, baseline[0], baseline[1])
                   for k, spec in enumerate(analysis["pillars"])]
    deciding = next(p for p in pillars if p["attrs"]["empiric:deciding"])
    rule = analysis.get("decision", "interval")
    ev = deciding["evidence"]
    eh = deciding["estimate_high"]
    if rule == "interval":
        low, high = ev["ci_low"], ev["ci_high"]
    else:
        low = ev["statistic_value"]
        high = low if eh is None else _finite(eh)
    side = None
    center = 0.0
    if baseline is not None:
        bobs = baseline[0]
        side = (len(bobs), sum(1 for o in bobs if not o["ok"]), 1 if deciding["censored"] else 0)
        center = 1.0 if comparison["kind"] == "ratio" else 0.0
    outcome = rule_outcome(measured, failures, int(analysis["min_n"]),
                           float(analysis["max_failure_rate"]), rule,
                           deciding["attrs"]["empiric:method"], deciding["refused"],
                           deciding["undecidable"], t["comparator"], float(t["value"]), low, high,
                           center=center, baseline=side)
    a = deciding["attrs"]
    a.update({
        "empiric:decision_rule": rule, "empiric:comparator": t["comparator"],
        "empiric:threshold": t["value"], "empiric:min_n": int(analysis["min_n"]),
        "empiric:max_failure_rate": float(analysis["max_failure_rate"]),
        "empiric:failed_items": failures,
    })
    if side is not None:
        a["empiric:baseline_failed_items"] = side[1]
        if t["comparator"] == "within":
            a["empiric:within_center"] = center
    a.update({"empiric:deciding_low": low, "empiric:deciding_high": high,
              "empiric:outcome": outcome})
    return {"pillars": pillars, "outcome": outcome, "observed_value": ev["statistic_value"],
            "measured": measured, "failures": failures, "retried": retried}


def _close(a: Any, b: Any) -> bool:
    if type(a) is bool or type(b) is bool:
        return a is b
    if type(a) is int and type(b) is int:
        return a == b
    if type(a) in (int, float) and type(b) in (int, float):
        if a == b:
            return True
        return abs(a - b) <= TOLERANCE * max(abs(a), abs(b))
    return a == b


BASELINE_DATASET = "baseline"
"""The name (and kind) of a comparative record's baseline observations dataset."""


def _baseline_part(record: Dict[str, Any], datasets: List[Any], comparative: bool,
                   obs: Sequence[Dict[str, Any]], data: Optional[bytes],
                   problems: List[Dict[str, str]],
                   differ: Any) -> Tuple[bool, Optional[Tuple[List[Dict[str, Any]], bool]]]:
    """Check a comparative record's third part, the baseline's observations: (go on, baseline
    input for :func:`analyze`). As ``empiric audit``: the file must hash to the ``baseline``
    dataset, and the pairing is the one the provenance records (``empiric:paired`` of the
    baseline dataset entity); paired sides have the same item ids in the same order, and a
    baseline substrate measured in the run is paired."""
    index = next((i for i, d in enumerate(datasets) if type(d) is dict
                  and d.get("kind") == "baseline" and d.get("name") == BASELINE_DATASET), None)
    if index is None and not comparative:
        if data is not None:
            problems.append({"code": "bundle_mismatch", "message": "a baseline observations file "
                             "was given, but the record lists no baseline dataset (it is not a "
                             "comparative claim)"})
            return False, None
        return True, None
    if index is None:
        problems.append({"code": "bundle_mismatch", "message": "the scenario makes a "
                         "comparative claim, but the record lists no baseline dataset"})
        return False, None
    ref = datasets[index]
    if not comparative:
        problems.append({"code": "bundle_mismatch", "message": "the record lists a baseline "
                         "dataset, but the scenario declares no analysis.comparison"})
        return False, None
    if data is None:
        problems.append({"code": "bundle_mismatch", "message": "the record compares with a "
                         "baseline: its observations (<record>.baseline.observations.jsonl, or "
                         "--baseline-observations) are needed to recompute the evidence"})
        return False, None
    digest = hashlib.sha256(data).hexdigest()
    if digest != ref.get("content_hash"):
        differ("bundle_mismatch", f"/data/datasets/{index}/content_hash", ref.get("content_hash"),
               digest)
    try:
        base = read_observations(data)
    except AuditError as e:
        problems.append({"code": e.code, "message": f"baseline observations file, {e.message}"})
        return False, None
    if len(base) != ref.get("n_records"):
        differ("bundle_mismatch", f"/data/datasets/{index}/n_records", ref.get("n_records"),
               len(base))
    def obj(parent: Dict[str, Any], key: str) -> Dict[str, Any]:
        v = parent.get(key)
        return v if type(v) is dict else {}

    prov = obj(record, "provenance")
    entities = obj(prov, "entity")
    eid = "empiric:dataset/" + BASELINE_DATASET
    entity = obj(entities, eid)
    paired = entity.get("empiric:paired")
    pointer = f"/provenance/entity/{eid.replace('/', '~1')}/empiric:paired"
    if type(paired) is not bool:
        problems.append({"code": "bundle_mismatch", "message": f"the provenance does not record "
                         f"whether the sides were paired ({eid} has no boolean empiric:paired), "
                         "so the comparison cannot be recomputed as the run made it"})
        return False, None
    same_items = len(obs) == len(base) and all(o.get("id") == b.get("id")
                                               for o, b in zip(obs, base))
    agents = obj(prov, "agent")
    measured_here = any(k.startswith("empiric:baseline-substrate/") for k in agents)
    if paired and not same_items:
        differ("evidence_mismatch", pointer, True, False)
    elif not paired and measured_here:
        differ("evidence_mismatch", pointer, False, True)
    return True, (base, paired)


def audit(record_bytes: bytes, observations: bytes, scenario_bytes: bytes,
          key: Optional[bytes], baseline: Optional[bytes] = None) -> Dict[str, Any]:
    """Audit a bundle; returns ``{"agrees", "status", "differences", "problems", "recomputed"}``.

    ``status`` is ``"agrees"`` or ``"differs"``. A comparative record (``analysis.comparison``)
    needs ``baseline``, the bytes of its baseline's observations file: both sides are recomputed,
    paired as the record says.
    """
    differences: List[Dict[str, Any]] = []
    problems: List[Dict[str, str]] = []

    def result(recomputed: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        agrees = not differences and not problems
        return {"agrees": agrees, "status": "agrees" if agrees else "differs",
                "differences": differences, "problems": problems, "recomputed": recomputed}

    def differ(code: str, pointer: str, recorded: Any, recomputed: Any) -> None:
        differences.append({"code": code, "pointer": pointer, "recorded": recorded,
                            "recomputed": recomputed})

    try:
        record = _verify(record_bytes, key)
    except WireError as e:
        problems.append({"code": e.code, "message": e.message})
        try:
            record = parse(record_bytes)
        except WireError:
            return result()
        if type(record) is not dict:
            return result()
    datasets = record.get("data", {}).get("datasets", [])
    index = next((i for i, d in enumerate(datasets)
                  if d.get("kind") == "observations" and d.get("name") == "observations"), None)
    if index is None:
        problems.append({"code": "bundle_mismatch",
                         "message": "the record lists no observations dataset: it cannot be audited"})
        return result()
    ref = datasets[index]
    digest = hashlib.sha256(observations).hexdigest()
    if digest != ref.get("content_hash"):
        differ("bundle_mismatch", f"/data/datasets/{index}/content_hash",
               ref.get("content_hash"), digest)
    scenario_value = parse(scenario_bytes)
    config = hashlib.sha256(canonicalize(scenario_value)).hexdigest()
    if config != record.get("pre_registration", {}).get("config_hash"):
        differ("bundle_mismatch", "/pre_registration/config_hash",
               record.get("pre_registration", {}).get("config_hash"), config)
    try:
        obs = read_observations(observations)
    except AuditError as e:
        problems.append({"code": e.code, "message": e.message})
        return result()
    if len(obs) != ref.get("n_records"):
        differ("bundle_mismatch", f"/data/datasets/{index}/n_records", ref.get("n_records"),
               len(obs))
    analysis = scenario_value.get("analysis") if type(scenario_value) is dict else None
    comparative = type(analysis) is dict and analysis.get("comparison") is not None
    go_on, base = _baseline_part(record, datasets, comparative, obs, baseline, problems, differ)
    if not go_on:
        return result()
    a = analyze(scenario_value, obs, base)

    def compare(pointer: str, recorded: Any, recomputed: Any) -> None:
        if not _close(recorded, recomputed):
            differ("evidence_mismatch", pointer, recorded, recomputed)

    evidence = record.get("evidence", [])
    if len(evidence) != len(a["pillars"]):
        differ("evidence_mismatch", "/evidence", len(evidence), len(a["pillars"]))
    for i, (mine, p) in enumerate(zip(evidence, a["pillars"])):
        for field, v in p["evidence"].items():
            compare(f"/evidence/{i}/{field}", mine.get(field), v)
    verdict = record.get("verdict", {})
    compare("/verdict/outcome", verdict.get("outcome"), a["outcome"])
    compare("/verdict/observed_value", verdict.get("observed_value"), a["observed_value"])
    threshold = scenario_value["claim"]["threshold"]
    for where in ("claim", "verdict"):
        t = record.get(where, {}).get("threshold")
        if canonicalize(t) != canonicalize(threshold):
            differ("evidence_mismatch", f"/{where}/threshold", t, threshold)

    entities = record.get("provenance", {}).get("entity", {})
    activity = record.get("provenance", {}).get("activity", {})
    run = next((k for k in activity if k.startswith("empiric:run/") and k.count("/") == 1), None)
    if run is None:
        differ("evidence_mismatch", "/provenance/activity", None, "empiric:run/<id>")
    else:
        for p in a["pillars"]:
            eid = f"{run}/pillar/{p['evidence']['pillar']}"
            pointer = "/provenance/entity/" + eid.replace("~", "~0").replace("/", "~1")
            have = entities.get(eid)
            if type(have) is not dict:
                differ("evidence_mismatch", pointer, None, "a pillar entity")
                continue
            for attr, want in p["attrs"].items():
                if want is None:  # must be absent
                    if attr in have:
                        differ("evidence_mismatch", f"{pointer}/{attr}", have[attr], None)
                elif want is True and attr in ("empiric:refused", "empiric:undecidable"):
                    if type(have.get(attr)) is not str:
                        differ("evidence_mismatch", f"{pointer}/{attr}", have.get(attr),
                               "a reason")
                else:
                    compare(f"{pointer}/{attr}", have.get(attr), want)
        counts = activity.get(run, {})
        for attr, n in (("empiric:measured", a["measured"]),
                        ("empiric:failed_items", a["failures"]),
                        ("empiric:retried_items", a["retried"])):
            compare(f"/provenance/activity/{run.replace('/', '~1')}/{attr}", counts.get(attr), n)
    return result({"outcome": a["outcome"], "observed_value": a["observed_value"],
                   "measured": a["measured"]})
