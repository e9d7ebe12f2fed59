// Request bodies: the fast JSON path accepts exactly what the typed parser accepts (for every
// body a request schema can accept), and reports the typed parser's error otherwise.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  hasDuplicateKey,
  isJsonMediaType,
  parseBody,
  parseMeasured,
} from "../../src/http/input.ts";
import { parseJson } from "../../src/json/parse.ts";
import { toPlainJson } from "../../src/json/plain.ts";
import { WireError } from "../../src/errors/errors.ts";

const encoder = new TextEncoder();

function outcome(f: () => unknown): { ok: string } | { code: string } {
  try {
    return { ok: JSON.stringify(f()) };
  } catch (e) {
    assert.ok(e instanceof WireError, String(e));
    return { code: e.code };
  }
}

/** Values with no numbers: every body a request schema can accept is one of these. */
const { value: noNumbers } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ unit: "binary" }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value")),
    fc.dictionary(fc.string({ unit: "binary" }), tie("value")),
  ),
}));

/** JSON texts, sometimes with a repeated or escaped key, a lone surrogate, odd whitespace or a
 * broken tail. */
const texts = (values: fc.Arbitrary<unknown>) =>
  fc.oneof(
    values.map((v) => JSON.stringify(v)),
    values.map((v) => JSON.stringify(v, null, 1)),
    fc.tuple(fc.string(), values, values).map(([k, a, b]) =>
      `{${JSON.stringify(k)}:${JSON.stringify(a)},${JSON.stringify(k)}:${JSON.stringify(b)}}`
    ),
    fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), fc.string()).map(([k, v]) => {
      const escaped = [...k].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join("");
      return `{"${escaped}": true, ${JSON.stringify(k)}: ${JSON.stringify(v)}}`;
    }),
    fc.string({ unit: "binary" }).map((s) => JSON.stringify({ proof_json: s })),
    fc.constantFrom(
      '{"a":"\\ud800"}',
      '["\\udc00x"]',
      '{"\\ud83d\\ude00":null,"\\ud83d\\ude00":true}',
      '{"a":{"b":"1","b":"2"}}',
      '[{"a":null},{"a":null}]',
      '{"a\\"b":"1","a\\"b":"2"}',
      '{"x":"\\\\","x\\\\":"1"}',
      "\ufeff{}",
      '{"a":"1"}x',
      "",
    ),
    values.map((v) => JSON.stringify(v)).map((t) => t.slice(0, Math.max(0, t.length - 1))),
    fc.string(),
  );

Deno.test("parseBody = the typed parser for number-free texts: same value or same error", () => {
  fc.assert(
    fc.property(texts(noNumbers), (text) => {
      const bytes = encoder.encode(text);
      assert.deepEqual(
        outcome(() => parseBody(bytes)),
        outcome(() => toPlainJson(parseJson(bytes))),
        text,
      );
    }),
    { numRuns: 3000 },
  );
});

Deno.test("parseBody: compact flat objects, with and without a repeated key, as the typed parser", () => {
  // Objects of primitive members written with no spare character: the fast path decides these
  // by length alone, so repeated keys (also escaped, or with an empty value) must still be found.
  const primitive = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.boolean(),
    fc.constant(null),
    fc.integer(),
  );
  const member = fc.tuple(fc.string({ unit: "binary", maxLength: 4 }), primitive);
  const text = fc.tuple(
    fc.array(member, { maxLength: 6 }),
    fc.nat(),
    fc.constantFrom("none", "same", "escaped"),
    primitive,
  ).map(([members, at, repeat, value]) => {
    const parts = members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    if (members.length > 0 && repeat !== "none") {
      const key = members[at % members.length][0];
      const token = repeat === "same"
        ? JSON.stringify(key)
        : `"${
          [...key].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")
        }"`;
      parts.splice(at % (parts.length + 1), 0, `${token}:${JSON.stringify(value)}`);
    }
    return `{${parts.join(",")}}`;
  });
  fc.assert(
    fc.property(text, (t) => {
      const bytes = encoder.encode(t);
      assert.deepEqual(
        outcome(() => parseBody(bytes)),
        outcome(() => toPlainJson(parseJson(bytes))),
        t,
      );
    }),
    { numRuns: 3000 },
  );
  for (
    const t of [
      '{"a":"","a":""}',
      '{"":0,"":0}',
      '{"a":null,"b":1,"a":true}',
      '{"\\u0061":1,"a":1}',
    ]
  ) {
    assert.deepEqual(outcome(() => parseBody(encoder.encode(t))), { code: "duplicate_key" }, t);
  }
});

