import assert from "node:assert/strict";
import fc from "fast-check";
import * as ss from "simple-statistics";
import { sortWithRanks, type7Position, type7Value } from "../../src/stats/quantile.ts";

Deno.test("type7: identical (===) to simple-statistics quantile", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 60 }),
      fc.double({ min: 0, max: 1, noNaN: true, minExcluded: true, maxExcluded: true }),
      (xs, p) => {
        const sorted = xs.slice().sort((a, b) => a - b);
        const pos = type7Position(xs.length, p);
        const got = type7Value(pos, sorted[pos.lower], sorted[pos.upper]);
        const want = ss.quantile(xs, p);
        assert.ok(got === want, `${got} !== ${want}`);
      },
    ),
    { numRuns: 2000, seed: 11 },
  );
});

Deno.test("type7Position: exact positions and interpolation", () => {
  assert.deepEqual(type7Position(5, 0.5), { lower: 2, upper: 2, fraction: 0, exact: true });
  const pos = type7Position(4, 0.5);
  assert.equal(pos.lower, 1);
  assert.equal(pos.upper, 2);
  assert.equal(pos.fraction, 0.5);
  assert.equal(type7Value(pos, 2, 3), 2.5);
});

Deno.test("sortWithRanks: ranks map values to their sorted positions, ties distinct", () => {
  const xs = [5, 1, 5, 3, 1];
  const { sorted, rank } = sortWithRanks(xs);
  assert.deepEqual([...sorted], [1, 1, 3, 5, 5]);
  assert.deepEqual([...rank], [3, 0, 4, 2, 1]);
  for (let i = 0; i < xs.length; i++) assert.equal(sorted[rank[i]], xs[i]);
});
