/**
 * Sample shape diagnostics used to refuse intervals whose level depends on approximate normality.
 *
 * @module
 */
import { requireFiniteValues } from "./validate.ts";

/**
 * Sample skewness g₁ = m₃ / m₂^{3/2} with biased central moments (scipy's `skew(bias=True)`);
 * 0 for constant data.
 *
 * @example
 * ```ts
 * import { sampleSkewness } from "./moments.ts";
 * import assert from "node:assert/strict";
 * assert.equal(sampleSkewness([1, 2, 3]), 0);
 * assert.ok(Math.abs(sampleSkewness([1, 1, 1, 10]) - 1.1547005383792517) < 1e-12);
 * ```
 */
export function sampleSkewness(values: readonly number[]): number {
  requireFiniteValues(values);
  const n = values.length;
  let mean = 0;
  for (const v of values) mean += v;
  mean /= n;
  let m2 = 0, m3 = 0;
  for (const v of values) {
    const d = v - mean;
    m2 += d * d;
    m3 += d * d * d;
  }
  m2 /= n;
  m3 /= n;
  return m2 === 0 ? 0 : m3 / m2 ** 1.5;
}

/**
 * True when every value is the same.
 *
 * @example
 * ```ts
 * import { isConstant } from "./moments.ts";
 * import assert from "node:assert/strict";
 * assert.ok(isConstant([2, 2, 2]) && !isConstant([2, 3]));
 * ```
 */
export function isConstant(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return false;
  return true;
}

/**
 * True when every value is 0 or 1.
 *
 * @example
 * ```ts
 * import { isBinary } from "./moments.ts";
 * import assert from "node:assert/strict";
 * assert.ok(isBinary([0, 1, 1]) && !isBinary([0, 0.5]));
 * ```
 */
export function isBinary(values: readonly number[]): boolean {
  for (const v of values) if (v !== 0 && v !== 1) return false;
  return true;
}
