import assert from "node:assert/strict";
import { estimateInterval, studentTQuantile, tInterval } from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

// Student (1908) sleep data as in R's `sleep`: extra hours of sleep, drug 2 minus drug 1.
const SLEEP_DIFF = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4];

Deno.test("tInterval: R t.test paired sleep example, 95% CI 0.7001142 to 2.4598858", () => {
  const r = tInterval(SLEEP_DIFF, 0.95);
  assert.ok(Math.abs(r.estimate - 1.58) < 1e-12);
  assert.ok(Math.abs(r.low - 0.7001142) < 5e-7, String(r.low));
  assert.ok(Math.abs(r.high - 2.4598858) < 5e-7, String(r.high));
  assert.equal(r.low.toFixed(6), "0.700114");
  assert.equal(r.high.toFixed(6), "2.459886");
});

Deno.test("estimateInterval t: recorded as method t; refused on the skewed sleep data", () => {
  const opts = { confidence: 0.95, resamples: 1000, seed: 1 };
  // The sleep differences are skewed (g1 = 1.47): the t interval's level is not to be trusted.
  const skewed = estimateInterval(SLEEP_DIFF, { kind: "mean" }, "t", opts);
  assert.match(skewed.refused!, /skewed data \(sample skewness 1\.47/);
  // A symmetric sample: the same formula as tInterval.
  const sym = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 1.4, 1.6, 2.0, 0.6];
  const r = estimateInterval(sym, { kind: "mean" }, "t", opts);
  const direct = tInterval(sym, 0.95);
  assert.equal(r.method, "t");
  assert.equal(r.refused, undefined);
  assert.deepEqual([r.low, r.high], [direct.low, direct.high]);
  assert.equal(r.statistic_name, "mean");
  assert.equal(r.library, "empiric");
  assert.equal(r.library_version, "0.1.0");
  assert.equal(r.estimate_library?.name, "simple-statistics");
  assert.equal(r.distribution_library?.name, "@stdlib/stats-base-dists");
  assert.equal(r.resamples, undefined);
});

// Exact quantiles from the closed-form t CDF for integer df (Abramowitz & Stegun 26.7.3/4),
// inverted by bisection in double precision.
const T_QUANTILES: [number, number, number][] = [
  [0.975, 1, 12.706204736174676],
  [0.975, 2, 4.302652729749459],
  [0.975, 9, 2.2621571627982044],
  [0.95, 10, 1.8124611228116754],
  [0.995, 30, 2.7499956535672174],
  [0.975, 100, 1.9839715185235463],
  [0.9995, 999, 3.300292440397766],
];

Deno.test("studentTQuantile: stdlib-js within 1e-12 relative of exact values", () => {
  for (const [p, df, t] of T_QUANTILES) {
    const got = studentTQuantile(p, df);
    assert.ok(Math.abs(got / t - 1) < 1e-12, `t(${p}, ${df}) = ${got}, want ${t}`);
    assert.ok(Math.abs(studentTQuantile(1 - p, df) / -t - 1) < 1e-12);
  }
});

Deno.test("tInterval: zero spread and validation", () => {
  assert.deepEqual(tInterval([2, 2, 2], 0.9), { estimate: 2, low: 2, high: 2 });
  assert.throws(() => tInterval([1], 0.95), UsageError);
  assert.throws(() => tInterval([], 0.95), UsageError);
  assert.throws(() => tInterval([1, 2], 1.2), UsageError);
  assert.throws(() => studentTQuantile(0.9, 0), UsageError);
  assert.throws(() => studentTQuantile(0, 5), UsageError);
});
