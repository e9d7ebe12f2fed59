/**
 * The pre-registered order of an interleaved comparison (`--baseline-substrate`): both substrates
 * are measured item by item in one run, so that drift of the machine (a noisy neighbour, thermal
 * throttling, a cache warming up) hits both sides alike. Which side goes first for each item is
 * drawn from a seeded stream fixed by the scenario, so the order is known before the run, differs
 * between items (no side always pays the other's after-effects), and anyone can recompute it:
 *
 * for measured item i (0-based), take the i-th 32-bit output of MT19937 seeded with
 * `analysis.seed XOR 0x9E3779B9` (reference `init_genrand`); the candidate goes first when its
 * top bit is 0, the baseline first otherwise. Warm-up items alternate, candidate first.
 *
 * @module
 */
import { mersenneTwister } from "../stats/random.ts";

/** Mixed into `analysis.seed` so the order stream differs from every pillar's bootstrap stream. */
export const INTERLEAVE_SEED_MIX = 0x9e3779b9;

/** The MT19937 seed of the interleaving order. */
export function interleaveSeed(seed: number): number {
  return (seed ^ INTERLEAVE_SEED_MIX) >>> 0;
}

/**
 * For each of n measured items: true when the candidate is called first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { candidateFirst } from "./interleave.ts";
 * const order = candidateFirst(42, 1000);
 * assert.equal(order.length, 1000);
 * const share = order.filter(Boolean).length / 1000;
 * assert.ok(share > 0.45 && share < 0.55);
 * assert.deepEqual(candidateFirst(42, 5), order.slice(0, 5));
 * ```
 */
export function candidateFirst(seed: number, n: number): boolean[] {
  const rng = mersenneTwister(interleaveSeed(seed));
  const out = new Array<boolean>(n);
  for (let i = 0; i < n; i++) out[i] = (rng.next() >>> 31) === 0;
  return out;
}

/** The scheme as the plan text states it. */
export function interleaveText(seed: number): string {
  return `both substrates are measured in one run, item by item: for measured item i the candidate is called first when the top bit of the i-th 32-bit output of MT19937 seeded with ${
    interleaveSeed(seed)
  } (seed XOR 0x9E3779B9) is 0, else the baseline first; warm-up items alternate, candidate first; every lane of each substrate is started and primed before measuring`;
}
