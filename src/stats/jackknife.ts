/**
 * Jackknife (leave-one-out) values of a statistic and the BCa acceleration derived from them,
 * in O(n) after one sort.
 *
 * For the mean, θ₍ᵢ₎ = (S − xᵢ)/(n − 1), and θ₍.₎ − θ₍ᵢ₎ = (xᵢ − x̄)/(n − 1), so the
 * acceleration is computed from the deviations xᵢ − x̄ directly. For a quantile, removing the element at sorted
 * position j leaves n − 1 sorted values whose k-th order statistic is y[k] for k < j and y[k + 1]
 * otherwise, so each leave-one-out quantile needs two array reads.
 *
 * @module
 */
import * as ss from "simple-statistics";
import { UsageError } from "../errors/errors.ts";
import { sortWithRanks, type7Position, type7Value } from "./quantile.ts";
import type { Statistic } from "./types.ts";
import { requireBinary, requireFiniteValues, requireStatistic } from "./validate.ts";

/**
 * Leave-one-out statistics: entry i is the statistic of the values without values[i]
 * (needs at least 2 values).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jackknifeValues } from "./jackknife.ts";
 * const loo = jackknifeValues([1, 2, 3, 10], { kind: "median" });
 * assert.equal(loo.join(), "3,3,2,2");
 * ```
 */
export function jackknifeValues(values: readonly number[], s: Statistic): Float64Array {
  requireStatistic(s);
  requireFiniteValues(values);
  if (values.length < 2) throw new UsageError("the jackknife needs at least 2 values");
  if (s.kind === "proportion") requireBinary(values);
  const n = values.length;
  const out = new Float64Array(n);
  if (s.kind === "mean" || s.kind === "proportion") {
    const total = ss.sum(values);
    for (let i = 0; i < n; i++) out[i] = (total - values[i]) / (n - 1);
    return out;
  }
  const p = s.kind === "median" ? 0.5 : s.p;
  const { sorted, rank } = sortWithRanks(values);
  const pos = type7Position(n - 1, p);
  const at = (j: number, k: number) => (k < j ? sorted[k] : sorted[k + 1]);
  for (let i = 0; i < n; i++) {
    const j = rank[i];
    out[i] = type7Value(pos, at(j, pos.lower), pos.exact ? 0 : at(j, pos.upper));
  }
  return out;
}

/**
 * Efron's jackknife acceleration a = Σd³ / (6·(Σd²)^(3/2)) with d = θ₍.₎ − θ₍ᵢ₎; 0 when there
 * are fewer than 2 values or the leave-one-out values are all equal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jackknifeAcceleration } from "./jackknife.ts";
 * assert.equal(jackknifeAcceleration([1, 2, 3, 4], { kind: "mean" }), 0);
 * assert.ok(jackknifeAcceleration([1, 1, 1, 9], { kind: "mean" }) > 0);
 * ```
 */
export function jackknifeAcceleration(values: readonly number[], s: Statistic): number {
  requireStatistic(s);
  requireFiniteValues(values);
  if (values.length < 2) return 0;
  if (s.kind === "mean" || s.kind === "proportion") {
    if (s.kind === "proportion") requireBinary(values);
    // θ₍.₎ − θ₍ᵢ₎ = (xᵢ − x̄)/(n − 1); the common factor cancels in the ratio.
    return accelerationFromDeviations(values, ss.mean(values));
  }
  const loo = jackknifeValues(values, s);
  return accelerationFromDeviations(loo, ss.mean(loo as unknown as readonly number[]), -1);
}

/** a from d = sign·(xᵢ − centre). */
function accelerationFromDeviations(
  xs: ArrayLike<number>,
  centre: number,
  sign = 1,
): number {
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < xs.length; i++) {
    const d = sign * (xs[i] - centre);
    const d2 = d * d;
    s2 += d2;
    s3 += d2 * d;
  }
  if (s2 === 0) return 0;
  const a = s3 / (6 * Math.pow(s2, 1.5));
  return Number.isFinite(a) ? a : 0;
}
