/**
 * Seeded randomness: every random draw in the statistics modules comes from pure-rand's MT19937,
 * so results are the same on every machine for a given seed.
 *
 * @module
 */
import { mersenne } from "pure-rand/generator/mersenne";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import { UsageError } from "../errors/errors.ts";
import { requireSeed } from "./validate.ts";

export type { RandomGenerator };

/**
 * A fresh MT19937 generator (pure-rand) for a seed from 0 to 2^32 - 1; `next()` mutates it and
 * returns the next 32-bit output as a signed integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mersenneTwister } from "./random.ts";
 * // The reference MT19937 sequence for seed 5489 starts 3499211612, 581869302, ...
 * const rng = mersenneTwister(5489);
 * assert.equal(rng.next() >>> 0, 3499211612);
 * assert.equal(rng.next() >>> 0, 581869302);
 * ```
 */
export function mersenneTwister(seed: number): RandomGenerator {
  requireSeed(seed);
  return mersenne(seed);
}

/**
 * A seeded uniform generator on [0, 1): MT19937 (pure-rand), 53 random bits per value from two
 * 32-bit outputs (pure-rand's `uniformFloat64`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { seededRandom } from "./random.ts";
 * const a = seededRandom(42), b = seededRandom(42);
 * const x = a();
 * assert.ok(x >= 0);
 * assert.ok(x < 1);
 * assert.equal(x, b());
 * ```
 */
export function seededRandom(seed: number): () => number {
  const rng = mersenneTwister(seed);
  return () => uniformFloat64(rng);
}

/**
 * The rejection limit pure-rand's `uniformInt(rng, 0, n - 1)` uses for n from 1 to 2^32: the
 * largest multiple of n not above 2^32 (2^32 itself for n ≤ 2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexLimit } from "./random.ts";
 * assert.equal(indexLimit(10_000), 4_294_960_000);
 * assert.equal(indexLimit(2), 2 ** 32);
 * ```
 */
export function indexLimit(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 0x1_0000_0000) {
    throw new UsageError(`index range must be an integer from 1 to 2^32, got ${String(n)}`);
  }
  return n > 2 ? Math.floor(0x1_0000_0000 / n) * n : 0x1_0000_0000;
}

/**
 * A uniform index in [0, n): the same draw, consuming the same generator outputs, as pure-rand's
 * `uniformInt(rng, 0, n - 1)` (tested draw for draw), with `limit = indexLimit(n)` computed once.
 * pure-rand reduces with a floating-point `%`, which V8 runs as a slow `fmod`; here the remainder
 * is `v - floor(v / n)·n`, exact for v < 2^32, which halves the cost of a bootstrap.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { drawIndex, indexLimit, mersenneTwister } from "./random.ts";
 * import { uniformInt } from "pure-rand/distribution/uniformInt";
 * const a = mersenneTwister(7), b = mersenneTwister(7), limit = indexLimit(10);
 * for (let i = 0; i < 100; i++) assert.equal(drawIndex(a, 10, limit), uniformInt(b, 0, 9));
 * ```
 */
export function drawIndex(rng: RandomGenerator, n: number, limit: number): number {
  let v = rng.next() + 0x8000_0000;
  while (v >= limit) v = rng.next() + 0x8000_0000;
  return v - Math.floor(v / n) * n;
}
