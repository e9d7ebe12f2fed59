import assert from "node:assert/strict";
import {
  computeStatistic,
  crossCheckStatistic,
  seededRandom,
  type Statistic,
} from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

const u = seededRandom(8);
const DATASETS = [
  Array.from({ length: 501 }, () => u() * 1000 - 300),
  Array.from({ length: 64 }, () => Math.round(u() * 10)),
  [41.25],
  [1e16, 1, -1e16, 0.5], // compensated vs naive summation differ here
  [0.1, 0.2, -0.3],
];
const STATS: Statistic[] = [
  { kind: "mean" },
  { kind: "median" },
  { kind: "quantile", p: 0.95 },
  { kind: "quantile", p: 0.01 },
  { kind: "quantile", p: 0.5 },
];

Deno.test("crossCheckStatistic: jStat agrees with simple-statistics for every statistic", () => {
  for (const [d, values] of DATASETS.entries()) {
    for (const s of STATS) {
      const est = computeStatistic(values, s);
      const c = crossCheckStatistic(values, s, est);
      assert.ok(c.agrees, `dataset ${d} ${JSON.stringify(s)}: ${c.text}`);
      assert.equal(c.library, "jstat");
      assert.equal(c.library_version, "1.9.6");
      assert.equal(c.tolerance, 1e-9);
      assert.match(c.text, /^jstat 1\.9\.6 .* = .*; agrees within 1e-9 \(relative\)$/);
    }
  }
  const flips = Array.from({ length: 99 }, () => (u() < 0.2 ? 1 : 0));
  const p = crossCheckStatistic(
    flips,
    { kind: "proportion" },
    computeStatistic(flips, { kind: "proportion" }),
  );
  assert.ok(p.agrees, p.text);
});

Deno.test("crossCheckStatistic: text names the computation", () => {
  const xs = [10, 20, 30, 40, 50, 60, 70];
  assert.equal(
    crossCheckStatistic(xs, { kind: "quantile", p: 0.525 }, 41.5).text,
    "jstat 1.9.6 quantiles(type 7) = 41.5; agrees within 1e-9 (relative)",
  );
  assert.equal(
    crossCheckStatistic(xs, { kind: "median" }, 40).text,
    "jstat 1.9.6 median = 40; agrees within 1e-9 (relative)",
  );
  assert.equal(
    crossCheckStatistic(xs, { kind: "mean" }, 40).text,
    "jstat 1.9.6 mean = 40; agrees within 1e-9 (relative)",
  );
  assert.equal(
    crossCheckStatistic([1, 0, 0, 1], { kind: "proportion" }, 0.5).text,
    "jstat 1.9.6 mean of 0/1 values = 0.5; agrees within 1e-9 (relative)",
  );
});

Deno.test("crossCheckStatistic: reports a wrong estimate as DISAGREES", () => {
  const xs = [10, 20, 30, 40, 50, 60, 70];
  for (const s of STATS) {
    const est = computeStatistic(xs, s);
    const c = crossCheckStatistic(xs, s, est * (1 + 1e-6));
    assert.equal(c.agrees, false, JSON.stringify(s));
    assert.match(c.text, /; DISAGREES with estimate .* beyond 1e-9 \(relative\)$/);
    // Within tolerance still agrees.
    assert.ok(crossCheckStatistic(xs, s, est * (1 + 1e-11)).agrees);
  }
  const c = crossCheckStatistic(xs, { kind: "mean" }, 41);
  assert.equal(c.value, 40);
  assert.equal(c.text, "jstat 1.9.6 mean = 40; DISAGREES with estimate 41 beyond 1e-9 (relative)");
});

Deno.test("crossCheckStatistic: tolerance is relative to the data's scale too", () => {
  // simple-statistics' compensated sum gives 1.5/4; jStat's naive sum loses the 1 (0.5/4).
  const xs = [1e16, 1, -1e16, 0.5];
  const c = crossCheckStatistic(xs, { kind: "mean" }, computeStatistic(xs, { kind: "mean" }));
  // The difference (0.25) is far below 1e-9 of the data's scale (1e16), so it agrees.
  assert.ok(c.agrees, c.text);
  assert.notEqual(c.value, computeStatistic(xs, { kind: "mean" }));
});

Deno.test("crossCheckStatistic: argument validation", () => {
  assert.throws(() => crossCheckStatistic([], { kind: "mean" }, 1), UsageError);
  assert.throws(() => crossCheckStatistic([1], { kind: "mean" }, NaN), UsageError);
  assert.throws(() => crossCheckStatistic([1, 2], { kind: "proportion" }, 1), UsageError);
  assert.throws(() => crossCheckStatistic([1], { kind: "quantile", p: 1 }, 1), UsageError);
});
