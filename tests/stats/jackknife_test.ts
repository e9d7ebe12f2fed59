import assert from "node:assert/strict";
import * as ss from "simple-statistics";
import {
  jackknifeAcceleration,
  jackknifeValues,
  seededRandom,
  type Statistic,
} from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

function bruteForce(values: number[], s: Statistic): number[] {
  return values.map((_, i) => {
    const rest = values.filter((_, j) => j !== i);
    switch (s.kind) {
      case "mean":
      case "proportion":
        return ss.mean(rest);
      case "median":
        return ss.median(rest);
      case "quantile":
        return ss.quantile(rest, s.p);
    }
  });
}

function bruteAcceleration(thetas: number[]): number {
  const m = ss.mean(thetas);
  let s2 = 0, s3 = 0;
  for (const t of thetas) {
    s2 += (m - t) ** 2;
    s3 += (m - t) ** 3;
  }
  return s2 === 0 ? 0 : s3 / (6 * s2 ** 1.5);
}

const u = seededRandom(99);
const DATA = [
  Array.from({ length: 41 }, () => u() * 10),
  Array.from({ length: 30 }, () => Math.floor(u() * 4)),
  Array.from({ length: 12 }, () => -Math.log(1 - u())),
  [2, 7],
  [5, 5, 5],
];
const STATS: Statistic[] = [
  { kind: "mean" },
  { kind: "median" },
  { kind: "quantile", p: 0.95 },
  { kind: "quantile", p: 0.1 },
  { kind: "quantile", p: 0.5 },
  { kind: "quantile", p: 0.37 },
];

Deno.test("jackknifeValues: equal to recomputing without each value", () => {
  for (const values of DATA) {
    for (const s of STATS) {
      const fast = [...jackknifeValues(values, s)];
      const slow = bruteForce(values, s);
      for (let i = 0; i < values.length; i++) {
        const tol = s.kind === "mean" ? 1e-12 * Math.max(1, Math.abs(slow[i])) : 0;
        assert.ok(Math.abs(fast[i] - slow[i]) <= tol, `${JSON.stringify(s)} i=${i}`);
      }
    }
  }
});

Deno.test("jackknifeAcceleration: matches the definition; sign follows the skew", () => {
  for (const values of DATA) {
    for (const s of STATS) {
      const a = jackknifeAcceleration(values, s);
      const want = bruteAcceleration(bruteForce(values, s));
      assert.ok(Math.abs(a - want) <= 1e-9 * Math.max(1e-3, Math.abs(want)), JSON.stringify(s));
    }
  }
  assert.equal(jackknifeAcceleration([1, 2, 3, 4, 5], { kind: "mean" }), 0);
  assert.ok(jackknifeAcceleration([1, 1, 1, 1, 20], { kind: "mean" }) > 0);
  assert.ok(jackknifeAcceleration([-20, 1, 1, 1, 1], { kind: "mean" }) < 0);
  assert.equal(jackknifeAcceleration([3], { kind: "mean" }), 0);
  assert.equal(jackknifeAcceleration([3, 3, 3], { kind: "median" }), 0);
  assert.ok(jackknifeAcceleration([0, 0, 0, 1], { kind: "proportion" }) > 0);
});

Deno.test("jackknife: large inputs give finite accelerations (speed is measured in bench/run.ts)", () => {
  const big = Array.from({ length: 100_000 }, () => u());
  for (const s of STATS) assert.ok(Number.isFinite(jackknifeAcceleration(big, s)));
});

Deno.test("jackknife: argument validation", () => {
  assert.throws(() => jackknifeValues([1], { kind: "mean" }), UsageError);
  assert.throws(() => jackknifeValues([1, NaN], { kind: "mean" }), UsageError);
  assert.throws(() => jackknifeValues([0, 2], { kind: "proportion" }), UsageError);
  assert.throws(() => jackknifeAcceleration([], { kind: "mean" }), UsageError);
});
