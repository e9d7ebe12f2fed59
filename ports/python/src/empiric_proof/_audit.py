"""``python -m empiric_proof audit``: recompute a record's evidence from its bundle.

Written from docs/statistics.md and docs/record.md, independently of the TypeScript core
(statistics in :mod:`empiric_proof._stats`). The audit checks the record (with a key, its
signature), that the observations file hashes to the record's ``observations`` dataset and the
scenario to ``config_hash``, then recomputes from the observations, under the scenario's plan,
every number of every evidence entry and pillar entity, the statistic names, intervals methods,
ranks, seeds, refusals, and the verdict, and compares: numbers to 1e-12 relative (ints and
strings exactly). Texts made for people (``cross_check``, ``reasoning``, ``analysis_plan``,
refusal reasons) are not recomputed here.

Comparative records (``analysis.comparison``: a candidate against a baseline) are not
recomputed here: the audit checks the record and that the observations and scenario are the ones
it seals, then returns ``status: "not_recomputed"`` with a note (``agrees`` is false: nothing was
recomputed to agree with). ``empiric audit`` recomputes both sides.
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

__all__ = ["analyze", "audit", "read_observations", "TOLERANCE"]

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

    def mc_se(lv: float) -> float:
        step = math.sqrt(lv * (1 - lv) / b)

        def at(q: float) -> float:
            return st.quantile_sorted(dist, min(1.0, max(0.0, q)))
        return (at(lv + step) - at(lv - step)) / 2

    return {"low": low, "high": high, "empiric:mc_se_low": mc_se(levels[0]),
            "empiric:mc_se_high": mc_se(levels[1]), **expanded}


def analyze(scenario: Dict[str, Any], obs: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """Recompute the pillars and the verdict (docs/statistics.md, "The verdict")."""
    analysis = scenario["analysis"]
    t = scenario["claim"]["threshold"]
    measured = len(obs)
    failures = sum(1 for o in obs if not o["ok"])
    retried = sum(1 for o in obs if o.get("attempts", 0) > 1)
    pillars = [_pillar(scenario, spec, k, obs, measured)
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
    outcome = rule_outcome(measured, failures, int(analysis["min_n"]),
                           float(analysis["max_failure_rate"]), rule,
                           deciding["attrs"]["empiric:method"], deciding["refused"],
                           deciding["undecidable"], t["comparator"], float(t["value"]), low, high)
    a = deciding["attrs"]
    a.update({
        "empiric:decision_rule": rule, "empiric:comparator": t["comparator"],
        "empiric:threshold": t["value"], "empiric:min_n": int(analysis["min_n"]),
        "empiric:max_failure_rate": float(analysis["max_failure_rate"]),
        "empiric:failed_items": failures, "empiric:deciding_low": low,
        "empiric:deciding_high": high, "empiric:outcome": outcome,
    })
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


NOT_RECOMPUTED = "not_recomputed"
"""The audit ``status`` of a comparative record: checked, but its evidence not recomputed."""


def audit(record_bytes: bytes, observations: bytes, scenario_bytes: bytes,
          key: Optional[bytes]) -> Dict[str, Any]:
    """Audit a bundle; returns ``{"agrees", "status", "differences", "problems", "recomputed"}``.

    ``status`` is ``"agrees"``, ``"differs"``, or :data:`NOT_RECOMPUTED` for a comparative
    record whose bundle checks out (with a ``note`` saying why).
    """
    differences: List[Dict[str, Any]] = []
    problems: List[Dict[str, str]] = []

    def result(recomputed: Optional[Dict[str, Any]] = None,
               note: Optional[str] = None) -> Dict[str, Any]:
        agrees = not differences and not problems
        status = "differs" if not agrees else NOT_RECOMPUTED if note else "agrees"
        out = {"agrees": agrees and note is None, "status": status, "differences": differences,
               "problems": problems, "recomputed": recomputed}
        if note is not None:
            out["note"] = note
        return out

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
    comparison = analysis.get("comparison") if type(analysis) is dict else None
    if comparison is not None or any(type(d) is dict and d.get("kind") == "baseline"
                                     for d in datasets):
        kind = comparison.get("kind") if type(comparison) is dict else "?"
        return result(note=f"a comparative claim (analysis.comparison: {kind}) compares the "
                      "candidate with a baseline's observations; this port does not recompute "
                      "comparisons (the record, its observations and scenario were checked); "
                      "recompute both sides with `empiric audit`")
    a = analyze(scenario_value, obs)

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
