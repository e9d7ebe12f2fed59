/**
 * Distribution functions from stdlib-js (`@stdlib/stats-base-dists-*`, ports of the Boost and
 * Cephes algorithms with published accuracy tests): the binomial CDF (order-statistic ranks,
 * Wilson's exact size, power), the beta quantile (Clopper-Pearson) and Student's t quantile (the
 * t interval). Every value that decides a verdict and comes from here is recomputed by an
 * independent route in `cross_check` (see `binomial_exact.ts`).
 *
 * @module
 */
import betaQuantileImpl from "@stdlib/stats-base-dists-beta-quantile";
import binomialCdfImpl from "@stdlib/stats-base-dists-binomial-cdf";
import tQuantileImpl from "@stdlib/stats-base-dists-t-quantile";
import { UsageError } from "../errors/errors.ts";
import { requireOpenUnit } from "./validate.ts";

/**
 * P(X ≤ k) for X ~ Binomial(n, p) (stdlib-js).
 *
 * @example
 * ```ts
 * import { binomialCdf } from "./distributions.ts";
 * import assert from "node:assert/strict";
 * assert.ok(Math.abs(binomialCdf(3, 30, 0.05) - 0.9392284386912566) < 1e-13);
 * assert.equal(binomialCdf(-1, 10, 0.5), 0);
 * assert.equal(binomialCdf(10, 10, 0.5), 1);
 * ```
 */
export function binomialCdf(k: number, n: number, p: number): number {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`n must be a non-negative integer, got ${String(n)}`);
  }
  if (!(p >= 0 && p <= 1)) throw new UsageError(`p must be in [0, 1], got ${String(p)}`);
  if (k < 0) return 0;
  if (k >= n) return 1;
  return binomialCdfImpl(Math.floor(k), n, p);
}

/**
 * The smallest integer k in [0, n] with P(X ≤ k) ≥ q for X ~ Binomial(n, p): the binomial
 * quantile (scipy's `binom.ppf`), found by bisection on {@link binomialCdf}.
 *
 * @example
 * ```ts
 * import { binomialQuantile } from "./distributions.ts";
 * import assert from "node:assert/strict";
 * assert.equal(binomialQuantile(0.975, 200, 0.95), 196);
 * assert.equal(binomialQuantile(0.025, 200, 0.95), 184);
 * ```
 */
export function binomialQuantile(q: number, n: number, p: number): number {
  if (!(q >= 0 && q <= 1)) throw new UsageError(`q must be in [0, 1], got ${String(q)}`);
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (binomialCdf(mid, n, p) >= q) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The q quantile of the Beta(a, b) distribution (stdlib-js), a, b > 0.
 *
 * @example
 * ```ts
 * import { betaQuantile } from "./distributions.ts";
 * import assert from "node:assert/strict";
 * // Clopper-Pearson lower bound of 120 successes in 120 trials at 95%: 0.025^(1/120).
 * assert.ok(Math.abs(betaQuantile(0.025, 120, 1) - 0.025 ** (1 / 120)) < 1e-14);
 * ```
 */
export function betaQuantile(q: number, a: number, b: number): number {
  if (!(q >= 0 && q <= 1)) throw new UsageError(`q must be in [0, 1], got ${String(q)}`);
  if (!(a > 0 && b > 0)) throw new UsageError(`beta parameters must be positive, got ${a}, ${b}`);
  return betaQuantileImpl(q, a, b);
}

/**
 * The p quantile of Student's t distribution with df > 0 degrees of freedom (stdlib-js).
 *
 * @example
 * ```ts
 * import { studentTQuantile } from "./distributions.ts";
 * import assert from "node:assert/strict";
 * assert.ok(Math.abs(studentTQuantile(0.975, 9) / 2.2621571627982044 - 1) < 1e-14);
 * ```
 */
export function studentTQuantile(p: number, df: number): number {
  requireOpenUnit(p, "p");
  if (typeof df !== "number" || !(df > 0) || !Number.isFinite(df)) {
    throw new UsageError(`degrees of freedom must be a positive number, got ${String(df)}`);
  }
  return tQuantileImpl(p, df);
}
