/**
 * `estimateInterval`: a statistic's estimate and its interval by the chosen method, with
 * everything a proof record needs to reproduce it (method, confidence, resamples, seed, library).
 *
 * Methods: `bootstrap_percentile` and `bootstrap_bca` (any statistic; see `bootstrap.ts` and
 * `bca.ts`), `wilson` (proportion only), `t` (mean only), `none` (low = high = estimate).
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { bcaInterval } from "./bca.ts";
import { bootstrapDistribution, percentileInterval } from "./bootstrap.ts";
import { jackknifeAcceleration } from "./jackknife.ts";
import { STATS_LIBRARY } from "./library.ts";
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

/**
 * Estimate a statistic and its interval. Throws `UsageError` for invalid arguments and for
 * method/statistic pairs that make no sense (`wilson` needs a proportion, `t` a mean).
 * `opts.resamples` and `opts.seed` are validated and recorded for the bootstrap methods only.
 *
 * @example
 * ```ts
 * import { estimateInterval } from "./interval.ts";
 * const xs = Array.from({ length: 50 }, (_, i) => (i * 37) % 50);
 * const r = estimateInterval(xs, { kind: "median" }, "bootstrap_percentile", {
 *   confidence: 0.95,
 *   resamples: 1000,
 *   seed: 1,
 * });
 * console.assert(r.low <= r.estimate && r.estimate <= r.high && r.statistic_name === "median");
 * console.assert(r.seed === 1 && r.resamples === 1000 && r.library === "simple-statistics");
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
  if (method === "wilson" && s.kind !== "proportion") {
    throw new UsageError(`the wilson interval is for a proportion, not ${statisticName(s)}`);
  }
  if (method === "t" && s.kind !== "mean") {
    throw new UsageError(`the t interval is for a mean, not ${statisticName(s)}`);
  }
  const bootstrap = method === "bootstrap_percentile" || method === "bootstrap_bca";
  if (bootstrap) {
    requireResamples(opts.resamples);
    requireSeed(opts.seed);
    if (opts.onProgress !== undefined && typeof opts.onProgress !== "function") {
      throw new UsageError("onProgress must be a function");
    }
  }

  const estimate = computeStatistic(values, s);
  let bounds: Bounds;
  switch (method) {
    case "none":
      bounds = { low: estimate, high: estimate };
      break;
    case "wilson": {
      let successes = 0;
      for (const v of values) successes += v;
      bounds = wilsonInterval(successes, values.length, opts.confidence);
      break;
    }
    case "t":
      bounds = tInterval(values, opts.confidence);
      break;
    case "bootstrap_percentile":
    case "bootstrap_bca": {
      const dist = bootstrapDistribution(values, s, opts.resamples, opts.seed, opts.onProgress);
      bounds = method === "bootstrap_percentile"
        ? percentileInterval(dist, opts.confidence)
        : bcaInterval(dist, estimate, jackknifeAcceleration(values, s), opts.confidence);
      break;
    }
  }
  return {
    estimate,
    low: bounds.low,
    high: bounds.high,
    n: values.length,
    method,
    confidence: opts.confidence,
    ...(bootstrap ? { resamples: opts.resamples, seed: opts.seed } : {}),
    library: STATS_LIBRARY.name,
    library_version: STATS_LIBRARY.version,
    statistic_name: statisticName(s),
  };
}
