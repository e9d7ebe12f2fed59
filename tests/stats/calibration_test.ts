// A fast subset of the calibration table (bench/calibration.ts; docs/statistics.md): claims at
// their threshold are VALIDATED at most 2.5% + 3 Monte Carlo SE of the time, claims 10% inside at
// the rate the power calculation predicts. Seeded, so deterministic. With 4,000 runs the bound is
// 3.24%: the bootstrap of a tail quantile (about 10% and more) fails it, as the last test shows.
import assert from "node:assert/strict";
import { calibrate, type CalibrationCell } from "../../src/stats/calibration.ts";
import { bootstrapDistribution, percentileInterval, seededRandom } from "../../src/stats/mod.ts";
import { trueValue } from "../../src/stats/calibration.ts";

const R = 4000;
const cells: Omit<CalibrationCell, "seed">[] = [
  // proportions (Bernoulli)
  {
    statistic: { kind: "proportion" },
    method: "clopper_pearson",
    distribution: "bernoulli",
    p0: 0.9,
    n: 100,
    comparator: ">=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "proportion" },
    method: "clopper_pearson",
    distribution: "bernoulli",
    p0: 0.9,
    n: 300,
    comparator: ">=",
    placement: "inside",
    runs: R,
  },
  {
    statistic: { kind: "proportion" },
    method: "wilson",
    distribution: "bernoulli",
    p0: 0.99,
    n: 300,
    comparator: ">=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "proportion" },
    method: "wilson",
    distribution: "bernoulli",
    p0: 0.05,
    n: 30,
    comparator: "<=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "proportion" },
    method: "wilson",
    distribution: "bernoulli",
    p0: 0.9,
    n: 1000,
    comparator: ">=",
    placement: "inside",
    runs: R,
  },
  // quantiles (order statistics)
  {
    statistic: { kind: "quantile", p: 0.95 },
    method: "order_statistic",
    distribution: "lognormal",
    n: 100,
    comparator: "<=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "quantile", p: 0.99 },
    method: "order_statistic",
    distribution: "pareto",
    n: 1000,
    comparator: "<=",
    placement: "at",
    runs: 2000,
  },
  {
    statistic: { kind: "quantile", p: 0.95 },
    method: "order_statistic",
    distribution: "pareto",
    n: 300,
    comparator: "<=",
    placement: "inside",
    runs: R,
  },
  {
    statistic: { kind: "median" },
    method: "order_statistic",
    distribution: "normal",
    n: 30,
    comparator: "<=",
    placement: "at",
    runs: R,
  },
  // means
  {
    statistic: { kind: "mean" },
    method: "t",
    distribution: "normal",
    n: 30,
    comparator: "<=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "mean" },
    method: "t",
    distribution: "lognormal",
    n: 30,
    comparator: "<=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "mean" },
    method: "t",
    distribution: "pareto",
    n: 100,
    comparator: "<=",
    placement: "at",
    runs: R,
  },
  {
    statistic: { kind: "mean" },
    method: "t",
    distribution: "normal",
    n: 30,
    comparator: ">=",
    placement: "inside",
    runs: R,
  },
  {
    statistic: { kind: "mean" },
    method: "bounded",
    distribution: "lognormal_capped",
    n: 100,
    comparator: "<=",
    placement: "at",
    runs: 2000,
  },
  {
    statistic: { kind: "mean" },
    method: "bootstrap_percentile",
    distribution: "lognormal",
    n: 100,
    comparator: "<=",
    placement: "at",
    runs: 2000,
    resamples: 499,
  },
];

cells.forEach((c, i) => {
  const stat = c.statistic.kind === "quantile" ? `p${c.statistic.p * 100}` : c.statistic.kind;
  Deno.test(`calibration: ${stat} ${c.method} ${c.distribution} n=${c.n} ${c.comparator} ${c.placement}`, () => {
    const r = calibrate({ ...c, seed: 1000 + i });
    if (c.placement === "at") {
      assert.ok(r.rate <= r.bound, `VALIDATED ${r.rate} > ${r.bound} at the threshold`);
    } else {
      assert.ok(r.predicted !== null);
      assert.ok(r.passes, `VALIDATED ${r.rate}, predicted ${r.predicted}`);
    }
  });
});

Deno.test("calibration: the check fails an interval that does not hold its level", () => {
  // The percentile bootstrap of p99 with 200 values (the old default): about 13% at threshold.
  const s = { kind: "quantile", p: 0.99 } as const;
  const truth = trueValue("lognormal", s);
  const u = seededRandom(5);
  const runs = 300;
  let validated = 0;
  for (let r = 0; r < runs; r++) {
    const xs = Array.from(
      { length: 200 },
      () => Math.exp(Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())),
    );
    if (percentileInterval(bootstrapDistribution(xs, s, 199, r), 0.95).high <= truth) validated++;
  }
  const bound = 0.025 + 3 * Math.sqrt(0.025 * 0.975 / runs);
  assert.ok(validated / runs > bound, `${validated / runs} should exceed ${bound}`);
});
