import assert from "node:assert/strict";
import { estimateInterval, wilsonInterval } from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

// Newcombe RG (1998), "Two-sided confidence intervals for the single proportion: comparison of
// seven methods", Statistics in Medicine 17:857–872, Table I, method 3 (Wilson score, no
// continuity correction), 95%.
const NEWCOMBE: [number, number, string, string][] = [
  [81, 263, "0.2553", "0.3662"],
  [15, 148, "0.0624", "0.1605"],
  [0, 20, "0.0000", "0.1611"],
  [1, 29, "0.0061", "0.1718"],
];

Deno.test("wilsonInterval: Newcombe (1998) examples to 4 d.p.", () => {
  for (const [k, n, low, high] of NEWCOMBE) {
    const r = wilsonInterval(k, n, 0.95);
    assert.equal(r.low.toFixed(4), low, `${k}/${n} low`);
    assert.equal(r.high.toFixed(4), high, `${k}/${n} high`);
  }
});

Deno.test("wilsonInterval: edges and symmetry", () => {
  assert.equal(wilsonInterval(0, 20, 0.95).low, 0);
  assert.equal(wilsonInterval(20, 20, 0.95).high, 1);
  const a = wilsonInterval(3, 29, 0.9);
  const b = wilsonInterval(26, 29, 0.9);
  assert.ok(Math.abs(a.low - (1 - b.high)) < 1e-15 && Math.abs(a.high - (1 - b.low)) < 1e-15);
  // Upper bound for 0 of n is z²/(n + z²).
  const z = 1.959963984540054;
  assert.ok(Math.abs(wilsonInterval(0, 20, 0.95).high - z * z / (20 + z * z)) < 1e-15);
});

Deno.test("estimateInterval wilson: from 0/1 outcomes", () => {
  const outcomes = [...new Array(81).fill(1), ...new Array(263 - 81).fill(0)];
  const r = estimateInterval(outcomes, { kind: "proportion" }, "wilson", {
    confidence: 0.95,
    resamples: 1,
    seed: 0,
  });
  assert.equal(r.estimate, 81 / 263);
  assert.equal(r.low.toFixed(4), "0.2553");
  assert.equal(r.high.toFixed(4), "0.3662");
  assert.equal(r.method, "wilson");
  assert.equal(r.n, 263);
  assert.equal(r.statistic_name, "proportion");
  assert.equal(r.resamples, undefined);
  assert.equal(r.seed, undefined);
});

Deno.test("wilsonInterval: argument validation", () => {
  assert.throws(() => wilsonInterval(5, 4, 0.95), UsageError);
  assert.throws(() => wilsonInterval(-1, 4, 0.95), UsageError);
  assert.throws(() => wilsonInterval(1.5, 4, 0.95), UsageError);
  assert.throws(() => wilsonInterval(0, 0, 0.95), UsageError);
  assert.throws(() => wilsonInterval(1, 4, 1), UsageError);
});
