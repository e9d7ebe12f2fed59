/**
 * `estimateInterval`: a statistic's estimate and its interval by the chosen method, with
 * everything a proof record needs to reproduce it (method, confidence, resamples, seed, ranks,
 * libraries), or the reason the method cannot give an interval that holds its level on these data.
 *
 * | statistic          | methods (default first)                                              |
 * | ------------------ | -------------------------------------------------------------------- |
 * | proportion         | `clopper_pearson`, `wilson`, `none`                                  |
 * | quantile, median   | `order_statistic`, `none`                                            |
 * | mean               | `t`, `bounded` (needs a range), `bootstrap_percentile`, `bootstrap_bca`, `none` |
 *
 * Refused (the result carries `refused` and the trivial interval, and no bootstrap is run):
 * bootstrap intervals for proportions, quantiles and medians (they cannot hold their level there:
 * docs/statistics.md has the calibration table), and for means of binary or constant data, of
 * fewer than 100 values, or of skewed data (|g₁| > 1); the t interval for binary, constant or
 * skewed data; the bounded-mean interval for values outside the pre-registered range.
 *
 * Unbounded sides are ±Infinity here; the record writes them as ±1.7976931348623157e308.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { bcaInterval } from "./bca.ts";
import { bootstrapDistribution, sortedQuantile } from "./bootstrap.ts";
import { boundedMeanInterval } from "./bounded_mean.ts";
import { clopperPearsonInterval } from "./clopper_pearson.ts";
import { jackknifeAcceleration } from "./jackknife.ts";
import { expandedTailShare } from "./expanded_percentile.ts";
import { DISTRIBUTION_LIBRARY, type LibraryInfo, STATS_LIBRARY } from "./library.ts";
import { isBinary, isConstant, sampleSkewness } from "./moments.ts";
import { orderStatisticInterval } from "./order_statistic.ts";
import { computeStatistic, statisticName } from "./statistic.ts";
import { tInterval } from "./t_interval.ts";
import type {
  Bounds,
  IntervalMethod,
  IntervalOptions,
  IntervalResult,
  Statistic,
} from "./types.ts";
import {
  requireFiniteValues,
  requireMethod,
  requireOpenUnit,
  requireResamples,
  requireSeed,
  requireStatistic,
} from "./validate.ts";
import { wilsonInterval } from "./wilson.ts";

/** empiric itself, named where its own code computes an interval. */
export const EMPIRIC_LIBRARY: LibraryInfo = Object.freeze({
  name: "empiric",
  version: EMPIRIC_VERSION,
});

/** Skewness beyond which the t and bootstrap intervals for a mean are refused. */
export const MAX_ABS_SKEWNESS = 1;

/** Fewest values a bootstrap interval for a mean is computed from. */
export const MIN_BOOTSTRAP_N = 100;

/** The methods each statistic accepts, default first. */
export const METHODS_FOR: Readonly<Record<Statistic["kind"], readonly IntervalMethod[]>> = {
  proportion: ["clopper_pearson", "wilson", "bootstrap_percentile", "bootstrap_bca", "none"],
  quantile: ["order_statistic", "bootstrap_percentile", "bootstrap_bca", "none"],
  median: ["order_statistic", "bootstrap_percentile", "bootstrap_bca", "none"],
  mean: ["t", "bounded", "bootstrap_percentile", "bootstrap_bca", "none"],
};

/**
 * Why `method` can never hold its level for statistic `s` (refused whatever the data), or
 * undefined.
 *
 * @example
 * ```ts
 * import { structuralRefusal } from "./interval.ts";
 * import assert from "node:assert/strict";
 * assert.match(structuralRefusal({ kind: "quantile", p: 0.99 }, "bootstrap_percentile")!, /order_statistic/);
 * assert.equal(structuralRefusal({ kind: "mean" }, "t"), undefined);
 * ```
 */
export function structuralRefusal(s: Statistic, method: IntervalMethod): string | undefined {
  const bootstrap = method === "bootstrap_percentile" || method === "bootstrap_bca";
  if (!bootstrap) return undefined;
  if (s.kind === "proportion") {
    return "a bootstrap interval is refused for a proportion (binary data: it gives [1, 1] for 30 of 30); use clopper_pearson or wilson";
  }
  if (s.kind === "quantile" || s.kind === "median") {
    return `a bootstrap interval does not hold its level for a ${
      s.kind === "median" ? "median" : "quantile"
    } (its bounds cannot pass the sample extremes); use order_statistic`;
  }
  return undefined;
}

function trivialBounds(s: Statistic): Bounds {
  return s.kind === "proportion" ? { low: 0, high: 1 } : { low: -Infinity, high: Infinity };
}

