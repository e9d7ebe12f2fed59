/**
 * A distribution-free confidence interval for the mean of values known to lie in a range [a, b]
 * (Anderson 1969): the one-sided Dvoretzky–Kiefer–Wolfowitz band with Massart's constant,
 * ε = √(ln(1/β) / 2n) with β = (1 − confidence)/2, bounds the true CDF F by F ≥ Fₙ − ε (and
 * F ≤ Fₙ + ε) with probability at least 1 − β each. The mean of a distribution on [a, b] is
 * b − ∫ₐᵇ F(x) dx, so
 *
 * - upper bound U = b − ∫ₐᵇ max(Fₙ(x) − ε, 0) dx: move mass ε from the smallest values to b;
 * - lower bound L = b − ∫ₐᵇ min(Fₙ(x) + ε, 1) dx: move mass ε from the largest values to a.
 *
 * It holds its level for every distribution on [a, b], heavy-tailed or not, at every n; the price
 * is width. Values outside the pre-registered range make the interval invalid (refused upstream).
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import type { Bounds } from "./types.ts";
import { requireFiniteValues, requireOpenUnit } from "./validate.ts";

function checkRange(values: readonly number[], lo: number, hi: number): void {
  requireFiniteValues(values);
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo < hi)) {
    throw new UsageError(`the range must be two finite numbers lo < hi, got [${lo}, ${hi}]`);
  }
  for (let i = 0; i < values.length; i++) {
    if (values[i] < lo || values[i] > hi) {
      throw new UsageError(`values[${i}] = ${values[i]} lies outside the range [${lo}, ${hi}]`);
    }
  }
}

/** The DKW band half-width ε = √(ln(1/β) / 2n), β = (1 − confidence)/2. */
export function dkwEpsilon(n: number, confidence: number): number {
  requireOpenUnit(confidence, "confidence");
  return Math.sqrt(Math.log(2 / (1 - confidence)) / (2 * n));
}

/**
 * Anderson's bounded-mean interval, as weighted sums of the order statistics.
 *
 * @example
 * ```ts
 * import { boundedMeanInterval } from "./bounded_mean.ts";
 * import assert from "node:assert/strict";
 * const xs = Array.from({ length: 400 }, (_, i) => (i % 10) / 10); // mean 0.45 in [0, 1]
 * const { low, high } = boundedMeanInterval(xs, 0, 1, 0.95);
 * assert.ok(low < 0.45 && 0.45 < high && high - low < 0.2);
 * ```
 */
export function boundedMeanInterval(
  values: readonly number[],
  lo: number,
  hi: number,
  confidence: number,
): Bounds {
  checkRange(values, lo, hi);
  const n = values.length;
  const eps = dkwEpsilon(n, confidence);
  if (eps >= 1) return { low: lo, high: hi };
  const x = Float64Array.from(values).sort();
  let high = eps * hi;
  let low = eps * lo;
  for (let i = 1; i <= n; i++) {
    const wHigh = Math.max(0, i / n - Math.max((i - 1) / n, eps));
    const wLow = Math.max(0, Math.min(i / n, 1 - eps) - (i - 1) / n);
    high += wHigh * x[i - 1];
    low += wLow * x[i - 1];
  }
  return { low: Math.max(lo, low), high: Math.min(hi, high) };
}

/**
 * The same bounds by the independent route: the integrals of the shifted empirical CDF, step by
 * step. Used by `cross_check`.
 *
 * @example
 * ```ts
 * import { boundedMeanByIntegral, boundedMeanInterval } from "./bounded_mean.ts";
 * import assert from "node:assert/strict";
 * const xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4];
 * const a = boundedMeanInterval(xs, 0, 10, 0.9), b = boundedMeanByIntegral(xs, 0, 10, 0.9);
 * assert.ok(Math.abs(a.low - b.low) < 1e-12 && Math.abs(a.high - b.high) < 1e-12);
 * ```
 */
export function boundedMeanByIntegral(
  values: readonly number[],
  lo: number,
  hi: number,
  confidence: number,
): Bounds {
  checkRange(values, lo, hi);
  const n = values.length;
  const eps = dkwEpsilon(n, confidence);
  if (eps >= 1) return { low: lo, high: hi };
  const x = Float64Array.from(values).sort();
  let areaHigh = 0; // ∫ max(Fn − ε, 0)
  let areaLow = Math.min(eps, 1) * (x[0] - lo); // ∫ min(Fn + ε, 1), below the first value
  for (let i = 1; i <= n; i++) {
    const next = i < n ? x[i] : hi;
    const width = next - x[i - 1];
    areaHigh += Math.max(i / n - eps, 0) * width;
    areaLow += Math.min(i / n + eps, 1) * width;
  }
  return { low: Math.max(lo, hi - areaLow), high: Math.min(hi, hi - areaHigh) };
}

/**
 * The smallest n at which the bound on the needed side can cross `threshold` at all (all values at
 * the favourable end of the range).
 *
 * @example
 * ```ts
 * import { boundedMeanMinimumN } from "./bounded_mean.ts";
 * import assert from "node:assert/strict";
 * assert.equal(boundedMeanMinimumN(0, 1, 0.5, 0.95, "upper"), 8);
 * ```
 */
export function boundedMeanMinimumN(
  lo: number,
  hi: number,
  threshold: number,
  confidence: number,
  side: "upper" | "lower",
): number | null {
  const gap = side === "upper" ? (threshold - lo) / (hi - lo) : (hi - threshold) / (hi - lo);
  if (!(gap > 0)) return null;
  const beta = (1 - confidence) / 2;
  return Math.max(1, Math.ceil(Math.log(1 / beta) / (2 * gap * gap)));
}
