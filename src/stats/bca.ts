/**
 * Efron's bias-corrected and accelerated (BCa) bootstrap interval.
 *
 * z₀ = Φ⁻¹(share of bootstrap values below the estimate, ties counting half). The share is kept
 * within [1/(2B), 1 − 1/(2B)] (half a resample from either end), so z₀ stays finite when the
 * estimate lies outside the bootstrap distribution. With a the jackknife acceleration and
 * z_α = Φ⁻¹(α), the interval ends are the bootstrap quantiles (type 7) at
 * α₁ = Φ(z₀ + (z₀ + z_{α/2}) / (1 − a(z₀ + z_{α/2}))) and α₂ likewise with z_{1−α/2}. Where
 * 1 − a(z₀ + z) ≤ 0 the adjusted level is taken at its limit, 0 or 1. If every bootstrap value is
 * the same, the interval is [estimate, estimate].
 *
 * @module
 */
import { normalCdf, normalQuantile } from "./normal.ts";
import { sortedQuantile } from "./bootstrap.ts";
import type { Bounds } from "./types.ts";
import { requireOpenUnit } from "./validate.ts";
import { UsageError } from "../errors/errors.ts";

/**
 * Bias correction z₀ from an ascending sorted bootstrap distribution and the estimate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { biasCorrection } from "./bca.ts";
 * const sorted = Float64Array.of(1, 2, 3, 4, 5);
 * assert.equal(biasCorrection(sorted, 3), 0); // 2 below, 1 tie: (2 + 0.5) / 5 = 0.5
 * assert.ok(biasCorrection(sorted, 9) > 0);
 * assert.ok(Number.isFinite(biasCorrection(sorted, 9)));
 * ```
 */
export function biasCorrection(sorted: Float64Array, estimate: number): number {
  const b = sorted.length;
  const below = lowerBound(sorted, estimate, false);
  const notAbove = lowerBound(sorted, estimate, true);
  const share = (below + 0.5 * (notAbove - below)) / b;
  const half = 0.5 / b;
  return normalQuantile(Math.min(Math.max(share, half), 1 - half));
}

/** Number of entries < x (or <= x when `orEqual`) in an ascending array. */
function lowerBound(sorted: Float64Array, x: number, orEqual: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x || (orEqual && sorted[mid] === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The BCa-adjusted quantile level for normal quantile z (z_{α/2} or z_{1−α/2}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bcaLevel } from "./bca.ts";
 * // No bias and no acceleration: the level is the plain percentile level.
 * assert.ok(Math.abs(bcaLevel(0, 0, -1.959963984540054) - 0.025) < 1e-15);
 * ```
 */
export function bcaLevel(z0: number, acceleration: number, z: number): number {
  const w = z0 + z;
  const denominator = 1 - acceleration * w;
  if (!(denominator > 0)) return w > 0 ? 1 : 0;
  return normalCdf(z0 + w / denominator);
}

/**
 * BCa interval from a bootstrap distribution (any order; not modified), the estimate, the
 * jackknife acceleration and the confidence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bcaInterval } from "./bca.ts";
 * const dist = Float64Array.from({ length: 1001 }, (_, i) => i / 10); // centred on 50
 * const { low, high } = bcaInterval(dist, 50, 0, 0.9);
 * assert.ok(Math.abs(low - 5) < 1e-9);
 * assert.ok(Math.abs(high - 95) < 1e-9);
 * ```
 */
export function bcaInterval(
  distribution: Float64Array,
  estimate: number,
  acceleration: number,
  confidence: number,
): Bounds & { levels?: [number, number] } {
  requireOpenUnit(confidence, "confidence");
  if (distribution.length === 0) throw new UsageError("bootstrap distribution is empty");
  if (!Number.isFinite(estimate) || !Number.isFinite(acceleration)) {
    throw new UsageError("estimate and acceleration must be finite numbers");
  }
  const sorted = distribution.slice().sort();
  if (sorted[0] === sorted[sorted.length - 1]) return { low: estimate, high: estimate };
  const z0 = biasCorrection(sorted, estimate);
  const zHigh = -normalQuantile((1 - confidence) / 2); // α/2 is exact; 1 − α/2 may round to 1
  const levelLow = bcaLevel(z0, acceleration, -zHigh);
  const levelHigh = bcaLevel(z0, acceleration, zHigh);
  return {
    low: sortedQuantile(sorted, levelLow),
    high: sortedQuantile(sorted, levelHigh),
    levels: [levelLow, levelHigh],
  };
}
