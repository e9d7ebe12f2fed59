import assert from "node:assert/strict";
import * as ss from "simple-statistics";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import {
  bootstrapDistribution,
  mersenneTwister,
  percentileInterval,
  seededRandom,
  type Statistic,
} from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

/** The bootstrap as specified, done the slow obvious way: build, sort, compute each resample. */
function naiveBootstrap(values: number[], s: Statistic, resamples: number, seed: number) {
  const rng = mersenneTwister(seed);
  const n = values.length;
  const out: number[] = [];
  for (let b = 0; b < resamples; b++) {
    const resample = Array.from({ length: n }, () => values[uniformInt(rng, 0, n - 1)]);
    if (s.kind === "mean" || s.kind === "proportion") out.push(ss.mean(resample));
    else {
      const sorted = resample.sort((a, b) => a - b);
      out.push(ss.quantileSorted(sorted, s.kind === "median" ? 0.5 : s.p));
    }
  }
  return out;
}

function sample(seed: number, n: number, draw: (u: () => number) => number): number[] {
  const u = seededRandom(seed);
  return Array.from({ length: n }, () => draw(u));
}

const normalish = (u: () => number) => u() + u() + u() + u() + u() + u() - 3;

Deno.test("bootstrapDistribution: identical to the naive build-sort-compute bootstrap", () => {
  const datasets = [
    sample(1, 37, normalish),
    sample(2, 50, (u) => Math.floor(u() * 5)), // many ties
    sample(3, 8, (u) => -Math.log(1 - u())),
    [4.25],
    [1, 2],
    [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
  ];
  const stats: Statistic[] = [
    { kind: "mean" },
    { kind: "median" },
    { kind: "quantile", p: 0.95 },
    { kind: "quantile", p: 0.05 },
    { kind: "quantile", p: 0.3 },
    { kind: "quantile", p: 0.75 },
  ];
  for (const [d, values] of datasets.entries()) {
    for (const s of stats) {
      const fast = bootstrapDistribution(values, s, 300, 1000 + d);
      const slow = naiveBootstrap(values, s, 300, 1000 + d);
      assert.deepEqual([...fast], slow, `dataset ${d}, ${JSON.stringify(s)}`);
    }
  }
  const flips = sample(4, 40, (u) => (u() < 0.3 ? 1 : 0));
  assert.deepEqual(
    [...bootstrapDistribution(flips, { kind: "proportion" }, 200, 9)],
    naiveBootstrap(flips, { kind: "proportion" }, 200, 9),
  );
});

Deno.test("bootstrapDistribution: same seed, same numbers; another seed, others", () => {
  const values = sample(5, 200, normalish);
  for (const s of [{ kind: "mean" }, { kind: "quantile", p: 0.9 }] as Statistic[]) {
    const a = bootstrapDistribution(values, s, 500, 77);
    const b = bootstrapDistribution(values, s, 500, 77);
    const c = bootstrapDistribution(values, s, 500, 78);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  }
});

Deno.test("bootstrapDistribution: fixed output for a fixed seed (cross-machine vector)", () => {
  // Integers keep every sum exact, so these numbers are independent of summation details.
  const values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
  const got = bootstrapDistribution(values, { kind: "mean" }, 5, 5489);
  const rng = mersenneTwister(5489);
  const want = Array.from({ length: 5 }, () => {
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += values[uniformInt(rng, 0, 9)];
    return sum / 10;
  });
  assert.deepEqual([...got], want);
  // Also what an independent (Python) MT19937 gives with the draw rule spelled out in
  // bootstrap.ts: v = u XOR 2^31, rejected while v >= floor(2^32 / n)·n, index v mod n.
  assert.deepEqual([...got], [2.7, 3.3, 4.8, 5.2, 3.5]);
});

Deno.test("bootstrapDistribution: progress every resamples/100 and at the end", () => {
  const calls: [number, number][] = [];
  bootstrapDistribution([1, 2, 3], { kind: "mean" }, 1000, 1, (d, t) => calls.push([d, t]));
  assert.equal(calls.length, 100);
  assert.deepEqual(calls[0], [10, 1000]);
  assert.deepEqual(calls.at(-1), [1000, 1000]);
  const few: number[] = [];
  bootstrapDistribution([1, 2, 3], { kind: "median" }, 7, 1, (d) => few.push(d));
  assert.deepEqual(few, [1, 2, 3, 4, 5, 6, 7]);
  const odd: number[] = [];
  bootstrapDistribution([1, 2, 3], { kind: "mean" }, 250, 1, (d) => odd.push(d));
  assert.equal(odd.at(-1), 250);
  assert.ok(odd.length >= 100 && odd.length <= 126);
});

Deno.test("percentileInterval: type-7 quantiles of the distribution at α/2, 1 - α/2", () => {
  const dist = Float64Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
  const { low, high } = percentileInterval(dist, 0.95);
  // sorted 0..999: type 7 at 0.025 → 999·0.025 = 24.975, at 0.975 → 974.025
  assert.ok(Math.abs(low - 24.975) < 1e-9);
  assert.ok(Math.abs(high - 974.025) < 1e-9);
  assert.equal(dist[1], 919, "input not modified");
});

Deno.test("bootstrap percentile: large normal-ish sample, sane interval", () => {
  const values = sample(6, 2000, normalish);
  const est = ss.mean(values);
  const { low, high } = percentileInterval(
    bootstrapDistribution(values, { kind: "mean" }, 2000, 3),
    0.95,
  );
  assert.ok(low <= est && est <= high);
  // σ of the sum of 6 uniforms is √(6/12); the half-width should be near 1.96·σ/√n.
  const expected = 1.96 * Math.sqrt(0.5) / Math.sqrt(2000);
  assert.ok(Math.abs((high - low) / 2 - expected) < 0.15 * expected);
  assert.ok(low > -0.1 && high < 0.1);
});

Deno.test("bootstrap: constant data gives the constant exactly", () => {
  const values = new Array(1000).fill(0.1);
  const dist = bootstrapDistribution(values, { kind: "mean" }, 50, 1);
  assert.ok(dist.every((v) => v === ss.mean(values)));
});

Deno.test("bootstrap: argument validation", () => {
  const ok = [1, 2, 3];
  assert.throws(() => bootstrapDistribution([], { kind: "mean" }, 10, 1), UsageError);
  assert.throws(() => bootstrapDistribution(ok, { kind: "mean" }, 0, 1), UsageError);
  assert.throws(() => bootstrapDistribution(ok, { kind: "mean" }, 1.5, 1), UsageError);
  assert.throws(() => bootstrapDistribution(ok, { kind: "mean" }, 1e8, 1), UsageError);
  assert.throws(() => bootstrapDistribution(ok, { kind: "mean" }, 10, -3), UsageError);
  assert.throws(() => bootstrapDistribution(ok, { kind: "proportion" }, 10, 1), UsageError);
  assert.throws(() => percentileInterval(new Float64Array(0), 0.9), UsageError);
  assert.throws(() => percentileInterval(Float64Array.of(1), 1), UsageError);
});
