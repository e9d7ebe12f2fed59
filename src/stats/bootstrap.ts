/**
 * The nonparametric bootstrap distribution of a statistic, and its percentile interval.
 *
 * Resample b (b = 1..B) draws n indices `j = uniformInt(rng, 0, n - 1)` one after the other from a
 * single MT19937 generator seeded with `seed` (pure-rand), and takes `values[j]`; its statistic is
 * entry b - 1 of the distribution. (The draws are made by `drawIndex`, which gives exactly
 * pure-rand `uniformInt`'s results, faster.) Spelled out for other implementations: with u the
 * next unsigned 32-bit MT19937 output (reference initialisation `init_genrand(seed)`), take
 * v = u XOR 2^31 (pure-rand adds 2^31 to the signed output), draw again while
 * v ≥ ⌊2^32/n⌋·n (only when n > 2), and use index v mod n. Nothing depends on the machine, so a
 * seed reproduces the same numbers everywhere.
 *
 * No array is built per resample. For the mean (and proportion) the drawn values are summed with
 * compensated summation: the exact rounding error of each addition is accumulated (Knuth's
 * branch-free TwoSum, which yields the same error terms as the Neumaier summation of
 * simple-statistics' `sum`), so a resample that is a permutation of the data has exactly the
 * data's simple-statistics mean. For quantiles the data are sorted once; each draw increments a
 * count at the drawn value's rank, and the needed order statistics are read off the running total
 * of counts, walked from the nearer end. That gives exactly the values of sorting each resample
 * and applying type-7 `quantileSorted`, in O(n) per resample instead of O(n log n).
 *
 * @module
 */
import * as ss from "simple-statistics";
import { UsageError } from "../errors/errors.ts";
import { drawIndex, indexLimit, mersenneTwister, type RandomGenerator } from "./random.ts";
import { quantileFromCounts, sortWithRanks, type7Position } from "./quantile.ts";
import type { Bounds, Statistic } from "./types.ts";
import {
  requireBinary,
  requireFiniteValues,
  requireOpenUnit,
  requireResamples,
  requireStatistic,
} from "./validate.ts";

/** Progress callback: `done` of `total` resamples finished. */
export type ProgressFn = (done: number, total: number) => void;

/**
 * The bootstrap distribution (B values, in resample order) of the statistic of the values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bootstrapDistribution } from "./bootstrap.ts";
 * const a = bootstrapDistribution([1, 2, 3, 4, 5], { kind: "mean" }, 200, 7);
 * const b = bootstrapDistribution([1, 2, 3, 4, 5], { kind: "mean" }, 200, 7);
 * assert.equal(a.length, 200);
 * assert.ok(a.every((v, i) => v === b[i]));
 * ```
 */
export function bootstrapDistribution(
  values: readonly number[],
  s: Statistic,
  resamples: number,
  seed: number,
  onProgress?: ProgressFn,
): Float64Array {
  requireStatistic(s);
  requireFiniteValues(values);
  requireResamples(resamples);
  const rng = mersenneTwister(seed);
  const progress = progressReporter(resamples, onProgress);
  switch (s.kind) {
    case "proportion":
      requireBinary(values);
      return meanResamples(values, resamples, rng, progress);
    case "mean":
      return meanResamples(values, resamples, rng, progress);
    case "median":
      return quantileResamples(values, 0.5, resamples, rng, progress);
    case "quantile":
      return quantileResamples(values, s.p, resamples, rng, progress);
  }
}

function progressReporter(total: number, onProgress?: ProgressFn): (done: number) => void {
  if (!onProgress) return () => {};
  const every = Math.max(1, Math.floor(total / 100));
  return (done) => {
    if (done % every === 0 || done === total) onProgress(done, total);
  };
}

function meanResamples(
  values: readonly number[],
  resamples: number,
  rng: RandomGenerator,
  progress: (done: number) => void,
): Float64Array {
  const n = values.length;
  const xs = Float64Array.from(values);
  const out = new Float64Array(resamples);
  const limit = indexLimit(n);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    let correction = 0;
    for (let i = 0; i < n; i++) {
      const x = xs[drawIndex(rng, n, limit)];
      const t = sum + x;
      const virtual = t - sum;
      correction += (sum - (t - virtual)) + (x - virtual);
      sum = t;
    }
    out[b] = (sum + correction) / n;
    progress(b + 1);
  }
  return out;
}

function quantileResamples(
  values: readonly number[],
  p: number,
  resamples: number,
  rng: RandomGenerator,
  progress: (done: number) => void,
): Float64Array {
  const n = values.length;
  const { sorted, rank } = sortWithRanks(values);
  const pos = type7Position(n, p);
  const counts = new Uint32Array(n);
  const out = new Float64Array(resamples);
  const limit = indexLimit(n);
  const fromTop = pos.upper >= n / 2;
  for (let b = 0; b < resamples; b++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[rank[drawIndex(rng, n, limit)]]++;
    out[b] = quantileFromCounts(sorted, counts, pos, fromTop);
    progress(b + 1);
  }
  return out;
}

/**
 * Type-7 quantile (simple-statistics `quantileSorted`) of ascending sorted values at p in [0, 1].
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sortedQuantile } from "./bootstrap.ts";
 * assert.equal(sortedQuantile(Float64Array.of(1, 2, 3, 4), 0.5), 2.5);
 * ```
 */
export function sortedQuantile(sorted: Float64Array, p: number): number {
  return ss.quantileSorted(sorted as unknown as readonly number[], p);
}

/**
 * Percentile interval: the type-7 quantiles at (1 - c)/2 and 1 - (1 - c)/2 of a bootstrap
 * distribution (any order; it is not modified).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileInterval } from "./bootstrap.ts";
 * const dist = Float64Array.from({ length: 101 }, (_, i) => i);
 * const { low, high } = percentileInterval(dist, 0.9);
 * // (1 - 0.9) / 2 is 0.05 only up to rounding: the bounds are 5 and 95 within 1e-9.
 * assert.ok(Math.abs(low - 5) < 1e-9 && Math.abs(high - 95) < 1e-9);
 * ```
 */
export function percentileInterval(distribution: Float64Array, confidence: number): Bounds {
  requireOpenUnit(confidence, "confidence");
  if (distribution.length === 0) {
    throw new UsageError("bootstrap distribution is empty");
  }
  const sorted = distribution.slice().sort();
  const alpha = 1 - confidence;
  return {
    low: sortedQuantile(sorted, alpha / 2),
    high: sortedQuantile(sorted, 1 - alpha / 2),
  };
}
