/**
 * Distribution-free confidence bounds for a quantile from order statistics (exact binomial).
 *
 * With β = (1 − confidence)/2 the one-sided error of each bound, and X ~ Binomial(n, p):
 *
 * - upper bound: the order statistic x₍ₖ₎ (1-based rank) with k = 1 + the smallest m such that
 *   P(X ≤ m) ≥ 1 − β (scipy's `binom.isf(β)`); unbounded when k > n, that is when pⁿ > β;
 * - lower bound: x₍ⱼ₎ with j = the smallest m such that P(X ≤ m) ≥ β (scipy's `binom.ppf(β)`);
 *   unbounded when j = 0, that is when (1 − p)ⁿ > β.
 *
 * P(x₍ₖ₎ < ξₚ) ≤ P(X ≥ k) ≤ β and P(x₍ⱼ₎ > ξₚ) ≤ P(X ≤ j − 1) < β hold for every distribution
 * (continuous, discrete or with ties), so each bound holds its one-sided level exactly or
 * conservatively. These are the bounds of `scipy.stats.quantile_test(...).confidence_interval`.
 *
 * Censored values (failed items whose latency is known only to be at least some value) enter the
 * lower bound at their known minimum and the upper bound as +∞: both bounds stay valid.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { binomialCdfTable } from "./binomial_exact.ts";
import { binomialQuantile } from "./distributions.ts";
import { requireOpenUnit } from "./validate.ts";

/** 1-based ranks of the bounding order statistics; 0 and n + 1 mean unbounded. */
export interface OrderStatisticRanks {
  lower: number;
  upper: number;
}

function checkN(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`n must be a positive integer, got ${String(n)}`);
  }
}

/**
 * The ranks of the order statistics bounding the p quantile of n values at the given two-sided
 * confidence (each side has one-sided error (1 − confidence)/2). Uses stdlib-js's binomial CDF.
 *
 * @example
 * ```ts
 * import { orderStatisticRanks } from "./order_statistic.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(orderStatisticRanks(200, 0.95, 0.95), { lower: 184, upper: 197 });
 * assert.deepEqual(orderStatisticRanks(200, 0.99, 0.95), { lower: 195, upper: 201 }); // no upper bound
 * ```
 */
export function orderStatisticRanks(n: number, p: number, confidence: number): OrderStatisticRanks {
  checkN(n);
  requireOpenUnit(p, "p");
  requireOpenUnit(confidence, "confidence");
  const beta = (1 - confidence) / 2;
  const lower = binomialQuantile(beta, n, p);
  const upper = binomialQuantile(1 - beta, n, p) + 1;
  return { lower, upper: Math.min(upper, n + 1) };
}

/**
 * The same ranks by the independent route: direct summation of the binomial probabilities
 * (`binomial_exact.ts`). Used by `cross_check`.
 *
 * @example
 * ```ts
 * import { orderStatisticRanks, orderStatisticRanksBySummation } from "./order_statistic.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(orderStatisticRanksBySummation(500, 0.99, 0.95), orderStatisticRanks(500, 0.99, 0.95));
 * ```
 */
export function orderStatisticRanksBySummation(
  n: number,
  p: number,
  confidence: number,
): OrderStatisticRanks {
  checkN(n);
  requireOpenUnit(p, "p");
  requireOpenUnit(confidence, "confidence");
  const beta = (1 - confidence) / 2;
  const cdf = binomialCdfTable(n, p);
  let lower = 0;
  while (cdf[lower] < beta) lower++;
  let m = lower;
  while (m < n && 1 - cdf[m] > beta) m++;
  return { lower, upper: Math.min(m + 1, n + 1) };
}

/**
 * The smallest n at which the bound on one side exists: the upper bound needs pⁿ ≤ β, the lower
 * bound (1 − p)ⁿ ≤ β (β = (1 − confidence)/2). p99 needs n ≥ 368 for an upper bound at 95%
 * (0.99³⁶⁷ = 0.02502 > 0.025); p95 needs 72.
 *
 * @example
 * ```ts
 * import { orderStatisticMinimumN } from "./order_statistic.ts";
 * import assert from "node:assert/strict";
 * assert.equal(orderStatisticMinimumN(0.99, 0.95, "upper"), 368);
 * assert.equal(orderStatisticMinimumN(0.95, 0.95, "upper"), 72);
 * assert.equal(orderStatisticMinimumN(0.5, 0.95, "lower"), 6);
 * ```
 */
export function orderStatisticMinimumN(
  p: number,
  confidence: number,
  side: "upper" | "lower",
): number {
  requireOpenUnit(p, "p");
  requireOpenUnit(confidence, "confidence");
  const beta = (1 - confidence) / 2;
  const q = side === "upper" ? p : 1 - p;
  let n = Math.max(1, Math.floor(Math.log(beta) / Math.log(q)) - 1);
  while (q ** n > beta) n++;
  while (n > 1 && q ** (n - 1) <= beta) n--;
  return n;
}

/** Order-statistic bounds of a quantile; ±Infinity where a side is unbounded. */
export interface OrderStatisticInterval {
  low: number;
  high: number;
  ranks: OrderStatisticRanks;
}

/**
 * Order-statistic bounds for the p quantile. `censored[i]` marks values known only to be at least
 * `values[i]` (they count as +∞ for the upper bound).
 *
 * @example
 * ```ts
 * import { orderStatisticInterval } from "./order_statistic.ts";
 * import assert from "node:assert/strict";
 * const xs = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
 * const r = orderStatisticInterval(xs, 0.5, 0.95);
 * assert.deepEqual([r.low, r.high], [40, 61]);
 * // Five timeouts at 500 ms among 100 values: an upper bound on p95 cannot be finite.
 * const lat = xs.map((x, i) => (i >= 95 ? 500 : x));
 * const cens = xs.map((_, i) => i >= 95);
 * assert.equal(orderStatisticInterval(lat, 0.95, 0.95, cens).high, Infinity);
 * ```
 */
export function orderStatisticInterval(
  values: readonly number[],
  p: number,
  confidence: number,
  censored?: readonly boolean[],
): OrderStatisticInterval {
  const n = values.length;
  const ranks = orderStatisticRanks(n, p, confidence);
  const known = Float64Array.from(values).sort();
  const upperSide = Float64Array.from(values, (v, i) => (censored?.[i] ? Infinity : v)).sort();
  return {
    low: ranks.lower === 0 ? -Infinity : known[ranks.lower - 1],
    high: ranks.upper > n ? Infinity : upperSide[ranks.upper - 1],
    ranks,
  };
}
