/**
 * Numbers for people: a measured value rounded to four significant digits, with its units.
 *
 * @module
 */

/**
 * A value with its units, rounded to four significant digits (`23.46 ms`, `0.9667 proportion`);
 * `n/a` when there is no value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatMeasure } from "./measure.ts";
 * assert.equal(formatMeasure(23.456789, "ms"), "23.46 ms");
 * assert.equal(formatMeasure(1, "proportion"), "1 proportion");
 * assert.equal(formatMeasure(0.000123456, ""), "0.0001235");
 * assert.equal(formatMeasure(12345678, "count"), "12350000 count");
 * assert.equal(formatMeasure(null, "ms"), "n/a");
 * ```
 */
export function formatMeasure(value: number | null, units: string): string {
  if (value === null || !Number.isFinite(value)) return "n/a";
  const rounded = String(Number(value.toPrecision(4)));
  return units ? `${rounded} ${units}` : rounded;
}
