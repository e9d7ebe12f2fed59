/**
 * Point estimates of a {@link Statistic}, computed with simple-statistics.
 *
 * @module
 */
import * as ss from "simple-statistics";
import { UsageError } from "../errors/errors.ts";
import type { Statistic } from "./types.ts";
import { requireBinary, requireFiniteValues, requireStatistic } from "./validate.ts";

/**
 * The name a statistic is recorded under: `mean`, `median`, `proportion`, or `quantile_<p>` with
 * p in its shortest round-trip form (`quantile_0.95`, `quantile_0.5`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statisticName } from "./statistic.ts";
 * assert.equal(statisticName({ kind: "quantile", p: 0.95 }), "quantile_0.95");
 * assert.equal(statisticName({ kind: "mean" }), "mean");
 * ```
 */
export function statisticName(s: Statistic): string {
  requireStatistic(s);
  return s.kind === "quantile" ? `quantile_${String(s.p)}` : s.kind;
}

/**
 * The statistic of the values, by simple-statistics: `mean`, `median`, type-7 `quantile`, and
 * `proportion` (the mean of values that must all be 0 or 1). Throws `UsageError` for invalid
 * arguments, and when a mean overflows (e.g. of values near ±1.8e308).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { computeStatistic } from "./statistic.ts";
 * const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
 * assert.ok(Math.abs(computeStatistic(xs, { kind: "quantile", p: 0.95 }) - 9.55) < 1e-12);
 * assert.equal(computeStatistic(xs, { kind: "median" }), 5.5);
 * assert.equal(computeStatistic([1, 0, 1, 1], { kind: "proportion" }), 0.75);
 * ```
 */
export function computeStatistic(values: readonly number[], s: Statistic): number {
  requireStatistic(s);
  requireFiniteValues(values);
  let result: number;
  switch (s.kind) {
    case "mean":
      result = ss.mean(values);
      break;
    case "median":
      result = ss.median(values);
      break;
    case "quantile":
      result = ss.quantile(values, s.p);
      break;
    case "proportion":
      requireBinary(values);
      result = ss.mean(values);
      break;
  }
  if (!Number.isFinite(result)) {
    throw new UsageError(`the ${statisticName(s)} of these values overflows double precision`);
  }
  return result;
}