Deno.test("parseMeasured: only compact objects of primitive members skip the duplicate scan", () => {
  const compact = [
    "{}",
    '{"proof_json":"{\\"a\\":1}"}',
    '{"a":1,"b":"x","c":null,"d":true,"e":-1.5e3}',
    '{"\u00e9\ud83d\ude00":"\\u00e9"}', // raw non-ASCII and a non-BMP key; an escaped value
  ];
  for (const t of compact) {
    const r = parseMeasured(t);
    assert.ok(r.compactFlat, t);
    assert.deepEqual(r.value, JSON.parse(t), t);
  }
  const scanned = [
    '{"a":1,"a":2}',
    '{"a":1, "b":2}',
    ' {"a":1}',
    '{"\\u0061":1}',
    '{"a":[1]}',
    '{"a":{}}',
    "[1,2]",
    '"x"',
    "1",
    "null",
  ];
  for (const t of scanned) assert.ok(!parseMeasured(t).compactFlat, t);
});

Deno.test("parseBody with numbers: differs from the typed parser only in number rules", () => {
  const numberCodes = ["int_out_of_range", "non_finite_number"];
  fc.assert(
    fc.property(
      fc.oneof(texts(fc.jsonValue()), fc.constantFrom("[1e400]", "[99999999999999999999]")),
      (text) => {
        const bytes = encoder.encode(text);
        const fast = outcome(() => parseBody(bytes));
        const typed = outcome(() => toPlainJson(parseJson(bytes)));
        if ("code" in typed && numberCodes.includes(typed.code)) return;
        if ("code" in typed) assert.deepEqual(fast, typed, text);
        else assert.ok("ok" in fast, text);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("parseBody: invalid UTF-8 and a BOM go to the typed parser's errors", () => {
  assert.deepEqual(outcome(() => parseBody(new Uint8Array([0x22, 0xc3, 0x28, 0x22]))), {
    code: "invalid_utf8",
  });
  assert.deepEqual(outcome(() => parseBody(encoder.encode("\ufeff{}"))), { code: "syntax_error" });
});

Deno.test("hasDuplicateKey: per object, after unescaping, strings skipped", () => {
  const yes = [
    '{"a":1,"a":2}',
    '{"a":1,"\\u0061":2}',
    '{"x":{"a":[1,{"k":1,"k":2}]}}',
    '{"a\\\\":1,"a\\u005c":2}',
    '{ "a" : 1 ,\n "a" : 2 }',
  ];
  const no = [
    '{"a":{"a":1}}',
    '[{"a":1},{"a":2}]',
    '{"a":"\\"a\\":1,\\"a\\":2"}',
    '{"a":["a","a"]}',
    '{"a\\"":1,"a":2}',
    "[]",
    '"x"',
  ];
  for (const t of yes) assert.equal(hasDuplicateKey(t), true, t);
  for (const t of no) assert.equal(hasDuplicateKey(t), false, t);
});

Deno.test("isJsonMediaType: application/json with utf-8 or no charset only", () => {
  for (const t of ["application/json", "APPLICATION/JSON", "application/json;charset=utf-8"]) {
    assert.ok(isJsonMediaType(t), t);
  }
  for (
    const t of [
      null,
      "",
      "text/json",
      "application/json-patch+json",
      "application/json; charset=utf-16",
      "multipart/form-data",
    ]
  ) {
    assert.ok(!isJsonMediaType(t), String(t));
  }
});
