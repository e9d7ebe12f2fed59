import assert from "node:assert/strict";
import {
  estimateInterval,
  type IntervalMethod,
  type IntervalOptions,
  seededRandom,
  type Statistic,
} from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

const OPTS: IntervalOptions = { confidence: 0.95, resamples: 1000, seed: 5489 };
const u = seededRandom(31);
const VALUES = Array.from({ length: 200 }, () => u() * 100);
const FLIPS = Array.from({ length: 200 }, () => (u() < 0.4 ? 1 : 0));

Deno.test("estimateInterval none: low = high = estimate", () => {
  const r = estimateInterval(VALUES, { kind: "quantile", p: 0.95 }, "none", OPTS);
  assert.equal(r.low, r.estimate);
  assert.equal(r.high, r.estimate);
  assert.deepEqual(Object.keys(r).sort(), [
    "confidence",
    "estimate",
    "estimate_library",
    "high",
    "library",
    "library_version",
    "low",
    "method",
    "n",
    "statistic_name",
  ]);
  assert.equal(r.statistic_name, "quantile_0.95");
});

Deno.test("estimateInterval bootstrap: records seed and resamples; reproducible", () => {
  for (const method of ["bootstrap_percentile", "bootstrap_bca"] as const) {
    const s = { kind: "mean" } as const;
    const a = estimateInterval(VALUES, s, method, OPTS);
    const b = estimateInterval(VALUES, s, method, OPTS);
    const c = estimateInterval(VALUES, s, method, { ...OPTS, seed: 5490 });
    assert.deepEqual(a, b);
    assert.ok(a.low !== c.low || a.high !== c.high, `${method}: seed ignored`);
    assert.equal(a.seed, 5489);
    assert.equal(a.resamples, 1000);
    assert.equal(a.method, method);
    assert.equal(a.confidence, 0.95);
    assert.equal(a.n, 200);
    assert.equal(a.library, "empiric");
    assert.ok(a.mc_se!.low > 0 && a.mc_se!.high > 0, "Monte Carlo error reported");
    assert.ok(a.low <= a.estimate && a.estimate <= a.high, method);
    // Refused where the bootstrap cannot hold its level: proportions, quantiles, medians.
    for (
      const [xs, st] of [
        [FLIPS, { kind: "proportion" }],
        [VALUES, { kind: "median" }],
        [VALUES, { kind: "quantile", p: 0.9 }],
      ] as [number[], Statistic][]
    ) {
      const r = estimateInterval(xs, st, method, OPTS);
      assert.ok(r.refused !== undefined, `${method} ${st.kind}`);
    }
  }
});

Deno.test("estimateInterval: higher confidence, wider interval", () => {
  for (const method of ["bootstrap_percentile", "bootstrap_bca", "t"] as const) {
    const narrow = estimateInterval(VALUES, { kind: "mean" }, method, { ...OPTS, confidence: 0.8 });
    const wide = estimateInterval(VALUES, { kind: "mean" }, method, { ...OPTS, confidence: 0.99 });
    assert.ok(wide.low < narrow.low && narrow.high < wide.high, method);
  }
});

Deno.test("estimateInterval: progress reported for bootstrap methods", () => {
  const seen: number[] = [];
  estimateInterval(VALUES, { kind: "mean" }, "bootstrap_bca", {
    ...OPTS,
    resamples: 500,
    onProgress: (done, total) => {
      assert.equal(total, 500);
      seen.push(done);
    },
  });
  assert.equal(seen.length, 100);
  assert.equal(seen.at(-1), 500);
  assert.ok(seen.every((d, i) => i === 0 || d > seen[i - 1]));
});

Deno.test("estimateInterval: rejects method/statistic pairs that make no sense", () => {
  const bad: [Statistic, IntervalMethod][] = [
    [{ kind: "mean" }, "wilson"],
    [{ kind: "median" }, "wilson"],
    [{ kind: "quantile", p: 0.5 }, "wilson"],
    [{ kind: "median" }, "t"],
    [{ kind: "proportion" }, "t"],
    [{ kind: "quantile", p: 0.9 }, "t"],
  ];
  for (const [s, method] of bad) {
    assert.throws(
      () => estimateInterval(FLIPS, s, method, OPTS),
      UsageError,
      `${s.kind}/${method}`,
    );
  }
  assert.throws(
    () => estimateInterval(FLIPS, { kind: "median" }, "wilson", OPTS),
    /wilson interval is for a proportion, not median/,
  );
});

Deno.test("estimateInterval: argument validation", () => {
  const mean: Statistic = { kind: "mean" };
  const cases: [readonly number[], Statistic, IntervalMethod, IntervalOptions][] = [
    [[], mean, "none", OPTS],
    [[1, NaN], mean, "none", OPTS],
    [VALUES, { kind: "quantile", p: 0 }, "none", OPTS],
    [VALUES, { kind: "quantile", p: 1.01 }, "bootstrap_percentile", OPTS],
    [VALUES, mean, "jackknife" as IntervalMethod, OPTS],
    [VALUES, mean, "t", { ...OPTS, confidence: 0 }],
    [VALUES, mean, "t", { ...OPTS, confidence: 1 }],
    [VALUES, mean, "none", { ...OPTS, confidence: 95 }],
    [VALUES, mean, "bootstrap_percentile", { ...OPTS, resamples: 0 }],
    [VALUES, mean, "bootstrap_bca", { ...OPTS, resamples: 10.5 }],
    [VALUES, mean, "bootstrap_bca", { ...OPTS, seed: -1 }],
    [VALUES, mean, "bootstrap_bca", { ...OPTS, seed: 2 ** 32 }],
    [VALUES, mean, "bootstrap_bca", { ...OPTS, onProgress: 3 as never }],
    [VALUES, mean, "none", null as unknown as IntervalOptions],
    [[0, 1, 2], { kind: "proportion" }, "wilson", OPTS],
  ];
  for (const [values, s, method, opts] of cases) {
    assert.throws(
      () => estimateInterval(values, s, method, opts),
      UsageError,
      JSON.stringify([values.length, s, method, opts]),
    );
  }
  // resamples and seed are not used, so not checked, for the closed-form methods.
  estimateInterval(VALUES, mean, "t", { ...OPTS, resamples: 0, seed: -1 });
  // Too few values for a t interval: refused, not thrown.
  assert.match(estimateInterval([1, 2], mean, "t", OPTS).refused!, /at least 3 values/);
});

Deno.test("estimateInterval: confidence just below 1 still works (uses the α/2 tail)", () => {
  const c = 1 - 2 ** -53; // 1 − α/2 rounds to 1
  for (
    const [s, method] of [
      [{ kind: "proportion" }, "wilson"],
      [{ kind: "mean" }, "t"],
      [{ kind: "mean" }, "bootstrap_bca"],
    ] as [Statistic, IntervalMethod][]
  ) {
    const r = estimateInterval(s.kind === "proportion" ? FLIPS : VALUES, s, method, {
      ...OPTS,
      confidence: c,
    });
    assert.ok(r.low <= r.estimate && r.estimate <= r.high, method);
    assert.ok(Number.isFinite(r.low) && Number.isFinite(r.high), method);
  }
});
