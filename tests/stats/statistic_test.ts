import assert from "node:assert/strict";
import * as ss from "simple-statistics";
import { computeStatistic, type Statistic, statisticName } from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

const ONE_TO_TEN = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

Deno.test("computeStatistic: type-7 quantiles match numpy (np.quantile, linear)", () => {
  // np.quantile(np.arange(1, 11), [0.95, 0.5, 0.25, 0.1]) = [9.55, 5.5, 3.25, 1.9]
  const q = (p: number) => computeStatistic(ONE_TO_TEN, { kind: "quantile", p });
  assert.ok(Math.abs(q(0.95) - 9.55) < 1e-12);
  assert.equal(q(0.5), 5.5);
  assert.equal(q(0.25), 3.25);
  assert.ok(Math.abs(q(0.1) - 1.9) < 1e-12);
  // Order of the input does not matter, and the input is not modified.
  const shuffled = [7, 3, 10, 1, 5, 9, 2, 8, 4, 6];
  assert.equal(computeStatistic(shuffled, { kind: "quantile", p: 0.95 }), q(0.95));
  assert.deepEqual(shuffled, [7, 3, 10, 1, 5, 9, 2, 8, 4, 6]);
});

Deno.test("computeStatistic: mean, median, proportion", () => {
  assert.equal(computeStatistic(ONE_TO_TEN, { kind: "mean" }), 5.5);
  assert.equal(computeStatistic(ONE_TO_TEN, { kind: "median" }), 5.5);
  assert.equal(computeStatistic([3, 1, 2], { kind: "median" }), 2);
  assert.equal(computeStatistic([1, 0, 0, 1, 1], { kind: "proportion" }), 0.6);
  assert.equal(computeStatistic([0, 0], { kind: "proportion" }), 0);
  assert.equal(computeStatistic([42], { kind: "quantile", p: 0.3 }), 42);
  // The mean is simple-statistics' compensated one.
  const xs = [1e16, 1, -1e16, 0.5];
  assert.equal(computeStatistic(xs, { kind: "mean" }), ss.mean(xs));
});

Deno.test("statisticName: shortest form of p", () => {
  const names: [Statistic, string][] = [
    [{ kind: "mean" }, "mean"],
    [{ kind: "median" }, "median"],
    [{ kind: "proportion" }, "proportion"],
    [{ kind: "quantile", p: 0.95 }, "quantile_0.95"],
    [{ kind: "quantile", p: 0.5 }, "quantile_0.5"],
    [{ kind: "quantile", p: 0.999 }, "quantile_0.999"],
    [{ kind: "quantile", p: 0.1 + 0.2 }, "quantile_0.30000000000000004"],
  ];
  for (const [s, name] of names) assert.equal(statisticName(s), name);
});

Deno.test("computeStatistic: argument validation", () => {
  const bad: [readonly number[], Statistic][] = [
    [[], { kind: "mean" }],
    [[1, NaN], { kind: "mean" }],
    [[1, Infinity], { kind: "median" }],
    [[1, "2" as unknown as number], { kind: "mean" }],
    [[0, 1, 2], { kind: "proportion" }],
    [[0, 0.5], { kind: "proportion" }],
    [[1, 2], { kind: "quantile", p: 0 }],
    [[1, 2], { kind: "quantile", p: 1 }],
    [[1, 2], { kind: "quantile", p: NaN }],
    [[1, 2], { kind: "quantile" } as unknown as Statistic],
    [[1, 2], { kind: "mode" } as unknown as Statistic],
    [[1, 2], null as unknown as Statistic],
    ["12" as unknown as number[], { kind: "mean" }],
  ];
  for (const [values, s] of bad) {
    assert.throws(() => computeStatistic(values, s), UsageError, JSON.stringify([values, s]));
  }
  assert.throws(() => statisticName({ kind: "quantile", p: 2 }), UsageError);
  assert.throws(() => computeStatistic([1.7e308, 1.7e308], { kind: "mean" }), /overflows/);
  assert.throws(
    () => computeStatistic([0, 2], { kind: "proportion" }),
    /values\[1\] must be 0 or 1/,
  );
});
