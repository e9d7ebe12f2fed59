/**
 * The binomial distribution by direct summation: the independent route that `cross_check` uses to
 * recompute order-statistic ranks, Clopper-Pearson bounds and Wilson's exact size without
 * stdlib-js.
 *
 * The probabilities are built from the mode outwards with the ratio
 * P(k+1)/P(k) = (n−k)/(k+1) · p/(1−p), then divided by their sum, so no log-gamma is needed and the
 * normalisation absorbs the rounding of the starting value. Terms far below the mode underflow to
 * 0, which changes tails by less than 1e-300. Cost O(n) per table.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";

/**
 * The cumulative distribution P(X ≤ k), k = 0..n, of X ~ Binomial(n, p), by summation.
 *
 * @example
 * ```ts
 * import { binomialCdfTable } from "./binomial_exact.ts";
 * import assert from "node:assert/strict";
 * const cdf = binomialCdfTable(30, 0.05);
 * assert.ok(Math.abs(cdf[3] - 0.9392284386912566) < 1e-14);
 * assert.equal(cdf[30], 1);
 * ```
 */
export function binomialCdfTable(n: number, p: number): Float64Array {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`n must be a non-negative integer, got ${String(n)}`);
  }
  if (!(p >= 0 && p <= 1)) throw new UsageError(`p must be in [0, 1], got ${String(p)}`);
  const pmf = new Float64Array(n + 1);
  if (p === 0) pmf[0] = 1;
  else if (p === 1) pmf[n] = 1;
  else {
    const mode = Math.min(n, Math.floor((n + 1) * p));
    const r = p / (1 - p);
    pmf[mode] = 1;
    for (let k = mode; k < n; k++) pmf[k + 1] = pmf[k] * ((n - k) / (k + 1)) * r;
    for (let k = mode; k > 0; k--) pmf[k - 1] = pmf[k] * (k / (n - k + 1)) / r;
  }
  // Sum each side from its far end (small terms first), then normalise.
  let total = 0;
  for (const x of pmf) total += x;
  const cdf = new Float64Array(n + 1);
  let acc = 0;
  for (let k = 0; k <= n; k++) {
    acc += pmf[k];
    cdf[k] = acc / total;
  }
  // Upper tails summed from the top keep their relative precision near 1.
  let upper = 0;
  for (let k = n; k > 0; k--) {
    upper += pmf[k];
    const fromTop = 1 - upper / total;
    if (upper / total < 0.5) cdf[k - 1] = fromTop;
  }
  cdf[n] = 1;
  return cdf;
}

/**
 * P(X ≥ k) for X ~ Binomial(n, p), by summation of the upper tail.
 *
 * @example
 * ```ts
 * import { binomialUpperTail } from "./binomial_exact.ts";
 * import assert from "node:assert/strict";
 * assert.ok(Math.abs(binomialUpperTail(4, 30, 0.05) - (1 - 0.9392284386912566)) < 1e-14);
 * ```
 */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (!Number.isSafeInteger(n) || !(p > 0 && p < 1)) return 1 - binomialCdfTable(n, p)[k - 1];
  // The same arithmetic as `1 - binomialCdfTable(n, p)[k - 1]` (tested equal), without building
  // the two tables: the Clopper-Pearson cross-check calls this ~90 times per bound search, and
  // at n = 100,000 the tables' allocations dominated an audit (bench/audit.ts).
  // Terms that underflow to 0 stay 0 (0 · x = 0) and adding them changes no sum, so only the
  // range [lo, hi] of non-zero terms around the mode is generated and summed: a few hundred
  // terms at n = 100,000, p = 0.999.
  if (scratch.length < n + 1) scratch = new Float64Array(Math.max(n + 1, 2 * scratch.length));
  const pmf = scratch;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const r = p / (1 - p);
  pmf[mode] = 1;
  let hi = mode;
  while (hi < n) {
    const next = pmf[hi] * ((n - hi) / (hi + 1)) * r;
    if (next === 0) break;
    pmf[++hi] = next;
  }
  let lo = mode;
  while (lo > 0) {
    const next = pmf[lo] * (lo / (n - lo + 1)) / r;
    if (next === 0) break;
    pmf[--lo] = next;
  }
  let total = 0;
  let below = 0;
  for (let j = lo; j <= hi; j++) {
    total += pmf[j];
    if (j === k - 1) below = total;
  }
  if (k - 1 > hi) below = total;
  let upper = 0;
  for (let j = hi; j >= Math.max(k, lo); j--) upper += pmf[j];
  const cdf = upper / total < 0.5 ? 1 - upper / total : below / total;
  return 1 - cdf;
}

let scratch = new Float64Array(0);
