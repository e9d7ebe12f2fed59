// A fast subset of the comparison calibration table (bench/calibration.ts --only comparisons;
// docs/statistics.md): at the threshold a comparative claim is VALIDATED, and REFUTED, at most
// 2.5% + 3 Monte Carlo SE of the time; identical systems are not REFUTED beyond that against
// "ratio <= 1.05"; a 1.5x slowdown is REFUTED and a 0.6x speed-up VALIDATED. Seeded, so deterministic. The last test
// shows the check failing an interval that does not hold its level.
import assert from "node:assert/strict";
import { calibrateComparison, type ComparisonCell } from "../../src/stats/compare_calibration.ts";
import { percentileInterval, seededRandom, twoSampleBootstrap } from "../../src/stats/mod.ts";

const latency = (
  statistic: ComparisonCell["statistic"],
  method: ComparisonCell["method"],
  n: number,
  truth: number,
  runs: number,
  paired = true,
): Omit<ComparisonCell, "seed"> => ({
  statistic,
  method,
  kind: "ratio",
  model: "lognormal_items",
  paired,
  n,
  comparator: "<=",
  threshold: 1.05,
  truth,
  runs,
  resamples: 199,
});

const cells: Omit<ComparisonCell, "seed">[] = [
  latency({ kind: "median" }, "bootstrap_percentile", 100, 1.05, 800),
  latency({ kind: "median" }, "bootstrap_percentile", 100, 1, 400),
  latency({ kind: "median" }, "bootstrap_percentile", 100, 1.05, 600, false),
  latency({ kind: "median" }, "bootstrap_percentile", 100, 1.5, 200),
  latency({ kind: "mean" }, "bootstrap_percentile", 150, 1.05, 600),
  latency({ kind: "quantile", p: 0.95 }, "order_statistic", 300, 1.05, 2000),
  latency({ kind: "quantile", p: 0.95 }, "order_statistic", 300, 1, 1000),
  latency({ kind: "median" }, "order_statistic", 100, 0.6, 1000),
  {
    statistic: { kind: "mean" },
    method: "bootstrap_percentile",
    kind: "difference",
    model: "normal_items",
    paired: true,
    n: 100,
    comparator: "within",
    threshold: 0.5,
    truth: 0.5,
    runs: 800,
    resamples: 199,
  },
  {
    statistic: { kind: "mean" },
    method: "t",
    kind: "ratio",
    model: "normal_items",
    paired: true,
    n: 30,
    comparator: "<=",
    threshold: 1.05,
    truth: 1.05,
    runs: 2000,
  },
  {
    statistic: { kind: "proportion" },
    method: "mcnemar",
    kind: "difference",
    model: "bernoulli_pairs",
    paired: true,
    n: 300,
    comparator: ">=",
    threshold: -0.02,
    truth: -0.02,
    runs: 3000,
  },
  {
    statistic: { kind: "proportion" },
    method: "mcnemar",
    kind: "difference",
    model: "bernoulli_pairs",
    paired: true,
    n: 1000,
    comparator: "within",
    threshold: 0.02,
    truth: 0.02,
    runs: 2000,
  },
  {
    statistic: { kind: "proportion" },
    method: "clopper_pearson",
    kind: "difference",
    model: "bernoulli_pairs",
    paired: false,
    n: 300,
    comparator: ">=",
    threshold: -0.02,
    truth: -0.02,
    runs: 3000,
  },
];

cells.forEach((c, i) => {
  const stat = c.statistic.kind === "quantile" ? `p${c.statistic.p * 100}` : c.statistic.kind;
  Deno.test(
    `comparison calibration: ${stat} ${c.kind} ${c.method} ${
      c.paired ? "paired" : "unpaired"
    } n=${c.n} ${c.comparator} ${c.threshold}, truth ${c.truth}`,
    () => {
      const r = calibrateComparison({ ...c, seed: 3000 + i });
      assert.ok(
        r.passes,
        `VALIDATED ${r.validatedRate}, REFUTED ${r.refutedRate}, bound ${r.bound} (at threshold: ${r.atThreshold})`,
      );
      if (c.truth === 1.5) assert.ok(r.refutedRate > 0.9, `slowdown REFUTED ${r.refutedRate}`);
      if (c.truth === 0.6) {
        assert.ok(r.validatedRate > 0.9, `speed-up VALIDATED ${r.validatedRate}`);
      }
    },
  );
});

Deno.test("comparison calibration: the check fails an interval that does not hold its level", () => {
  // The percentile bootstrap of a ratio of means from 20 paired, skewed items (refused by
  // compareInterval: fewer than 100 values): at the threshold it validates about 6% of the time.
  const u = seededRandom(78);
  const z = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const runs = 600;
  let validated = 0;
  for (let r = 0; r < runs; r++) {
    const b: number[] = [], c: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = Math.exp(z());
      b.push(s * Math.exp(0.5 * z()));
      c.push(1.05 * s * Math.exp(0.5 * z()));
    }
    const d = twoSampleBootstrap(c, b, { kind: "mean" }, true, 199, r);
    const ratios = d.candidate.map((x, k) => x / d.baseline[k]);
    if (percentileInterval(ratios, 0.95).high <= 1.05) validated++;
  }
  const bound = 0.025 + 3 * Math.sqrt(0.025 * 0.975 / runs);
  assert.ok(validated / runs > bound, `${validated / runs} should exceed ${bound}`);
});
