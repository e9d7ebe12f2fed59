import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeUtf8,
  firstInvalidUtf8,
  parseJson,
  positionOf,
  prettyJson,
} from "../../src/json/mod.ts";
import { WireError } from "../../src/errors/mod.ts";

Deno.test("parse: ints are bigint, floats are number (R11)", () => {
  const v = parseJson(
    "[1, 1.0, 1e0, -0, -0.0, 9223372036854775807, -9223372036854775808]",
  ) as unknown[];
  assert.deepEqual(v, [1n, 1, 1, 0n, -0, 9223372036854775807n, -9223372036854775808n]);
  assert.ok(Object.is(v[4], -0));
});

Deno.test("parse: errors report line and column", () => {
  assert.throws(() => parseJson('{\n  "a": 1,\n  "a": 2\n}'), (e: unknown) => {
    assert.ok(e instanceof WireError);
    assert.equal(e.code, "duplicate_key");
    assert.deepEqual(e.position, { offset: 14, line: 3, column: 3 });
    assert.match(e.message, /duplicate key "a" .*line 3, column 3/);
    return true;
  });
  assert.throws(() => parseJson("[1,\n 2,\n ]"), (e: unknown) => {
    assert.ok(e instanceof WireError);
    assert.equal(e.position?.line, 3);
    assert.match(e.message, /expected a JSON value, found '\]'/);
    return true;
  });
  assert.throws(() => parseJson('"\u00e9\u0001"'), /control character U\+0001 must be escaped/);
});

Deno.test("parse: a deep document fails fast with depth_exceeded, no stack overflow", () => {
  assert.throws(() => parseJson("[".repeat(1_000_000)), { code: "depth_exceeded" });
  assert.throws(() => parseJson('{"a":'.repeat(100_000)), { code: "depth_exceeded" });
});

Deno.test("parse: a 1 MB document with long strings and many members", () => {
  const big = {
    s: "x".repeat(1 << 20),
    list: Array.from({ length: 20000 }, (_, i) => ({ i: BigInt(i), f: i / 3 })),
  };
  const back = parseJson(prettyJson(big)) as typeof big;
  assert.equal(back.s.length, 1 << 20);
  assert.equal(back.list[19999].i, 19999n);
  assert.equal(back.list[3].f, 1);
});

Deno.test("parse: raw astral characters and escaped pairs give the same string", () => {
  assert.equal(parseJson('"\u{1F600}"'), parseJson('"\\ud83d\\ude00"'));
  assert.throws(() => parseJson('"\ud83d"'), { code: "lone_surrogate" });
  assert.throws(() => parseJson('"\ud83d\\ude00"'), { code: "lone_surrogate" });
});

Deno.test("parse: __proto__ is an own member, not the prototype", () => {
  const o = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.ok(Object.hasOwn(o, "__proto__"));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.throws(() => parseJson('{"__proto__": 1, "__proto__": 2}'), { code: "duplicate_key" });
  assert.throws(() => parseJson('{"toString": 1, "toString": 2}'), { code: "duplicate_key" });
  assert.deepEqual(parseJson('{"toString": 1}'), { toString: 1n });
});

Deno.test("UTF-8: strict decoding and the offset of the first bad byte", () => {
  assert.equal(firstInvalidUtf8(new Uint8Array([0x61, 0xe2, 0x82, 0xac, 0xff])), 4);
  assert.equal(firstInvalidUtf8(new Uint8Array([0xf0, 0x9f, 0x98, 0x80])), -1);
  assert.throws(() => decodeUtf8(new Uint8Array([0x22, 0xc0, 0xaf, 0x22])), /byte offset 1/);
  assert.equal(
    decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf])),
    "\ufeff",
    "BOM is kept, then rejected by the parser",
  );
});

Deno.test("positionOf counts lines and columns", () => {
  assert.deepEqual(positionOf("ab\ncd", 4), { offset: 4, line: 2, column: 2 });
});

Deno.test("prettyJson keeps floats recognisable and member order", () => {
  assert.equal(
    prettyJson({ b: 50, a: [1n, -0] }),
    '{\n  "b": 50.0,\n  "a": [\n    1,\n    -0.0\n  ]\n}\n',
  );
  assert.equal(prettyJson({ s: "é" }), '{\n  "s": "é"\n}\n');
});

Deno.test("parse: number literals read exactly as Number() and BigInt() read them", () => {
  // The parser reads short literals arithmetically; every literal must agree with the engine.
  const digits = fc.stringMatching(/^(0|[1-9][0-9]{0,19})$/);
  const literal = fc.tuple(
    fc.boolean(),
    digits,
    fc.option(fc.stringMatching(/^[0-9]{1,24}$/)),
    fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.nat(330))),
  ).map(([neg, int, frac, exp]) =>
    (neg ? "-" : "") + int + (frac === null ? "" : "." + frac) +
    (exp === null ? "" : exp[0] + exp[1] + exp[2])
  );
  fc.assert(
    fc.property(literal, (text) => {
      const isFloat = /[.eE]/.test(text);
      const x = Number(text);
      if (isFloat && !Number.isFinite(x)) return;
      if (!isFloat) {
        const n = BigInt(text);
        if (n > 2n ** 63n - 1n || n < -(2n ** 63n)) return;
        assert.equal(parseJson(text), n);
        return;
      }
      assert.ok(Object.is(parseJson(text), x), text);
    }),
    { numRuns: 20_000 },
  );
});
