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
import { binomialCdfTable } from "./binomial_exact.ts";

/**
 * Wilson score interval for `successes` out of `trials` at the given confidence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wilsonInterval } from "./wilson.ts";
 * // Newcombe (1998): 81 of 263 gives 0.2553 to 0.3662 at 95%.
 * const { low, high } = wilsonInterval(81, 263, 0.95);
 * assert.equal(low.toFixed(4), "0.2553");
 * assert.equal(high.toFixed(4), "0.3662");
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

/**
 * Wilson bounds by the independent route: bisection for the proportions p at which the score
 * statistic |k/n − p| / √(p(1 − p)/n) equals z (to 1e-13). Used by `cross_check`.
 *
 * @example
 * ```ts
 * import { wilsonBySolving, wilsonInterval } from "./wilson.ts";
 * import assert from "node:assert/strict";
 * const a = wilsonInterval(81, 263, 0.95), b = wilsonBySolving(81, 263, 0.95);
 * assert.ok(Math.abs(a.low - b.low) < 1e-11 && Math.abs(a.high - b.high) < 1e-11);
 * ```
 */
export function wilsonBySolving(successes: number, trials: number, confidence: number): Bounds {
  wilsonInterval(successes, trials, confidence); // argument checks
  const z = -normalQuantile((1 - confidence) / 2);
  const n = trials, phat = successes / n;
  const score = (p: number) => (phat - p) / Math.sqrt((p * (1 - p)) / n);
  // score decreases in p on (0, 1): find score = +z (low) and score = −z (high).
  const solve = (target: number) => {
    let lo = 0, hi = 1;
    for (let i = 0; i < 200 && hi - lo > 1e-14; i++) {
      const mid = (lo + hi) / 2;
      if (score(mid) > target) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  return {
    low: successes === 0 ? 0 : solve(z),
    high: successes === n ? 1 : solve(-z),
  };
}

/**
 * The exact one-sided error of deciding a proportion claim with the Wilson interval at n trials:
 * the probability, when the true proportion equals the threshold, that the interval lies wholly on
 * the claim's side (`>=`/`>`: the lower bound satisfies it; `<=`/`<`: the upper bound does). The
 * score interval is approximate, so this can exceed (1 − confidence)/2, for example for `>= 0.05`
 * at n = 30 (0.061).
 *
 * @example
 * ```ts
 * import { wilsonExactError } from "./wilson.ts";
 * import assert from "node:assert/strict";
 * assert.ok(wilsonExactError(30, 0.05, ">=", 0.95) > 0.06);
 * assert.ok(wilsonExactError(120, 0.95, ">=", 0.95) < 0.025);
 * ```
 */
export function wilsonExactError(
  trials: number,
  threshold: number,
  comparator: "<" | "<=" | ">" | ">=",
  confidence: number,
): number {
  const upper = comparator === "<" || comparator === "<=";
  const sat = (x: number) =>
    comparator === "<"
      ? x < threshold
      : comparator === "<="
      ? x <= threshold
      : comparator === ">"
      ? x > threshold
      : x >= threshold;
  if (!(threshold > 0 && threshold < 1)) return 0; // a claim at 0 or 1 has no interior null
  let size = 0;
  // Binomial probabilities at the threshold, by the stable summation table.
  const cdf = binomialCdfTable(trials, threshold);
  for (let k = 0; k <= trials; k++) {
    const b = wilsonInterval(k, trials, confidence);
    if (sat(upper ? b.high : b.low)) size += cdf[k] - (k === 0 ? 0 : cdf[k - 1]);
  }
  return Math.min(1, Math.max(0, size));
}
