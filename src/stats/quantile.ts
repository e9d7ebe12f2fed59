/**
 * Type-7 quantile positions (R's default, numpy's "linear"): h = (n - 1)·p, interpolating between
 * order statistics ⌊h⌋ and ⌈h⌉. The arithmetic mirrors simple-statistics' `quantileSorted`
 * operation for operation, so values computed here from order statistics found some other way
 * (bootstrap counts, jackknife shifts) are bit-identical to simple-statistics on sorted data.
 *
 * @module
 */

/** Where a type-7 quantile sits among n sorted values. */
export interface Type7Position {
  /** 0-based index of the lower order statistic. */
  readonly lower: number;
  /** 0-based index of the upper order statistic (`lower + 1`, or `lower` when exact). */
  readonly upper: number;
  /** Interpolation weight of the upper order statistic. */
  readonly fraction: number;
  /** True when h is an integer: the quantile is the lower order statistic itself. */
  readonly exact: boolean;
}

/**
 * The type-7 position of quantile p (0 < p < 1) in n ≥ 1 sorted values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type7Position } from "./quantile.ts";
 * const pos = type7Position(10, 0.95); // h = 8.55
 * assert.equal(pos.lower, 8);
 * assert.equal(pos.upper, 9);
 * assert.ok(!pos.exact);
 * ```
 */
export function type7Position(n: number, p: number): Type7Position {
  const h = (n - 1) * p;
  if (h % 1 !== 0) {
    const lower = Math.floor(h);
    return { lower, upper: Math.ceil(h), fraction: h - lower, exact: false };
  }
  return { lower: h, upper: h, fraction: 0, exact: true };
}

/**
 * The type-7 quantile at `pos` from its lower and upper order statistics.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type7Position, type7Value } from "./quantile.ts";
 * const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
 * const pos = type7Position(sorted.length, 0.95);
 * assert.ok(Math.abs(type7Value(pos, sorted[pos.lower], sorted[pos.upper]) - 9.55) < 1e-12);
 * ```
 */
export function type7Value(pos: Type7Position, lowerValue: number, upperValue: number): number {
  return pos.exact ? lowerValue : lowerValue + pos.fraction * (upperValue - lowerValue);
}

/**
 * Sort a copy of the values ascending and give each original index its rank (its position in the
 * sorted copy; tied values get distinct ranks).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sortWithRanks } from "./quantile.ts";
 * const { sorted, rank } = sortWithRanks([30, 10, 20]);
 * assert.equal(sorted.join(), "10,20,30");
 * assert.equal(rank.join(), "2,0,1");
 * ```
 */
export function sortWithRanks(
  values: readonly number[],
): { sorted: Float64Array; rank: Uint32Array } {
  const n = values.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a] - values[b] || a - b);
  const sorted = new Float64Array(n);
  const rank = new Uint32Array(n);
  for (let r = 0; r < n; r++) {
    sorted[r] = values[order[r]];
    rank[order[r]] = r;
  }
  return { sorted, rank };
}

/**
 * The type-7 quantile at `pos` of the multiset holding `counts[r]` copies of `sorted[r]` (a
 * resample counted by rank), walking the counts from the nearer end (`fromTop`).
 */
export function quantileFromCounts(
  sorted: Float64Array,
  counts: Uint32Array,
  pos: Type7Position,
  fromTop: boolean,
): number {
  const n = sorted.length;
  let lowerValue: number;
  let upperValue: number;
  if (fromTop) {
    let r = n - 1;
    let end = n;
    while (end - counts[r] > pos.upper) end -= counts[r--];
    upperValue = sorted[r];
    if (end - counts[r] <= pos.lower) {
      lowerValue = upperValue;
    } else {
      r--;
      while (counts[r] === 0) r--;
      lowerValue = sorted[r];
    }
  } else {
    let r = 0;
    let below = 0;
    while (below + counts[r] <= pos.lower) below += counts[r++];
    lowerValue = sorted[r];
    if (below + counts[r] > pos.upper) {
      upperValue = lowerValue;
    } else {
      r++;
      while (counts[r] === 0) r++;
      upperValue = sorted[r];
    }
  }
  return type7Value(pos, lowerValue, upperValue);
}