/**
 * Estimate a statistic and its interval. Throws `UsageError` for invalid arguments and for
 * method/statistic pairs that make no sense (`wilson` needs a proportion, `t` a mean); returns a
 * result with `refused` when the method cannot hold its level on these data.
 *
 * @example
 * ```ts
 * import { estimateInterval } from "./interval.ts";
 * import assert from "node:assert/strict";
 * const xs = Array.from({ length: 100 }, (_, i) => i + 1);
 * const r = estimateInterval(xs, { kind: "median" }, "order_statistic", {
 *   confidence: 0.95,
 *   resamples: 2000,
 *   seed: 1,
 * });
 * assert.deepEqual([r.estimate, r.low, r.high, r.library], [50.5, 40, 61, "empiric"]);
 * const p = estimateInterval(Array(30).fill(1), { kind: "proportion" }, "bootstrap_percentile", {
 *   confidence: 0.95,
 *   resamples: 2000,
 *   seed: 1,
 * });
 * assert.ok(p.refused !== undefined && p.low === 0 && p.high === 1);
 * ```
 */
export function estimateInterval(
  values: readonly number[],
  s: Statistic,
  method: IntervalMethod,
  opts: IntervalOptions,
): IntervalResult {
  requireStatistic(s);
  requireMethod(method);
  requireFiniteValues(values);
  if (typeof opts !== "object" || opts === null) {
    throw new UsageError("interval options must be an object");
  }
  requireOpenUnit(opts.confidence, "confidence");
  if (!METHODS_FOR[s.kind].includes(method)) {
    const what = method === "wilson" || method === "clopper_pearson"
      ? "a proportion"
      : method === "order_statistic"
      ? "a quantile or median"
      : "a mean";
    throw new UsageError(`the ${method} interval is for ${what}, not ${statisticName(s)}`);
  }
  if (opts.censored !== undefined && opts.censored.length !== values.length) {
    throw new UsageError("censored must have one flag per value");
  }
  const bootstrap = method === "bootstrap_percentile" || method === "bootstrap_bca";
  if (bootstrap) {
    requireResamples(opts.resamples);
    requireSeed(opts.seed);
    if (opts.onProgress !== undefined && typeof opts.onProgress !== "function") {
      throw new UsageError("onProgress must be a function");
    }
  }
  const n = values.length;
  const estimate = computeStatistic(values, s);
  const base = {
    estimate,
    n,
    method,
    confidence: opts.confidence,
    statistic_name: statisticName(s),
    estimate_library: STATS_LIBRARY,
  };
  const interval = method === "none" ? STATS_LIBRARY : EMPIRIC_LIBRARY;
  const refuse = (reason: string, extra: Partial<IntervalResult> = {}): IntervalResult => ({
    ...base,
    ...trivialBounds(s),
    library: interval.name,
    library_version: interval.version,
    refused: reason,
    ...extra,
  });
  const censoredCount = opts.censored?.filter(Boolean).length ?? 0;
  if (censoredCount > 0 && method !== "order_statistic" && method !== "none") {
    return refuse(`${censoredCount} censored values: only order_statistic bounds handle them`);
  }
  const structural = structuralRefusal(s, method);
  if (structural) return refuse(structural);

  let bounds: Bounds;
  const extra: Partial<IntervalResult> = {};
  switch (method) {
    case "none":
      bounds = { low: estimate, high: estimate };
      break;
    case "wilson":
    case "clopper_pearson": {
      let successes = 0;
      for (const v of values) successes += v;
      bounds = method === "wilson"
        ? wilsonInterval(successes, n, opts.confidence)
        : clopperPearsonInterval(successes, n, opts.confidence);
      if (method === "clopper_pearson") extra.distribution_library = DISTRIBUTION_LIBRARY;
      break;
    }
    case "order_statistic": {
      const p = s.kind === "median" ? 0.5 : (s as { p: number }).p;
      const r = orderStatisticInterval(values, p, opts.confidence, opts.censored);
      bounds = r;
      extra.ranks = r.ranks;
      extra.distribution_library = DISTRIBUTION_LIBRARY;
      break;
    }
    case "t": {
      const why = meanShapeRefusal(values, "t");
      if (why) return refuse(why, { skewness: sampleSkewness(values) });
      bounds = tInterval(values, opts.confidence);
      extra.skewness = sampleSkewness(values);
      extra.distribution_library = DISTRIBUTION_LIBRARY;
      break;
    }
    case "bounded": {
      const range = opts.range;
      if (!range) {
        return refuse("the bounded interval needs the metric's pre-registered range");
      }
      const outside = values.findIndex((v) => v < range[0] || v > range[1]);
      if (outside >= 0) {
        return refuse(
          `value ${values[outside]} lies outside the pre-registered range [${range[0]}, ${
            range[1]
          }]`,
        );
      }
      bounds = boundedMeanInterval(values, range[0], range[1], opts.confidence);
      extra.range = [range[0], range[1]];
      break;
    }
    case "bootstrap_percentile":
    case "bootstrap_bca": {
      const why = meanShapeRefusal(values, "bootstrap");
      if (why) {
        return refuse(why, { resamples: opts.resamples, seed: opts.seed });
      }
      const dist = bootstrapDistribution(values, s, opts.resamples, opts.seed, opts.onProgress);
      const sorted = dist.slice().sort();
      let levels: [number, number];
      if (method === "bootstrap_percentile") {
        // Means only (structuralRefusal): the expanded percentile interval
        // (src/stats/expanded_percentile.ts); the plain one erred 2.6-2.9% a side at n = 100.
        const share = expandedTailShare((1 - opts.confidence) / 2, values.length);
        levels = [share, 1 - share];
        bounds = { low: sortedQuantile(sorted, share), high: sortedQuantile(sorted, 1 - share) };
        extra.percentile_levels = { low: share, high: 1 - share };
      } else {
        const r = bcaInterval(dist, estimate, jackknifeAcceleration(values, s), opts.confidence);
        bounds = r;
        levels = r.levels ?? [0.5, 0.5];
      }
      extra.resamples = opts.resamples;
      extra.seed = opts.seed;
      extra.skewness = sampleSkewness(values);
      extra.mc_se = {
        low: bootstrapMonteCarloSe(sorted, levels[0]),
        high: bootstrapMonteCarloSe(sorted, levels[1]),
      };
      break;
    }
  }
  return {
    ...base,
    low: bounds.low,
    high: bounds.high,
    library: interval.name,
    library_version: interval.version,
    ...extra,
  };
}

