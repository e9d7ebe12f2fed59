import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bcaInterval,
  bootstrapDistribution,
  computeStatistic,
  crossCheckStatistic,
  estimateInterval,
  type IntervalMethod,
  jackknifeAcceleration,
  percentileInterval,
  type Statistic,
} from "../../src/stats/mod.ts";

const finite = fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true });
const values = fc.array(finite, { minLength: 1, maxLength: 40 });
const openUnit = fc.double({ min: 0, max: 1, noNaN: true, minExcluded: true, maxExcluded: true });
const statistic: fc.Arbitrary<Statistic> = fc.oneof(
  fc.constant<Statistic>({ kind: "mean" }),
  fc.constant<Statistic>({ kind: "median" }),
  openUnit.map((p): Statistic => ({ kind: "quantile", p })),
);

const min = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b));
const max = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b));

Deno.test("property: a quantile lies within [min, max] and is monotone in p", () => {
  fc.assert(
    fc.property(values, openUnit, openUnit, (xs, p1, p2) => {
      const [a, b] = p1 <= p2 ? [p1, p2] : [p2, p1];
      const qa = computeStatistic(xs, { kind: "quantile", p: a });
      const qb = computeStatistic(xs, { kind: "quantile", p: b });
      assert.ok(min(xs) <= qa && qb <= max(xs));
      assert.ok(qa <= qb);
    }),
    { numRuns: 500, seed: 1 },
  );
});

Deno.test("property: bootstrap intervals have low <= high, both within [min, max]", () => {
  // (low <= estimate <= high can fail for the percentile method on small samples; these
  // properties cannot.)
  const method = fc.constantFrom<IntervalMethod>("bootstrap_percentile", "bootstrap_bca");
  fc.assert(
    fc.property(
      values,
      statistic,
      method,
      fc.double({ min: 0.5, max: 0.999, noNaN: true }),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      (xs, s, m, confidence, seed) => {
        const dist = bootstrapDistribution(xs, s, 60, seed);
        const est = computeStatistic(xs, s);
        const r = m === "bootstrap_percentile"
          ? { ...percentileInterval(dist, confidence), estimate: est }
          : { ...bcaInterval(dist, est, jackknifeAcceleration(xs, s), confidence), estimate: est };
        const lo = min(xs), hi = max(xs);
        assert.ok(r.low <= r.high, `${r.low} > ${r.high}`);
        // A resample's mean can round a hair outside [min, max]; allow one ulp-scale margin.
        const slack = s.kind === "mean" ? 1e-15 * Math.max(Math.abs(lo), Math.abs(hi)) : 0;
        assert.ok(lo - slack <= r.low && r.high <= hi + slack, `[${r.low}, ${r.high}]`);
        assert.ok(lo - slack <= r.estimate && r.estimate <= hi + slack);
      },
    ),
    { numRuns: 300, seed: 2 },
  );
});

Deno.test("property: BCa of a statistic with ties still has low <= high", () => {
  const small = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 2, maxLength: 15 });
  fc.assert(
    fc.property(small, statistic, fc.nat(1000), (xs, s, seed) => {
      const r = estimateInterval(xs, s, "bootstrap_bca", { confidence: 0.9, resamples: 40, seed });
      assert.ok(r.low <= r.high);
    }),
    { numRuns: 300, seed: 3 },
  );
});

Deno.test("property: Wilson and t intervals contain the estimate", () => {
  const flips = fc.array(fc.constantFrom(0, 1), { minLength: 1, maxLength: 200 });
  fc.assert(
    fc.property(flips, openUnit, (xs, confidence) => {
      const r = estimateInterval(xs, { kind: "proportion" }, "wilson", {
        confidence,
        resamples: 1,
        seed: 0,
      });
      assert.ok(0 <= r.low && r.low <= r.estimate && r.estimate <= r.high && r.high <= 1);
    }),
    { numRuns: 300, seed: 4 },
  );
  fc.assert(
    fc.property(fc.array(finite, { minLength: 2, maxLength: 40 }), openUnit, (xs, confidence) => {
      const r = estimateInterval(xs, { kind: "mean" }, "t", { confidence, resamples: 1, seed: 0 });
      assert.ok(r.low <= r.estimate && r.estimate <= r.high);
    }),
    { numRuns: 300, seed: 5 },
  );
});

Deno.test("property: the jStat cross-check agrees with every computed estimate", () => {
  fc.assert(
    fc.property(values, statistic, (xs, s) => {
      const c = crossCheckStatistic(xs, s, computeStatistic(xs, s));
      assert.ok(c.agrees, c.text);
    }),
    { numRuns: 500, seed: 6 },
  );
});
