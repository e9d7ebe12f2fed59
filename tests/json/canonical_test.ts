import assert from "node:assert/strict";
import fc from "fast-check";
import {
  canonicalBytes,
  canonicalBytesCut,
  canonicalize,
  compareCodePoints,
  floatRepr,
  type JsonObject,
  PyInt,
} from "../../src/json/mod.ts";
import { wireString, wireValue } from "../support/arbitraries.ts";
import { WireError } from "../../src/errors/mod.ts";

function rejects(v: unknown, code: string, pointer: string) {
  assert.throws(() => canonicalize(v as never), (e: unknown) => {
    assert.ok(e instanceof WireError);
    assert.equal(e.code, code);
    assert.equal(e.pointer, pointer);
    return true;
  });
}

Deno.test("canonicalize: ints as bigint or PyInt, floats as number", () => {
  assert.equal(
    canonicalize([1n, new PyInt(2), new PyInt("-3"), 4, -0, 0.5]),
    "[1,2,-3,4.0,-0.0,0.5]",
  );
  assert.equal(canonicalize({ n: new PyInt(9007199254740993n) }), '{"n":9007199254740993}');
});

Deno.test("canonicalize: errors carry the JSON pointer of the offending value", () => {
  rejects({ a: [1n, { "x/y": NaN }] }, "non_finite_number", "/a/1/x~1y");
  rejects({ b: 2n ** 63n }, "int_out_of_range", "/b");
  rejects({ z: 1n, a: Infinity }, "non_finite_number", "/a");
  rejects(["ok", "bad\ud800"], "lone_surrogate", "/1");
  rejects({ ["k\udc00"]: 1n }, "lone_surrogate", "/k\udc00");
  rejects({ u: undefined }, "unsupported_type", "/u");
  rejects({ d: new Date(0) }, "unsupported_type", "/d");
  rejects([() => 1], "unsupported_type", "/0");
  rejects(new PyInt(-(2n ** 63n) - 1n), "int_out_of_range", "");
});

Deno.test("canonicalize: nesting is bounded at 512", () => {
  let ok: unknown = [];
  for (let i = 1; i < 512; i++) ok = [ok];
  assert.equal(canonicalize(ok as never).length, 1024);
  rejects([ok], "depth_exceeded", "/0".repeat(512));
});

Deno.test("canonicalize: __proto__ and integer-like keys", () => {
  const o = JSON.parse('{"__proto__": 1, "10": 2, "9": 3}');
  assert.equal(canonicalize(o), '{"10":2.0,"9":3.0,"__proto__":1.0}');
});

Deno.test("canonicalize: keys sort by code point across U+FFFF", () => {
  assert.equal(canonicalize({ "\u{1F600}": 1n, "\uffff": 2n }), '{"\\uffff":2,"\\ud83d\\ude00":1}');
  assert.ok(compareCodePoints("\uffff", "\u{10000}") < 0);
  assert.ok(compareCodePoints("a", "ab") < 0);
  assert.equal(compareCodePoints("x", "x"), 0);
});

Deno.test("canonicalBytes: ASCII, no newline", () => {
  const b = canonicalBytes({ s: "é\n" });
  assert.equal(new TextDecoder().decode(b), '{"s":"\\u00e9\\n"}');
  assert.ok(b.every((x) => x < 0x80));
});

Deno.test("floatRepr: Python repr layout at every boundary", () => {
  const cases: [number, string][] = [
    [1, "1.0"],
    [0.1, "0.1"],
    [1e16, "1e+16"],
    [9999999999999998, "9999999999999998.0"],
    [1e15, "1000000000000000.0"],
    [0.0001, "0.0001"],
    [0.00009999999999999999, "9.999999999999999e-05"],
    [1e-5, "1e-05"],
    [1e-7, "1e-07"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [-1.5e-10, "-1.5e-10"],
    [123456789012345678, "1.2345678901234568e+17"],
    [1e21, "1e+21"],
    [1e22, "1e+22"],
    [-0, "-0.0"],
    [0, "0.0"],
    [2 ** 63, "9.223372036854776e+18"],
    [-2.5, "-2.5"],
  ];
  for (const [x, s] of cases) assert.equal(floatRepr(x), s, String(x));
  assert.throws(() => floatRepr(NaN), { code: "non_finite_number" });
  assert.throws(() => floatRepr(-Infinity), { code: "non_finite_number" });
});

Deno.test("canonicalBytesCut: the bytes around the cut are canonical(value without the member)", () => {
  const dec = new TextDecoder();
  const obj = fc.dictionary(wireString, wireValue, { maxKeys: 6 });
  fc.assert(
    fc.property(obj, obj, wireString, wireValue, (outer, inner, name, member) => {
      const target: JsonObject = { ...inner, [name]: member };
      const value: JsonObject = { ...outer, identity: target };
      const { bytes, cut } = canonicalBytesCut(value, ["identity", name]);
      assert.equal(dec.decode(bytes), canonicalize(value));
      assert.ok(cut !== null);
      const { [name]: _, ...rest } = target;
      const without = dec.decode(bytes.subarray(0, cut[0])) + dec.decode(bytes.subarray(cut[1]));
      assert.equal(without, canonicalize({ ...value, identity: rest }));
    }),
    { numRuns: 2_000 },
  );
  assert.equal(canonicalBytesCut({ identity: 1n }, ["identity", "x"]).cut, null);
  assert.equal(canonicalBytesCut({ a: { b: 1n } }, ["a", "x"]).cut, null);
});

Deno.test("canonicalize: a getter that canonicalizes while the writer is busy", () => {
  const inner = { b: [1n, "é"] };
  const outer = {
    get a() {
      return canonicalize(inner);
    },
    z: 0.5,
  };
  assert.equal(canonicalize(outer as never), '{"a":"{\\"b\\":[1,\\"\\\\u00e9\\"]}","z":0.5}');
});
