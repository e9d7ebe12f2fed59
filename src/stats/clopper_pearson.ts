/**
 * The Clopper-Pearson ("exact") interval for a binomial proportion: with β = (1 − confidence)/2,
 * the lower bound is the β quantile of Beta(k, n − k + 1) (0 when k = 0) and the upper bound the
 * 1 − β quantile of Beta(k + 1, n − k) (1 when k = n). Each side holds its one-sided level for
 * every true proportion. Beta quantiles from stdlib-js; statsmodels'
 * `proportion_confint(method="beta")` is the reference in the tests.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { binomialUpperTail } from "./binomial_exact.ts";
import { betaQuantile } from "./distributions.ts";
import type { Bounds } from "./types.ts";
import { requireOpenUnit } from "./validate.ts";

function checkCounts(successes: number, trials: number): void {
  if (!Number.isSafeInteger(trials) || trials < 1) {
    throw new UsageError(`trials must be a positive integer, got ${String(trials)}`);
  }
  if (!Number.isSafeInteger(successes) || successes < 0 || successes > trials) {
    throw new UsageError(
      `successes must be an integer from 0 to ${trials}, got ${String(successes)}`,
    );
  }
}

/**
 * Clopper-Pearson interval for `successes` out of `trials`.
 *
 * @example
 * ```ts
 * import { clopperPearsonInterval } from "./clopper_pearson.ts";
 * import assert from "node:assert/strict";
 * const { low, high } = clopperPearsonInterval(30, 30, 0.95);
 * assert.ok(Math.abs(low - 0.025 ** (1 / 30)) < 1e-14 && high === 1); // 0.8843
 * ```
 */
export function clopperPearsonInterval(
  successes: number,
  trials: number,
  confidence: number,
): Bounds {
  requireOpenUnit(confidence, "confidence");
  checkCounts(successes, trials);
  const beta = (1 - confidence) / 2;
  const k = successes, n = trials;
  return {
    low: k === 0 ? 0 : betaQuantile(beta, k, n - k + 1),
    high: k === n ? 1 : betaQuantile(1 - beta, k + 1, n - k),
  };
}

/**
 * The same bounds by the independent route: bisection on the binomial tails computed by direct
 * summation (the lower bound solves P(X ≥ k | p) = β, the upper P(X ≤ k | p) = β), to 1e-12.
 *
 * @example
 * ```ts
 * import { clopperPearsonBySummation, clopperPearsonInterval } from "./clopper_pearson.ts";
 * import assert from "node:assert/strict";
 * const a = clopperPearsonInterval(81, 263, 0.95), b = clopperPearsonBySummation(81, 263, 0.95);
 * assert.ok(Math.abs(a.low - b.low) < 1e-10 && Math.abs(a.high - b.high) < 1e-10);
 * ```
 */
export function clopperPearsonBySummation(
  successes: number,
  trials: number,
  confidence: number,
): Bounds {
  requireOpenUnit(confidence, "confidence");
  checkCounts(successes, trials);
  const beta = (1 - confidence) / 2;
  const k = successes, n = trials;
  // f(p) = P(X ≥ m | p) increases with p: solve f(p) = target by bisection.
  const solve = (m: number, target: number): number => {
    let lo = 0, hi = 1;
    for (let i = 0; i < 200 && hi - lo > 1e-13; i++) {
      const mid = (lo + hi) / 2;
      if (binomialUpperTail(m, n, mid) < target) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  return {
    low: k === 0 ? 0 : solve(k, beta),
    high: k === n ? 1 : solve(k + 1, 1 - beta),
  };
}
