/**
 * Independent re-computation of a point estimate with jStat, a second library with its own
 * summation, sorting and quantile code.
 *
 * Agreement: |value − estimate| ≤ 1e-9 · max(|value|, |estimate|, max|xᵢ|). Scaling by the data's
 * largest magnitude too keeps a mean near 0 of large values (where summation order alone moves
 * the result by more than 1e-9 of the result itself) from being called a disagreement; for
 * quantiles and the median, which lie within the data, it is the plain relative tolerance.
 * Differences below 2^-1022 (the smallest normal double) always agree.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { jStat } from "./jstat.ts";
import { CROSS_CHECK_LIBRARY, CROSS_CHECK_TOLERANCE } from "./library.ts";
import type { CrossCheck, IntervalOptions, IntervalResult, Statistic } from "./types.ts";
import { orderStatisticRanksBySummation } from "./order_statistic.ts";
import { clopperPearsonBySummation } from "./clopper_pearson.ts";
import { wilsonBySolving } from "./wilson.ts";
import { boundedMeanByIntegral } from "./bounded_mean.ts";
import { normalCdf, normalQuantile } from "./normal.ts";
import { mersenne } from "pure-rand/generator/mersenne";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { requireBinary, requireFiniteValues, requireStatistic } from "./validate.ts";

/** Differences smaller than the least normal double are rounding noise among subnormals. */
const SUBNORMAL_LIMIT = 2 ** -1022;

/**
 * Re-compute the statistic with jStat and compare it with `estimate` (within 1e-9, relative).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crossCheckStatistic } from "./cross_check.ts";
 * const xs = [10, 20, 30, 40, 50];
 * const ok = crossCheckStatistic(xs, { kind: "quantile", p: 0.8 }, 42);
 * assert.ok(ok.agrees);
 * assert.equal(ok.text, "jstat 1.9.6 quantiles(type 7) = 42; agrees within 1e-9 (relative)");
 * assert.ok(!crossCheckStatistic(xs, { kind: "mean" }, 31).agrees);
 * ```
 */
export function crossCheckStatistic(
  values: readonly number[],
  s: Statistic,
  estimate: number,
): CrossCheck {
  requireStatistic(s);
  requireFiniteValues(values);
  if (typeof estimate !== "number" || !Number.isFinite(estimate)) {
    throw new UsageError(`estimate must be a finite number, got ${String(estimate)}`);
  }
  const xs = values.slice();
  let value: number;
  let what: string;
  switch (s.kind) {
    case "mean":
      value = jStat.mean(xs);
      what = "mean";
      break;
    case "proportion":
      requireBinary(values);
      value = jStat.mean(xs);
      what = "mean of 0/1 values";
      break;
    case "median":
      value = jStat.median(xs);
      what = "median";
      break;
    case "quantile":
      // jStat's type 7 reads past the end for a single value; the quantile of one value is it.
      value = xs.length === 1 ? xs[0] : jStat.quantiles(xs, [s.p], 1, 1)[0];
      what = "quantiles(type 7)";
      break;
  }
  let scale = Math.max(Math.abs(value), Math.abs(estimate));
  for (const x of values) scale = Math.max(scale, Math.abs(x));
  const tol = CROSS_CHECK_TOLERANCE;
  const agrees = Math.abs(value - estimate) <= Math.max(tol * scale, SUBNORMAL_LIMIT);
  const head = `${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version} ${what} = ${value}`;
  return {
    library: CROSS_CHECK_LIBRARY.name,
    library_version: CROSS_CHECK_LIBRARY.version,
    value,
    agrees,
    tolerance: tol,
    text: agrees
      ? `${head}; agrees within ${tol} (relative)`
      : `${head}; DISAGREES with estimate ${estimate} beyond ${tol} (relative)`,
  };
}

