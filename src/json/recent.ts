/**
 * A small cache of recent key sequences per nesting depth, shared by the canonical writer (sorted
 * orders of object shapes) and the parser (object templates). Records repeat the same objects at
 * the same depths, so a few entries per depth, most recent first, catch nearly all of them.
 *
 * @module
 */

/**
 * True when two key sequences are equal, element by element.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sameKeys } from "./recent.ts";
 * assert.ok(sameKeys(["a", "b"], ["a", "b"]));
 * assert.ok(!sameKeys(["a", "b"], ["b", "a"]));
 * ```
 */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Up to `ways` entries per depth, each with its key sequence, most recent first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecentByDepth } from "./recent.ts";
 * const recent = new RecentByDepth<{ keys: string[]; n: number }>(2);
 * recent.add(0, { keys: ["a"], n: 1 });
 * assert.equal(recent.find(0, ["a"])?.n, 1);
 * assert.equal(recent.find(1, ["a"]), undefined);
 * ```
 */
export class RecentByDepth<T extends { readonly keys: readonly string[] }> {
  #slots: (T | undefined)[] = [];

  /** Keep `ways` entries per depth. */
  constructor(readonly ways: number) {}

  /** The entry in slot `way` at `depth` (0 is the most recent); undefined past the last. */
  at(depth: number, way: number): T | undefined {
    return way < this.ways ? this.#slots[depth * this.ways + way] : undefined;
  }

  /** The entry at `depth` whose keys equal `keys`. */
  find(depth: number, keys: readonly string[]): T | undefined {
    const base = depth * this.ways;
    for (let w = 0; w < this.ways; w++) {
      const entry = this.#slots[base + w];
      if (entry === undefined) return undefined;
      if (sameKeys(keys, entry.keys)) return entry;
    }
    return undefined;
  }

  /** Add an entry at `depth` as the most recent; the oldest one there goes. */
  add(depth: number, entry: T): void {
    const base = depth * this.ways;
    for (let w = this.ways - 1; w > 0; w--) this.#slots[base + w] = this.#slots[base + w - 1];
    this.#slots[base] = entry;
  }

  /** Forget every entry. */
  clear(): void {
    this.#slots.length = 0;
  }
}
