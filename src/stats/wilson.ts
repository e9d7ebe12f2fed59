/**
 * Wilson score interval for a binomial proportion.
 *
 * With p̂ = k/n and z = Φ⁻¹(1 − (1 − c)/2), the interval is
 * (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n), clipped to [0, 1] against rounding.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { normalQuantile } from "./normal.ts";
import type { Bounds } from "./types.ts";
import { requireOpenUnit } from "./validate.ts";

/**
 * Wilson score interval for `successes` out of `trials` at the given confidence.
 *
 * @example
 * ```ts
 * import { wilsonInterval } from "./wilson.ts";
 * // Newcombe (1998): 81 of 263 gives 0.2553 to 0.3662 at 95%.
 * const { low, high } = wilsonInterval(81, 263, 0.95);
 * console.assert(low.toFixed(4) === "0.2553" && high.toFixed(4) === "0.3662");
 * ```
 */
export function wilsonInterval(successes: number, trials: number, confidence: number): Bounds {
  requireOpenUnit(confidence, "confidence");
  if (!Number.isSafeInteger(trials) || trials < 1) {
    throw new UsageError(`trials must be a positive integer, got ${String(trials)}`);
  }
  if (!Number.isSafeInteger(successes) || successes < 0 || successes > trials) {
    throw new UsageError(
      `successes must be an integer from 0 to ${trials}, got ${String(successes)}`,
    );
  }
  // Φ⁻¹(1 − α/2) as −Φ⁻¹(α/2): α/2 is exact, 1 − α/2 may round to 1.
  const z = -normalQuantile((1 - confidence) / 2);
  const n = trials;
  const phat = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (phat + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((phat * (1 - phat)) / n + z2 / (4 * n * n));
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}
