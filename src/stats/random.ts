/**
 * Seeded randomness: every random draw in the statistics modules comes from pure-rand's MT19937,
 * so results are the same on every machine for a given seed.
 *
 * @module
 */
import { mersenne } from "pure-rand/generator/mersenne";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import { requireSeed } from "./validate.ts";

export type { RandomGenerator };

/**
 * A fresh MT19937 generator (pure-rand) for a seed from 0 to 2^32 - 1; `next()` mutates it and
 * returns the next 32-bit output as a signed integer.
 *
 * @example
 * ```ts
 * import { mersenneTwister } from "./random.ts";
 * // The reference MT19937 sequence for seed 5489 starts 3499211612, 581869302, ...
 * const rng = mersenneTwister(5489);
 * console.assert(rng.next() >>> 0 === 3499211612);
 * console.assert(rng.next() >>> 0 === 581869302);
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
 * import { seededRandom } from "./random.ts";
 * const a = seededRandom(42), b = seededRandom(42);
 * const x = a();
 * console.assert(x >= 0 && x < 1 && x === b());
 * ```
 */
export function seededRandom(seed: number): () => number {
  const rng = mersenneTwister(seed);
  return () => uniformFloat64(rng);
}
