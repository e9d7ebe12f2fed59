import assert from "node:assert/strict";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import {
  drawIndex,
  indexLimit,
  MAX_SEED,
  mersenneTwister,
  seededRandom,
} from "../../src/stats/mod.ts";
import { UsageError } from "../../src/errors/errors.ts";

Deno.test("MT19937: reference output vector for seed 5489 (std::mt19937 default)", () => {
  const rng = mersenneTwister(5489);
  const first = Array.from({ length: 10 }, () => rng.next() >>> 0);
  assert.deepEqual(first, [
    3499211612,
    581869302,
    3890346734,
    3586334585,
    545404204,
    4161255391,
    3922919429,
    949333985,
    2715962298,
    1323567403,
  ]);
  // C++11 [rand.predef]: the 10000th consecutive output of a default mt19937 is 4123659995.
  for (let i = 11; i < 10000; i++) rng.next();
  assert.equal(rng.next() >>> 0, 4123659995);
});

Deno.test("seededRandom: deterministic, in [0, 1), built from two MT outputs", () => {
  const a = seededRandom(5489);
  const b = seededRandom(5489);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(xs, Array.from({ length: 1000 }, () => b()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  // pure-rand's uniformFloat64 makes the first value from the first two outputs o1, o2:
  // (o1 & (2^26 - 1))·2^-26 + (o2 & (2^27 - 1))·2^-53.
  const o1 = 3499211612, o2 = 581869302;
  assert.equal(xs[0], (o1 & 0x3ffffff) * 2 ** -26 + (o2 & 0x7ffffff) * 2 ** -53);
  const c = seededRandom(5490);
  assert.notEqual(c(), xs[0]);
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(mean - 0.5) < 0.05);
});

Deno.test("seeds: integers from 0 to 2^32 - 1 only", () => {
  mersenneTwister(0);
  mersenneTwister(MAX_SEED);
  for (const seed of [-1, 2 ** 32, 1.5, NaN, Infinity, "1" as unknown as number]) {
    assert.throws(() => mersenneTwister(seed), UsageError);
    assert.throws(() => seededRandom(seed), UsageError);
  }
});

Deno.test("drawIndex: same draws as pure-rand uniformInt(rng, 0, n - 1)", () => {
  const sizes = [1, 2, 3, 7, 10, 1000, 10_000, 65_537, 2 ** 31 - 1, 2 ** 31 + 1, 3e9, 2 ** 32];
  for (const n of sizes) {
    const a = mersenneTwister(123);
    const b = mersenneTwister(123);
    const limit = indexLimit(n);
    for (let i = 0; i < 20_000; i++) {
      const got = drawIndex(a, n, limit);
      assert.equal(got, uniformInt(b, 0, n - 1), `n = ${n}, draw ${i}`);
      assert.ok(Number.isInteger(got) && got >= 0 && got < n);
    }
    // Both consumed the same generator outputs.
    assert.equal(a.next(), b.next());
  }
});

Deno.test("indexLimit: rejects ranges pure-rand's 32-bit path does not cover", () => {
  for (const n of [0, -1, 1.5, 2 ** 32 + 1, NaN]) assert.throws(() => indexLimit(n), UsageError);
});
