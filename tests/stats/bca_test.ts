import assert from "node:assert/strict";
import * as ss from "simple-statistics";
import {
  bcaInterval,
  bcaLevel,
  biasCorrection,
  bootstrapDistribution,
  estimateInterval,
  jackknifeAcceleration,
  normalCdf,
  normalQuantile,
  percentileInterval,
  seededRandom,
} from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

const OPTS = { confidence: 0.95, resamples: 4000, seed: 2024 };

function normalSample(seed: number, n: number): number[] {
  const u = seededRandom(seed);
  return Array.from({ length: n }, () => {
    // Box–Muller
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    return r * Math.cos(2 * Math.PI * u());
  });
}

Deno.test("biasCorrection: ties count half; share clamped to half a resample", () => {
  const sorted = Float64Array.of(1, 2, 2, 3);
  assert.equal(biasCorrection(sorted, 2), 0); // (1 + 0.5·2) / 4 = 0.5
  assert.equal(biasCorrection(sorted, 2.5), normalQuantile(0.75));
  assert.equal(biasCorrection(sorted, 100), normalQuantile(1 - 0.125));
  assert.equal(biasCorrection(sorted, -100), normalQuantile(0.125));
});

Deno.test("bcaLevel: Efron's formula, with limits where it breaks down", () => {
  const z0 = 0.1, a = 0.05, z = -1.959963984540054;
  const want = normalCdf(z0 + (z0 + z) / (1 - a * (z0 + z)));
  assert.equal(bcaLevel(z0, a, z), want);
  assert.equal(bcaLevel(0, 0.5, 3), 1); // 1 - a·w < 0, w > 0
  assert.equal(bcaLevel(0, -0.5, -3), 0); // 1 - a·w < 0, w < 0
});

Deno.test("bcaInterval: all bootstrap values equal gives [estimate, estimate]", () => {
  const dist = new Float64Array(100).fill(3);
  assert.deepEqual(bcaInterval(dist, 3, 0, 0.95), { low: 3, high: 3 });
  // estimateInterval refuses a bootstrap on constant data (it would claim [4, 4]).
  const r = estimateInterval([4, 4, 4, 4], { kind: "mean" }, "bootstrap_bca", OPTS);
  assert.match(r.refused!, /constant/);
  assert.deepEqual([r.low, r.high], [-Infinity, Infinity]);
});

Deno.test("bca: close to the percentile interval for symmetric data", () => {
  const values = normalSample(1, 400);
  // Make it exactly symmetric about its mean.
  const sym = [...values, ...values.map((v) => -v)];
  for (const s of [{ kind: "mean" }, { kind: "median" }] as const) {
    const dist = bootstrapDistribution(sym, s, OPTS.resamples, OPTS.seed);
    const estimate = s.kind === "mean" ? ss.mean(sym) : ss.median(sym);
    const pct = { ...percentileInterval(dist, 0.95), estimate };
    const bca = {
      ...bcaInterval(dist, estimate, jackknifeAcceleration(sym, s), 0.95),
      estimate,
    };
    const width = pct.high - pct.low;
    assert.ok(Math.abs(bca.low - pct.low) < 0.1 * width, `${s.kind} low`);
    assert.ok(Math.abs(bca.high - pct.high) < 0.1 * width, `${s.kind} high`);
    assert.ok(bca.low <= bca.estimate && bca.estimate <= bca.high);
  }
});

Deno.test("bca: shifted towards the long tail for skewed data", () => {
  // Log-normal: strongly right-skewed.
  const values = normalSample(3, 60).map((z) => Math.exp(1.2 * z));
  const dist = bootstrapDistribution(values, { kind: "mean" }, 4000, 11);
  const pct = percentileInterval(dist, 0.95);
  // (estimateInterval refuses a bootstrap on 60 skewed values; the method itself is tested here.)
  const bca = bcaInterval(
    dist,
    ss.mean(values),
    jackknifeAcceleration(values, { kind: "mean" }),
    0.95,
  );
  assert.ok(bca.low > pct.low, `low ${bca.low} vs ${pct.low}`);
  assert.ok(bca.high > pct.high, `high ${bca.high} vs ${pct.high}`);
  assert.ok(bca.low <= ss.mean(values) && ss.mean(values) <= bca.high);
});

Deno.test("bca: large n for quantiles (speed is measured in bench/run.ts)", () => {
  const values = normalSample(5, 10_000);
  const s = { kind: "quantile", p: 0.95 } as const;
  const dist = bootstrapDistribution(values, s, 500, 1);
  const r = {
    ...bcaInterval(dist, ss.quantile(values, 0.95), jackknifeAcceleration(values, s), 0.95),
    estimate: ss.quantile(values, 0.95),
  };
  assert.ok(r.low < r.estimate && r.estimate < r.high);
  assert.ok(Math.abs(r.estimate - 1.645) < 0.1);
});

Deno.test("bcaInterval: argument validation", () => {
  assert.throws(() => bcaInterval(new Float64Array(0), 0, 0, 0.9), UsageError);
  assert.throws(() => bcaInterval(Float64Array.of(1, 2), 0, 0, 0), UsageError);
  assert.throws(() => bcaInterval(Float64Array.of(1, 2), NaN, 0, 0.9), UsageError);
  assert.throws(() => bcaInterval(Float64Array.of(1, 2), 1, Infinity, 0.9), UsageError);
});