/**
 * Why a t or bootstrap interval for a mean cannot hold its level on these values, or undefined.
 *
 * @example
 * ```ts
 * import { meanShapeRefusal } from "./interval.ts";
 * import assert from "node:assert/strict";
 * assert.match(meanShapeRefusal([0, 1, 1, 0], "t")!, /binary/);
 * assert.match(meanShapeRefusal([5, 5, 5], "t")!, /constant/);
 * assert.equal(meanShapeRefusal([1, 2, 3, 4], "t"), undefined);
 * ```
 */
export function meanShapeRefusal(
  values: readonly number[],
  method: "t" | "bootstrap",
): string | undefined {
  const what = method === "t" ? "the t interval" : "a bootstrap interval";
  if (values.length < 3) return `${what} needs at least 3 values, got ${values.length}`;
  if (isConstant(values)) {
    return `${what} is refused for constant data (it would have zero width)`;
  }
  if (isBinary(values)) {
    return `${what} is refused for binary data; use statistic proportion`;
  }
  if (method === "bootstrap" && values.length < MIN_BOOTSTRAP_N) {
    return `a bootstrap interval for a mean needs at least ${MIN_BOOTSTRAP_N} values (below that it does not hold its level), got ${values.length}`;
  }
  const g1 = sampleSkewness(values);
  if (Math.abs(g1) > MAX_ABS_SKEWNESS) {
    return `${what} is refused for skewed data (sample skewness ${
      g1.toPrecision(3)
    }, beyond ±${MAX_ABS_SKEWNESS}): it does not hold its level on heavy tails; use bounded with a pre-registered range`;
  }
  return undefined;
}

/**
 * Monte Carlo standard error of a bootstrap quantile at `level` of a sorted bootstrap
 * distribution of B values: half the distance between the type-7 quantiles at
 * level ± √(level(1 − level)/B), the levels one binomial standard error away.
 *
 * @example
 * ```ts
 * import { bootstrapMonteCarloSe } from "./interval.ts";
 * import assert from "node:assert/strict";
 * const sorted = Float64Array.from({ length: 10001 }, (_, i) => i / 10000); // uniform
 * assert.ok(Math.abs(bootstrapMonteCarloSe(sorted, 0.5) - 0.005) < 1e-4);
 * ```
 */
export function bootstrapMonteCarloSe(sorted: Float64Array, level: number): number {
  const b = sorted.length;
  const step = Math.sqrt((level * (1 - level)) / b);
  const at = (q: number) => sortedQuantile(sorted, Math.min(1, Math.max(0, q)));
  return (at(level + step) - at(level - step)) / 2;
}
