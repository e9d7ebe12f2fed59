/**
 * Student t interval for a mean: x̄ ± t_{1−α/2, n−1} · s/√n.
 *
 * The t quantile is stdlib-js's (`@stdlib/stats-base-dists-t-quantile`, accurate to a few units in
 * the last place; jStat's `studentt.inv`, off by up to 4e-8, is the cross-check's independent
 * route). The interval's level rests on approximate normality of the mean: `estimateInterval`
 * refuses it for skewed (|g₁| > 1), binary or constant data.
 *
 * @module
 */
import * as ss from "simple-statistics";
import { UsageError } from "../errors/errors.ts";
import { studentTQuantile } from "./distributions.ts";
import { requireFiniteValues } from "./validate.ts";
import { requireOpenUnit } from "./validate.ts";

export { studentTQuantile };

/**
 * Student t interval for the mean of at least 2 values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tInterval } from "./t_interval.ts";
 * // Student's sleep data, paired differences (R: t.test(extra ~ group, paired = TRUE)).
 * const d = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4];
 * const { estimate, low, high } = tInterval(d, 0.95);
 * assert.ok(Math.abs(estimate - 1.58) < 1e-12);
 * assert.equal(low.toFixed(6), "0.700114");
 * assert.equal(high.toFixed(6), "2.459886");
 * ```
 */
export function tInterval(
  values: readonly number[],
  confidence: number,
): { estimate: number; low: number; high: number } {
  requireFiniteValues(values);
  requireOpenUnit(confidence, "confidence");
  const n = values.length;
  if (n < 2) throw new UsageError("the t interval needs at least 2 values");
  const estimate = ss.mean(values);
  const sd = ss.sampleStandardDeviation(values);
  // t_{1−α/2} as −t_{α/2}: α/2 is exact, 1 − α/2 may round to 1.
  const half = sd === 0 ? 0 : -studentTQuantile((1 - confidence) / 2, n - 1) * sd / Math.sqrt(n);
  return { estimate, low: estimate - half, high: estimate + half };
}
