/**
 * Independent re-computation of a point estimate with jStat, a second library with its own
 * summation, sorting and quantile code.
 *
 * Agreement: |value − estimate| ≤ 1e-9 · max(|value|, |estimate|, max|xᵢ|). Scaling by the data's
 * largest magnitude too keeps a mean near 0 of large values (where summation order alone moves
 * the result by more than 1e-9 of the result itself) from being called a disagreement; for
 * quantiles and the median, which lie within the data, it is the plain relative tolerance.
 * Differences below 2^-1022 (the smallest normal double) always agree.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { jStat } from "./jstat.ts";
import { CROSS_CHECK_LIBRARY, CROSS_CHECK_TOLERANCE } from "./library.ts";
import type { CrossCheck, Statistic } from "./types.ts";
import { requireBinary, requireFiniteValues, requireStatistic } from "./validate.ts";

/** Differences smaller than the least normal double are rounding noise among subnormals. */
const SUBNORMAL_LIMIT = 2 ** -1022;

/**
 * Re-compute the statistic with jStat and compare it with `estimate` (within 1e-9, relative).
 *
 * @example
 * ```ts
 * import { crossCheckStatistic } from "./cross_check.ts";
 * const xs = [10, 20, 30, 40, 50];
 * const ok = crossCheckStatistic(xs, { kind: "quantile", p: 0.8 }, 42);
 * console.assert(ok.agrees);
 * console.assert(ok.text === "jstat 1.9.6 quantiles(type 7) = 42; agrees within 1e-9 (relative)");
 * console.assert(!crossCheckStatistic(xs, { kind: "mean" }, 31).agrees);
 * ```
 */
export function crossCheckStatistic(
  values: readonly number[],
  s: Statistic,
  estimate: number,
): CrossCheck {
  requireStatistic(s);
  requireFiniteValues(values);
  if (typeof estimate !== "number" || !Number.isFinite(estimate)) {
    throw new UsageError(`estimate must be a finite number, got ${String(estimate)}`);
  }
  const xs = values.slice();
  let value: number;
  let what: string;
  switch (s.kind) {
    case "mean":
      value = jStat.mean(xs);
      what = "mean";
      break;
    case "proportion":
      requireBinary(values);
      value = jStat.mean(xs);
      what = "mean of 0/1 values";
      break;
    case "median":
      value = jStat.median(xs);
      what = "median";
      break;
    case "quantile":
      // jStat's type 7 reads past the end for a single value; the quantile of one value is it.
      value = xs.length === 1 ? xs[0] : jStat.quantiles(xs, [s.p], 1, 1)[0];
      what = "quantiles(type 7)";
      break;
  }
  let scale = Math.max(Math.abs(value), Math.abs(estimate));
  for (const x of values) scale = Math.max(scale, Math.abs(x));
  const tol = CROSS_CHECK_TOLERANCE;
  const agrees = Math.abs(value - estimate) <= Math.max(tol * scale, SUBNORMAL_LIMIT);
  const head = `${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version} ${what} = ${value}`;
  return {
    library: CROSS_CHECK_LIBRARY.name,
    library_version: CROSS_CHECK_LIBRARY.version,
    value,
    agrees,
    tolerance: tol,
    text: agrees
      ? `${head}; agrees within ${tol} (relative)`
      : `${head}; DISAGREES with estimate ${estimate} beyond ${tol} (relative)`,
  };
}
