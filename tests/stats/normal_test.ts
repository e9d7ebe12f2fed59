import assert from "node:assert/strict";
import * as ss from "simple-statistics";
import { normalCdf, normalPdf, normalQuantile } from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

// Φ(x) from glibc erfc via Python, 0.5·erfc(-x/√2), with the rounding of x/√2 corrected to first
// order (exact to a few ulp).
const CDF: [number, number][] = [
  [-37, 5.7255712225245764e-300],
  [-20, 2.7536241186062334e-89],
  [-8, 6.220960574271784e-16],
  [-5, 2.8665157187919396e-7],
  [-3, 0.0013498980316300946],
  [-1.959963984540054, 0.025000000000000012],
  [-1, 0.15865525393145705],
  [-0.5, 0.3085375387259869],
  [0.25, 0.5987063256829237],
  [1, 0.8413447460685429],
  [2.5, 0.9937903346742238],
  [6, 0.9999999990134123],
];

Deno.test("normalCdf: matches reference values (relative 1e-15 in the lower tail)", () => {
  for (const [x, want] of CDF) {
    const got = normalCdf(x);
    const err = Math.abs(got - want);
    assert.ok(err <= Math.max(2.3e-16, 1e-15 * want), `Φ(${x}) = ${got}, want ${want}`);
  }
  assert.equal(normalCdf(0), 0.5);
  assert.equal(normalCdf(-40), 0);
  assert.equal(normalCdf(40), 1);
  assert.equal(normalCdf(Infinity), 1);
  assert.equal(normalCdf(-Infinity), 0);
  assert.ok(Number.isNaN(normalCdf(NaN)));
});

Deno.test("normalCdf: symmetric and monotone", () => {
  let previous = 0;
  for (let x = -10; x <= 10; x += 0.01) {
    const v = normalCdf(x);
    assert.ok(v >= previous, `not monotone at ${x}`);
    assert.ok(Math.abs(v + normalCdf(-x) - 1) < 3e-16, `not symmetric at ${x}`);
    previous = v;
  }
});

Deno.test("normalPdf: known values", () => {
  assert.ok(Math.abs(normalPdf(0) - 0.3989422804014327) < 1e-17);
  assert.ok(Math.abs(normalPdf(1) / 0.24197072451914337 - 1) < 1e-15);
  assert.ok(Math.abs(normalPdf(-30) / 1.4736461348785476e-196 - 1) < 1e-14);
});

Deno.test("normalQuantile: known values, far more accurate than ss.probit alone", () => {
  const known: [number, number][] = [
    [0.975, 1.959963984540054],
    [0.95, 1.6448536269514722],
    [0.995, 2.5758293035489004],
    [0.999, 3.090232306167813],
    [0.8413447460685429, 1],
  ];
  for (const [p, z] of known) {
    assert.ok(Math.abs(normalQuantile(p) - z) < 3e-15, `Φ⁻¹(${p}) = ${normalQuantile(p)}`);
    assert.ok(Math.abs(normalQuantile(1 - p) + z) < 3e-15);
  }
  // What the polish fixes: simple-statistics' closed form is off in the third decimal.
  assert.ok(Math.abs(ss.probit(0.975) - 1.959963984540054) > 1e-3);
  assert.equal(normalQuantile(0.5), 0);
});

Deno.test("normalQuantile: inverts normalCdf from 1e-300 to 1 - 1e-16", () => {
  for (let e = -300; e <= -1; e += 7) {
    const p = 10 ** e;
    const z = normalQuantile(p);
    assert.ok(Math.abs(normalCdf(z) / p - 1) < 1e-12, `p = ${p}`);
  }
  for (let p = 0.001; p < 1; p += 0.001) {
    assert.ok(Math.abs(normalCdf(normalQuantile(p)) - p) < 4e-16, `p = ${p}`);
  }
});

Deno.test("normalQuantile: rejects p outside (0, 1)", () => {
  for (const p of [0, 1, -0.1, 1.5, NaN, Infinity]) {
    assert.throws(() => normalQuantile(p), UsageError);
  }
});
