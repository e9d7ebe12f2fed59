/**
 * Which interval methods a comparison offers per statistic, and which combinations can never hold
 * their level (a scenario naming one is rejected). Data only, so that loading a scenario does not
 * load the statistics (`compare.ts` computes).
 *
 * @module
 */
import type { Statistic } from "./types.ts";

/** What a comparison computes: candidate / baseline or candidate − baseline. */
export type ComparisonKind = "ratio" | "difference";

/** Interval methods of a comparison. */
export type ComparisonMethod =
  | "order_statistic"
  | "clopper_pearson"
  | "t"
  | "bounded"
  | "mcnemar"
  | "bootstrap_percentile"
  | "none";

/** The methods each statistic accepts in a comparison, default first. */
export const COMPARISON_METHODS_FOR: Readonly<
  Record<Statistic["kind"], readonly ComparisonMethod[]>
> = {
  proportion: ["clopper_pearson", "mcnemar", "none"],
  quantile: ["order_statistic", "bootstrap_percentile", "none"],
  median: ["bootstrap_percentile", "order_statistic", "none"],
  mean: ["bootstrap_percentile", "t", "bounded", "none"],
};

/** Quantiles a comparison bootstrap is computed for: p in this closed range. */
export const BOOTSTRAP_QUANTILE_RANGE: readonly [number, number] = [0.25, 0.75];

const kindName = (s: Statistic) => (s.kind === "quantile" ? `quantile_${s.p}` : s.kind);

/**
 * Why `method` can never give a comparison interval for statistic `s` and this kind, whatever the
 * data (a scenario naming it is rejected), or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { comparisonMethodProblem } from "./compare.ts";
 * assert.match(comparisonMethodProblem({ kind: "proportion" }, "ratio", "mcnemar")!, /difference/);
 * assert.equal(comparisonMethodProblem({ kind: "median" }, "ratio", "bootstrap_percentile"), undefined);
 * ```
 */
export function comparisonMethodProblem(
  s: Statistic,
  kind: ComparisonKind,
  method: string,
): string | undefined {
  const allowed = COMPARISON_METHODS_FOR[s.kind];
  if (!allowed.includes(method as ComparisonMethod)) {
    return `${method} is not a comparison method for ${kindName(s)} (use one of ${
      allowed.join(", ")
    })`;
  }
  if (method === "mcnemar" && kind !== "difference") {
    return "mcnemar gives the difference of paired proportions; for a ratio use clopper_pearson";
  }
  if (
    method === "bootstrap_percentile" && s.kind === "quantile" &&
    (s.p < BOOTSTRAP_QUANTILE_RANGE[0] || s.p > BOOTSTRAP_QUANTILE_RANGE[1])
  ) {
    return `a bootstrap of quantile ${s.p} does not hold its level (its bounds cannot pass the sample extremes; bootstraps are computed for quantiles from ${
      BOOTSTRAP_QUANTILE_RANGE[0]
    } to ${BOOTSTRAP_QUANTILE_RANGE[1]}); use order_statistic`;
  }
  return undefined;
}