/** How far an interval's recomputed bounds may differ, per method. */
const BOUND_TOLERANCE: Record<string, { tol: number; what: string }> = {
  order_statistic: { tol: 0, what: "exactly" },
  clopper_pearson: { tol: 1e-9, what: "within 1e-9" },
  wilson: { tol: 1e-9, what: "within 1e-9" },
  bounded: { tol: 1e-9, what: "within 1e-9 (relative to the range)" },
  t: { tol: 1e-6, what: "within 1e-6 (relative; jStat's t quantile is accurate to 4e-8)" },
  bootstrap_percentile: {
    tol: 1e-6,
    what: "within 1e-6 (relative; the expanded shares use jStat's t quantile, good to 1e-7)",
  },
  bootstrap_bca: { tol: 1e-9, what: "within 1e-9 (relative)" },
};

function fmtBound(x: number): string {
  return Number.isFinite(x) ? String(x) : "unbounded";
}

/**
 * Recompute an interval's bounds by an independent route and compare:
 * order statistics by direct binomial summation (ranks must match, bounds exactly); Clopper-Pearson
 * by bisection on summed binomial tails; Wilson by solving the score equation; t with jStat's mean,
 * standard deviation and t quantile; bounded means by integrating the shifted empirical CDF; a
 * bootstrap by materialising every resample with pure-rand's `uniformInt` and jStat's mean and
 * quantiles. Returns undefined for `none` and for refused intervals.
 *
 * @example
 * ```ts
 * import { crossCheckInterval } from "./cross_check.ts";
 * import { estimateInterval } from "./interval.ts";
 * import assert from "node:assert/strict";
 * const xs = Array.from({ length: 100 }, (_, i) => i + 1);
 * const opts = { confidence: 0.95, resamples: 2000, seed: 1 };
 * const r = estimateInterval(xs, { kind: "median" }, "order_statistic", opts);
 * const cc = crossCheckInterval(xs, { kind: "median" }, r, opts)!;
 * assert.ok(cc.agrees);
 * assert.match(cc.text, /ranks 40 and 61/);
 * ```
 */
export function crossCheckInterval(
  values: readonly number[],
  s: Statistic,
  result: IntervalResult,
  opts: IntervalOptions,
): { agrees: boolean; text: string; low: number; high: number } | undefined {
  if (result.method === "none" || result.refused !== undefined) return undefined;
  const n = values.length;
  let low: number, high: number, route: string;
  switch (result.method) {
    case "order_statistic": {
      const p = s.kind === "median" ? 0.5 : (s as { p: number }).p;
      const ranks = orderStatisticRanksBySummation(n, p, opts.confidence);
      const known = Float64Array.from(values).sort();
      const high_ = Float64Array.from(values, (v, i) => (opts.censored?.[i] ? Infinity : v)).sort();
      low = ranks.lower === 0 ? -Infinity : known[ranks.lower - 1];
      high = ranks.upper > n ? Infinity : high_[ranks.upper - 1];
      route = `${EMPIRIC_ROUTE} binomial summation, ranks ${ranks.lower} and ${ranks.upper}`;
      break;
    }
    case "clopper_pearson":
    case "wilson": {
      let k = 0;
      for (const v of values) k += v;
      const b = result.method === "wilson"
        ? wilsonBySolving(k, n, opts.confidence)
        : clopperPearsonBySummation(k, n, opts.confidence);
      low = b.low;
      high = b.high;
      route = result.method === "wilson"
        ? `${EMPIRIC_ROUTE} score-equation bisection`
        : `${EMPIRIC_ROUTE} bisection on summed binomial tails`;
      break;
    }
    case "t": {
      const xs = values.slice();
      const mean = jStat.mean(xs);
      const half = -jStat.studentt.inv((1 - opts.confidence) / 2, n - 1) * jStat.stdev(xs, true) /
        Math.sqrt(n);
      low = mean - half;
      high = mean + half;
      route =
        `${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version} mean, stdev, studentt.inv`;
      break;
    }
    case "bounded": {
      const [a, b] = result.range!;
      const r = boundedMeanByIntegral(values, a, b, opts.confidence);
      low = r.low;
      high = r.high;
      route = `${EMPIRIC_ROUTE} integral of the shifted empirical CDF`;
      break;
    }
    case "bootstrap_percentile":
    case "bootstrap_bca": {
      const r = referenceBootstrap(values, result.method, result.estimate, opts);
      low = r.low;
      high = r.high;
      route =
        `pure-rand uniformInt resamples with ${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version} mean and quantiles${
          result.method === "bootstrap_percentile" ? ", expanded shares from its t and normal" : ""
        }`;
      break;
    }
    default:
      return undefined;
  }
  const { tol, what } = BOUND_TOLERANCE[result.method];
  let scale = 1;
  if (result.method === "bounded") scale = result.range![1] - result.range![0];
  else if (result.method !== "clopper_pearson" && result.method !== "wilson") {
    scale = Math.max(Math.abs(result.low), Math.abs(result.high), Number.MIN_VALUE);
    if (!Number.isFinite(scale)) scale = 1;
  }
  const close = (x: number, y: number) =>
    x === y || (Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= tol * scale);
  const agrees = close(low, result.low) && close(high, result.high);
  return {
    agrees,
    low,
    high,
    text: `bounds: ${route} = [${fmtBound(low)}, ${fmtBound(high)}]; ${
      agrees
        ? `agree ${what}`
        : `DISAGREE with [${fmtBound(result.low)}, ${fmtBound(result.high)}] beyond ${
          what.replace(/^(exactly|within) /, "")
        }`
    }`,
  };
}

