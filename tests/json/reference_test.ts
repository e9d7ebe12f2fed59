// The fast canonical writer (src/json/canonical.ts: one reusable byte buffer, cached quoted
// keys, cached sorted orders of object shapes) against the plain reference (src/json/
// reference.ts): the same text, or the same error code at the same JSON pointer, for random
// values whose object shapes repeat as records' do, and for values with a bad leaf somewhere.
import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalBytes, canonicalize } from "../../src/json/canonical.ts";
import { canonicalizeReference } from "../../src/json/reference.ts";
import { type JsonValue, PyInt } from "../../src/json/value.ts";
import { WireError } from "../../src/errors/mod.ts";
import { wireValue } from "../support/arbitraries.ts";
import { signedBenchRecord } from "../../bench/records.ts";

type Outcome = { text: string } | { code: string; pointer: string | undefined };

function run(f: (v: JsonValue) => string, v: JsonValue): Outcome {
  try {
    return { text: f(v) };
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    return { code: e.code, pointer: e.pointer };
  }
}

// Keys from a small pool (some sort differently by code point than by UTF-16 unit), so that
// shapes repeat and their cached orders are reused.
const key = fc.constantFrom("a", "b", "id", "é", "\u{1F600}", "\uFB01", "", "z9", "__proto__");
const shape = fc.uniqueArray(key, { minLength: 0, maxLength: 6 });
const bad: fc.Arbitrary<JsonValue> = fc.constantFrom<JsonValue>(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2n ** 63n,
  new PyInt(-(2n ** 63n) - 1n),
  "x\ud800y",
  "\udc00",
  undefined as unknown as JsonValue,
  new Date(0) as unknown as JsonValue,
);
const leaf = fc.oneof({ weight: 30, arbitrary: wireValue }, { weight: 1, arbitrary: bad });
// The same few shapes, filled again and again: an array of objects, as evidence entries are.
const repeated = fc.tuple(fc.array(shape, { minLength: 1, maxLength: 3 }), fc.nat(8)).chain((
  [shapes, times],
) =>
  fc.array(
    fc.constantFrom(...shapes).chain((keys) =>
      fc.tuple(...keys.map(() => leaf)).map((values) => {
        const o: Record<string, JsonValue> = {};
        keys.forEach((k, i) =>
          Object.defineProperty(o, k, {
            value: values[i],
            enumerable: true,
            writable: true,
            configurable: true,
          })
        );
        return o as JsonValue;
      })
    ),
    { minLength: times, maxLength: times + 2 },
  )
);

Deno.test("fast writer == reference: 10,000 random values", () => {
  fc.assert(
    fc.property(wireValue, (v) => {
      assert.deepEqual(run(canonicalize, v), run(canonicalizeReference, v));
    }),
    { numRuns: 10_000, seed: 20261123 },
  );
});

Deno.test("fast writer == reference: repeated shapes, with bad leaves at random places", () => {
  fc.assert(
    fc.property(repeated, (v) => {
      assert.deepEqual(run(canonicalize, v), run(canonicalizeReference, v));
    }),
    { numRuns: 3_000, seed: 20261123 },
  );
});

Deno.test("fast writer == reference: signed records of 9 and 2,100 pillars, bytes too", async () => {
  for (const pillars of [9, 2100]) {
    const record = await signedBenchRecord(pillars);
    const text = canonicalizeReference(record);
    assert.equal(canonicalize(record), text);
    assert.deepEqual(canonicalBytes(record), new TextEncoder().encode(text));
  }
});

Deno.test("fast writer == reference: a large object (past the shape cache) and deep nesting", () => {
  const big: Record<string, JsonValue> = {};
  for (let i = 0; i < 300; i++) big[`k${(i * 7919) % 1000}`] = i % 2 ? BigInt(i) : i / 3;
  assert.equal(canonicalize(big), canonicalizeReference(big));
  let deep: JsonValue = 1n;
  for (let i = 0; i < 600; i++) deep = [deep];
  assert.deepEqual(run(canonicalize, deep), run(canonicalizeReference, deep));
  assert.equal((run(canonicalize, deep) as { code: string }).code, "depth_exceeded");
});
