#!/usr/bin/env python3
"""Reference values from scipy and statsmodels for the statistics tests.

Reads JSON lines {"op": ..., ...}; writes one JSON line per request: {"result": ...} or
{"error": "..."}. NaN and infinities are written as null.
"""
import json
import math
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint


def clean(v):
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    v = float(v)
    return v if math.isfinite(v) else None


def bounded_mean(x, lo, hi, confidence):
    """Anderson's bounds, integrating scipy's empirical CDF exactly over its steps."""
    n = len(x)
    eps = math.sqrt(math.log(2 / (1 - confidence)) / (2 * n))
    cdf = stats.ecdf(np.asarray(x)).cdf
    knots = np.unique(np.concatenate(([lo], np.asarray(x, dtype=float), [hi])))
    mids = (knots[:-1] + knots[1:]) / 2
    widths = np.diff(knots)
    f = cdf.evaluate(mids)
    upper = hi - float(np.sum(np.maximum(f - eps, 0) * widths))
    lower = hi - float(np.sum(np.minimum(f + eps, 1) * widths))
    return [lower, upper]


def handle(r):
    op = r["op"]
    if op == "quantile_ci":
        res = stats.quantile_test(np.asarray(r["x"]), q=0, p=r["p"])
        ci = res.confidence_interval(r["confidence"])
        return [ci.low, ci.high]
    if op in ("cp", "wilson"):
        method = "beta" if op == "cp" else "wilson"
        return list(proportion_confint(r["k"], r["n"], alpha=1 - r["confidence"], method=method))
    if op == "t":
        ci = stats.ttest_1samp(np.asarray(r["x"]), 0).confidence_interval(r["confidence"])
        return [ci.low, ci.high]
    if op == "bounded":
        return bounded_mean(r["x"], r["lo"], r["hi"], r["confidence"])
    if op == "bootstrap":
        res = stats.bootstrap(
            (np.asarray(r["x"]),), np.mean, confidence_level=r["confidence"],
            n_resamples=r["resamples"], method=r["method"], random_state=r["seed"],
        )
        return [res.confidence_interval.low, res.confidence_interval.high]
    if op == "binom_cdf":
        return stats.binom.cdf(r["k"], r["n"], r["p"])
    if op == "binom_ppf":
        return stats.binom.ppf(r["q"], r["n"], r["p"])
    if op == "binom_isf":
        return stats.binom.isf(r["q"], r["n"], r["p"])
    if op == "beta_ppf":
        return stats.beta.ppf(r["q"], r["a"], r["b"])
    if op == "t_ppf":
        return stats.t.ppf(r["q"], r["df"])
    if op == "expanded_share":
        # The expanded percentile's tail share: Φ(−√(n/(n − 1))·t(1 − α, n − 1)).
        n, alpha = r["n"], r["alpha"]
        return stats.norm.cdf(-np.sqrt(n / (n - 1)) * stats.t.ppf(1 - alpha, n - 1))
    if op == "nct_cdf":
        return stats.nct.cdf(r["x"], r["df"], r["nc"])
    if op == "mcnemar_p":
        from statsmodels.stats.contingency_tables import mcnemar

        return mcnemar([[0, r["b"]], [r["c"], 0]], exact=True).pvalue
    if op == "bootstrap2":
        # A statistic of two samples: candidate's over baseline's (ratio) or minus (difference).
        def one(x, axis):
            if r["statistic"] == "mean":
                return np.mean(x, axis=axis)
            return np.quantile(x, r.get("p", 0.5), axis=axis, method="linear")

        def stat(c, b, axis=-1):
            sc, sb = one(c, axis), one(b, axis)
            return sc / sb if r["kind"] == "ratio" else sc - sb

        confidence = r["confidence"]
        if r["statistic"] == "mean":
            # The expanded percentile interval of a mean (Hesterberg 2015): read at Φ(−z) with
            # z = √(n/(n − 1))·t(1 − β, n − 1), n the pairs or the smaller side.
            n = min(len(r["candidate"]), len(r["baseline"]))
            beta = (1 - confidence) / 2
            z = np.sqrt(n / (n - 1)) * stats.t.ppf(1 - beta, n - 1)
            confidence = 1 - 2 * stats.norm.cdf(-z)
        res = stats.bootstrap(
            (np.asarray(r["candidate"]), np.asarray(r["baseline"])), stat, paired=r["paired"],
            vectorized=True, confidence_level=confidence, n_resamples=r["resamples"],
            method="percentile", random_state=r["seed"],
        )
        return [res.confidence_interval.low, res.confidence_interval.high]
    if op == "skew":
        return stats.skew(np.asarray(r["x"]))
    raise ValueError(f"unknown op {op}")


for line in sys.stdin:
    req = json.loads(line)
    try:
        out = {"result": clean(handle(req))}
    except Exception as e:  # noqa: BLE001 - report any failure to the test
        out = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out) + "\n")
sys.stdout.flush()