const EMPIRIC_ROUTE = "empiric";

/**
 * The expanded percentile interval's tail share Φ(−√(n/(n − 1))·t(1 − α, n − 1)) by a second
 * route: jStat's t quantile and normal CDF (src/stats/expanded_percentile.ts is the first).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jStatExpandedTailShare } from "./cross_check.ts";
 * import { expandedTailShare } from "./expanded_percentile.ts";
 * const a = jStatExpandedTailShare(0.025, 100), b = expandedTailShare(0.025, 100);
 * assert.ok(Math.abs(a - b) < 1e-6 * b);
 * ```
 */
export function jStatExpandedTailShare(alpha: number, n: number): number {
  return jStat.normal.cdf(-Math.sqrt(n / (n - 1)) * jStat.studentt.inv(1 - alpha, n - 1), 0, 1);
}

/** A plain bootstrap: every resample materialised, jStat mean, type-7 quantiles of the sorted means. */
function referenceBootstrap(
  values: readonly number[],
  method: "bootstrap_percentile" | "bootstrap_bca",
  estimate: number,
  opts: IntervalOptions,
): { low: number; high: number } {
  const n = values.length;
  const rng = mersenne(opts.seed);
  const means = new Array<number>(opts.resamples);
  const sample = new Array<number>(n);
  for (let b = 0; b < opts.resamples; b++) {
    for (let i = 0; i < n; i++) sample[i] = values[uniformInt(rng, 0, n - 1)];
    means[b] = jStat.mean(sample);
  }
  means.sort((a, b) => a - b);
  const alpha = 1 - opts.confidence;
  let levels = [alpha / 2, 1 - alpha / 2];
  if (method === "bootstrap_percentile") {
    const share = jStatExpandedTailShare(alpha / 2, n);
    levels = [share, 1 - share];
  }
  if (method === "bootstrap_bca") {
    let below = 0, ties = 0;
    for (const m of means) {
      if (m < estimate) below++;
      else if (m === estimate) ties++;
    }
    const b = means.length;
    const share = Math.min(Math.max((below + ties / 2) / b, 0.5 / b), 1 - 0.5 / b);
    const z0 = normalQuantile(share);
    const total = values.reduce((x, y) => x + y, 0);
    const loo = values.map((v) => (total - v) / (n - 1));
    const looMean = jStat.mean(loo);
    let s2 = 0, s3 = 0;
    for (const t of loo) {
      const d = looMean - t;
      s2 += d * d;
      s3 += d * d * d;
    }
    const a = s2 === 0 ? 0 : s3 / (6 * s2 ** 1.5);
    const z = -normalQuantile(alpha / 2);
    const adj = (zz: number) => {
      const w = z0 + zz;
      const den = 1 - a * w;
      return den > 0 ? normalCdf(z0 + w / den) : w > 0 ? 1 : 0;
    };
    levels = [adj(-z), adj(z)];
  }
  const [lowQ, highQ] = jStat.quantiles(means, levels, 1, 1);
  return { low: lowQ, high: highQ };
}
