/**
 * Bootstrap distributions of a statistic on two samples at once: a candidate's and a baseline's.
 *
 * - **Paired** (both sides measured the same items, in the same order, so `candidate[i]` and
 *   `baseline[i]` belong to item i): resample b draws n item indices, and both sides take the
 *   values of those items. Machine drift and item difficulty, which move both sides of an item
 *   together, cancel in the ratio or difference.
 * - **Unpaired**: resample b draws n_c indices into the candidate's values, then n_b indices into
 *   the baseline's, one after the other from the same generator.
 *
 * Indices come from one MT19937 generator (pure-rand) seeded with `seed`, drawn exactly as the
 * one-sample bootstrap draws them (`drawIndex`: pure-rand `uniformInt`'s results; docs/statistics.md
 * "The resampling stream"), so a seed reproduces the same numbers on every machine and in every
 * port. Means are summed with the same compensated summation as the one-sample bootstrap (equal
 * to simple-statistics' `mean` of the resample); quantiles are read off counts per rank, equal to
 * sorting the resample and applying type-7 `quantileSorted`. `compare_reference.ts` materialises
 * every resample instead and is tested equal, value for value.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { drawIndex, indexLimit, mersenneTwister } from "./random.ts";
import { quantileFromCounts, sortWithRanks, type7Position } from "./quantile.ts";
import type { Statistic } from "./types.ts";
import { requireFiniteValues, requireResamples, requireStatistic } from "./validate.ts";
import type { ProgressFn } from "./bootstrap.ts";

/** The statistic of each side in every resample, in resample order. */
export interface TwoSampleDistribution {
  candidate: Float64Array;
  baseline: Float64Array;
}

/** How one side's statistic is accumulated from the values its resample draws. */
interface SideAccumulator {
  reset(): void;
  add(index: number): void;
  value(): number;
}

function meanAccumulator(values: readonly number[]): SideAccumulator {
  const xs = Float64Array.from(values);
  const n = xs.length;
  let sum = 0;
  let correction = 0;
  return {
    reset() {
      sum = 0;
      correction = 0;
    },
    add(j) {
      const x = xs[j];
      const t = sum + x;
      const virtual = t - sum;
      correction += (sum - (t - virtual)) + (x - virtual);
      sum = t;
    },
    value: () => (sum + correction) / n,
  };
}

function quantileAccumulator(values: readonly number[], p: number): SideAccumulator {
  const n = values.length;
  const { sorted, rank } = sortWithRanks(values);
  const pos = type7Position(n, p);
  const counts = new Uint32Array(n);
  const fromTop = pos.upper >= n / 2;
  return {
    reset: () => counts.fill(0),
    add: (j) => counts[rank[j]]++,
    value: () => quantileFromCounts(sorted, counts, pos, fromTop),
  };
}

function accumulator(values: readonly number[], s: Statistic): SideAccumulator {
  switch (s.kind) {
    case "mean":
    case "proportion":
      return meanAccumulator(values);
    case "median":
      return quantileAccumulator(values, 0.5);
    case "quantile":
      return quantileAccumulator(values, s.p);
  }
}

/**
 * The bootstrap distribution of the statistic on each side: paired (joint item indices; the
 * sides must have the same length) or unpaired (independent indices per side, candidate first).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { twoSampleBootstrap } from "./compare_bootstrap.ts";
 * const c = [2, 4, 6, 8, 10], b = [1, 2, 3, 4, 5];
 * const d = twoSampleBootstrap(c, b, { kind: "mean" }, true, 200, 7);
 * // Paired: the candidate is exactly twice the baseline item by item, so in every resample.
 * assert.ok(d.candidate.every((x, i) => Math.abs(x - 2 * d.baseline[i]) < 1e-12));
 * ```
 */
export function twoSampleBootstrap(
  candidate: readonly number[],
  baseline: readonly number[],
  s: Statistic,
  paired: boolean,
  resamples: number,
  seed: number,
  onProgress?: ProgressFn,
): TwoSampleDistribution {
  requireStatistic(s);
  requireFiniteValues(candidate, "candidate");
  requireFiniteValues(baseline, "baseline");
  requireResamples(resamples);
  if (candidate.length === 0 || baseline.length === 0) {
    throw new UsageError("each side needs at least one value");
  }
  if (paired && candidate.length !== baseline.length) {
    throw new UsageError(
      `paired samples must have the same length, got ${candidate.length} and ${baseline.length}`,
    );
  }
  const rng = mersenneTwister(seed);
  const c = accumulator(candidate, s);
  const b = accumulator(baseline, s);
  const nc = candidate.length, nb = baseline.length;
  const limitC = indexLimit(nc), limitB = indexLimit(nb);
  const out = { candidate: new Float64Array(resamples), baseline: new Float64Array(resamples) };
  const every = Math.max(1, Math.floor(resamples / 100));
  for (let r = 0; r < resamples; r++) {
    c.reset();
    b.reset();
    if (paired) {
      for (let i = 0; i < nc; i++) {
        const j = drawIndex(rng, nc, limitC);
        c.add(j);
        b.add(j);
      }
    } else {
      for (let i = 0; i < nc; i++) c.add(drawIndex(rng, nc, limitC));
      for (let i = 0; i < nb; i++) b.add(drawIndex(rng, nb, limitB));
    }
    out.candidate[r] = c.value();
    out.baseline[r] = b.value();
    if (onProgress && ((r + 1) % every === 0 || r + 1 === resamples)) {
      onProgress(r + 1, resamples);
    }
  }
  return out;
}
