// The cells of the comparison calibration table (bench/calibration.ts prints it; the table in
// docs/statistics.md is its output). Each group puts the truth at the threshold, and adds the
// known behaviours the comparison must show: identical systems (truth 1 or 0) against a 5%
// margin, a 1.5x slowdown and a 0.6x speed-up.
import type { ComparisonCell } from "../src/stats/compare_calibration.ts";

/** The comparison cells, without seeds. */
export function comparisonCells(runs: number, bootRuns: number): Omit<ComparisonCell, "seed">[] {
  const out: Omit<ComparisonCell, "seed">[] = [];
  const add = (c: Omit<ComparisonCell, "seed" | "runs">) =>
    out.push({ ...c, runs: c.method === "bootstrap_percentile" ? bootRuns : runs });
  const latency = (
    statistic: ComparisonCell["statistic"],
    method: ComparisonCell["method"],
    paired: boolean,
    ns: number[],
    truths: number[],
  ) => {
    for (const n of ns) {
      for (const truth of truths) {
        add({
          statistic,
          method,
          kind: "ratio",
          model: "lognormal_items",
          paired,
          n,
          comparator: "<=",
          threshold: 1.05,
          truth,
        });
      }
    }
  };
  // Medians and central quantiles: the paired bootstrap (default for medians), unpaired, and
  // the combined order-statistic bounds.
  latency({ kind: "median" }, "bootstrap_percentile", true, [100, 300, 1000], [1.05, 1, 1.5, 0.6]);
  latency({ kind: "median" }, "bootstrap_percentile", false, [100, 300], [1.05, 1]);
  latency({ kind: "quantile", p: 0.75 }, "bootstrap_percentile", true, [100, 300], [1.05, 1]);
  latency({ kind: "median" }, "order_statistic", true, [30, 100, 300, 1000], [1.05, 1, 1.5, 0.6]);
  // Tail quantiles: combined order statistics (default), any n.
  latency({ kind: "quantile", p: 0.95 }, "order_statistic", true, [100, 300, 1000], [1.05, 1, 1.5]);
  latency({ kind: "quantile", p: 0.99 }, "order_statistic", false, [1000], [1.05, 1]);
  // Means: paired bootstrap (default), and the combined t on normal data.
  latency({ kind: "mean" }, "bootstrap_percentile", true, [100, 300, 1000], [1.05, 1, 1.5, 0.6]);
  for (const n of [30, 100, 300]) {
    for (const truth of [1.05, 1]) {
      add({
        statistic: { kind: "mean" },
        method: "t",
        kind: "ratio",
        model: "normal_items",
        paired: true,
        n,
        comparator: "<=",
        threshold: 1.05,
        truth,
      });
    }
  }
  // Differences of means and equivalence (within: two one-sided bounds).
  for (const n of [100, 300]) {
    for (
      const [comparator, threshold, truth] of [
        [">=", -0.5, -0.5],
        ["within", 0.5, 0.5],
        ["within", 0.5, 0],
      ] as const
    ) {
      add({
        statistic: { kind: "mean" },
        method: "bootstrap_percentile",
        kind: "difference",
        model: "normal_items",
        paired: true,
        n,
        comparator,
        threshold,
        truth,
      });
    }
  }
  for (const n of [300, 1000]) {
    for (const truth of [1.05, 1]) {
      add({
        statistic: { kind: "median" },
        method: "bootstrap_percentile",
        kind: "ratio",
        model: "lognormal_items",
        paired: true,
        n,
        comparator: "within",
        threshold: 0.05,
        truth,
      });
    }
  }
  // Proportions: non-inferiority by at most 2 points, paired (mcnemar) and not (Clopper-Pearson).
  for (const n of [100, 300, 1000]) {
    for (
      const [comparator, threshold, truth] of [
        [">=", -0.02, -0.02],
        [">=", -0.02, 0],
        ["within", 0.02, 0.02],
      ] as const
    ) {
      add({
        statistic: { kind: "proportion" },
        method: "mcnemar",
        kind: "difference",
        model: "bernoulli_pairs",
        paired: true,
        n,
        comparator,
        threshold,
        truth,
      });
    }
  }
  for (const n of [300, 1000]) {
    for (const truth of [-0.02, 0]) {
      add({
        statistic: { kind: "proportion" },
        method: "clopper_pearson",
        kind: "difference",
        model: "bernoulli_pairs",
        paired: false,
        n,
        comparator: ">=",
        threshold: -0.02,
        truth,
      });
    }
  }
  return out;
}
