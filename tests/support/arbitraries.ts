// fast-check arbitraries for typed wire-format values, shared by the property tests.
import fc from "fast-check";
import { INT_MAX, INT_MIN, type JsonValue, setMember } from "../../src/json/mod.ts";

/** Any string of Unicode scalar values (no lone surrogates), biased to interesting ranges. */
export const wireString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: "grapheme-ascii", maxLength: 12 }),
  fc.constantFrom("", "a", "\u007f", "\u0000", '"\\/', "\ud83d\ude00", "\uffff", "\ue000", "é"),
);

/** Ints over the whole -2^63 .. 2^63-1 range, with small values and the bounds favoured. */
export const wireInt: fc.Arbitrary<bigint> = fc.oneof(
  fc.bigInt({ min: INT_MIN, max: INT_MAX }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.constantFrom(INT_MIN, INT_MAX, 0n, 2n ** 53n + 1n),
);

/** Finite doubles, including -0.0, subnormals and integral values. */
export const wireFloat: fc.Arbitrary<number> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 8),
  fc.constantFrom(0, -0, 1e16, 1e-5, 1e-4, 5e-324, 1.7976931348623157e308, 1e21, 1e-7),
);

/** Typed values nested up to a few levels. */
export const wireValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    wireInt,
    wireFloat,
    wireString,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.array(fc.tuple(wireString, tie("value")), { maxLength: 5 }).map((pairs) => {
      const o: Record<string, JsonValue> = {};
      for (const [k, v] of pairs) setMember(o, k, v);
      return o;
    }),
  ),
})).value;

/** The typed-tree encoding used by fixtures/wire/vectors.json and the Python oracle. */
export function toTyped(v: JsonValue): unknown {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return { int: v.toString() };
  if (typeof v === "number") return { float: Object.is(v, -0) ? "-0.0" : String(v) };
  if (Array.isArray(v)) return v.map(toTyped);
  if (typeof v === "object" && "value" in v && typeof v.value === "bigint") {
    return { int: v.value.toString() };
  }
  return {
    object: Object.entries(v as Record<string, JsonValue>).map(([k, x]) => [k, toTyped(x)]),
  };
}
