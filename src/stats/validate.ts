/**
 * Argument checks shared by the statistics modules. Each throws a `UsageError` naming the
 * offending argument.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import type { IntervalMethod, Statistic } from "./types.ts";

/** Largest number of bootstrap resamples accepted (keeps allocations bounded). */
export const MAX_RESAMPLES = 10_000_000;

/** Largest MT19937 seed accepted: seeds are 32-bit unsigned integers. */
export const MAX_SEED = 0xffff_ffff;

const METHODS: readonly IntervalMethod[] = [
  "order_statistic",
  "clopper_pearson",
  "wilson",
  "t",
  "bounded",
  "bootstrap_percentile",
  "bootstrap_bca",
  "none",
];

/**
 * Require a non-empty array of finite numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireFiniteValues } from "./validate.ts";
 * requireFiniteValues([1, 2, 3]);
 * let threw = false;
 * try { requireFiniteValues([]); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireFiniteValues(values: readonly number[], name = "values"): void {
  if (!Array.isArray(values)) throw new UsageError(`${name} must be an array of numbers`);
  if (values.length === 0) throw new UsageError(`${name} must not be empty`);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new UsageError(`${name}[${i}] must be a finite number, got ${String(v)}`);
    }
  }
}

/**
 * Require every value to be 0 or 1 (the outcomes a proportion is the mean of).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireBinary } from "./validate.ts";
 * requireBinary([0, 1, 1]);
 * let threw = false;
 * try { requireBinary([0, 0.5]); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireBinary(values: readonly number[], name = "values"): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== 0 && v !== 1) {
      throw new UsageError(`${name}[${i}] must be 0 or 1 for a proportion, got ${String(v)}`);
    }
  }
}

/**
 * Require a number strictly between 0 and 1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireOpenUnit } from "./validate.ts";
 * requireOpenUnit(0.95, "confidence");
 * let threw = false;
 * try { requireOpenUnit(1, "confidence"); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireOpenUnit(x: number, name: string): void {
  if (typeof x !== "number" || !(x > 0 && x < 1)) {
    throw new UsageError(`${name} must be a number strictly between 0 and 1, got ${String(x)}`);
  }
}

/**
 * Require a valid number of bootstrap resamples: an integer from 1 to {@link MAX_RESAMPLES}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireResamples } from "./validate.ts";
 * requireResamples(10_000);
 * let threw = false;
 * try { requireResamples(2.5); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireResamples(resamples: number): void {
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES) {
    throw new UsageError(
      `resamples must be an integer from 1 to ${MAX_RESAMPLES}, got ${String(resamples)}`,
    );
  }
}

/**
 * Require a valid MT19937 seed: an integer from 0 to 2^32 - 1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireSeed } from "./validate.ts";
 * requireSeed(5489);
 * let threw = false;
 * try { requireSeed(-1); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireSeed(seed: number): void {
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
    throw new UsageError(`seed must be an integer from 0 to ${MAX_SEED}, got ${String(seed)}`);
  }
}

/**
 * Require a well-formed {@link Statistic} (known kind; a quantile's p strictly inside (0, 1)).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireStatistic } from "./validate.ts";
 * requireStatistic({ kind: "quantile", p: 0.95 });
 * let threw = false;
 * try { requireStatistic({ kind: "quantile", p: 1.5 }); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireStatistic(s: Statistic): void {
  if (typeof s !== "object" || s === null) {
    throw new UsageError("statistic must be an object with a kind");
  }
  switch (s.kind) {
    case "mean":
    case "median":
    case "proportion":
      return;
    case "quantile":
      requireOpenUnit(s.p, "quantile p");
      return;
    default:
      throw new UsageError(
        `unknown statistic kind ${JSON.stringify((s as { kind: unknown }).kind)}; ` +
          "expected mean, median, quantile or proportion",
      );
  }
}

/**
 * Require a known {@link IntervalMethod}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireMethod } from "./validate.ts";
 * requireMethod("wilson");
 * let threw = false;
 * try { requireMethod("jackknife" as never); } catch { threw = true; }
 * assert.ok(threw);
 * ```
 */
export function requireMethod(method: IntervalMethod): void {
  if (!METHODS.includes(method)) {
    throw new UsageError(
      `unknown interval method ${JSON.stringify(method)}; expected one of ${METHODS.join(", ")}`,
    );
  }
}
