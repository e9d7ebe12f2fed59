// The parser's object templates (src/json/layout.ts) must never change what is parsed or which
// error is reported where: parsing with templates gives exactly what member-by-member parsing
// gives, for repeated layouts and for objects that leave a layout part way.
import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalize, type JsonValue, parseJson, prettyJson } from "../../src/json/mod.ts";
import { useLayouts } from "../../src/json/layout.ts";
import { WireError } from "../../src/errors/mod.ts";
import { wireValue } from "../support/arbitraries.ts";

type Outcome = { value: string } | { code: string; message: string };

function outcome(text: string): Outcome {
  try {
    const v = parseJson(text);
    // canonicalize loses nothing that matters here (types, values, keys) but member order,
    // so the pretty form (file order) is compared as well.
    return { value: canonicalize(v) + prettyJson(v) };
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    return { code: e.code, message: e.message };
  }
}

function bothWays(text: string): [Outcome, Outcome] {
  useLayouts(false);
  const plain = outcome(text);
  useLayouts(true);
  // Twice, so that layouts are learned on the first pass and used on the second.
  outcome(text);
  return [plain, outcome(text)];
}

// Keys from a small pool, so that layouts repeat; some need escapes, one is __proto__.
const key = fc.constantFrom("a", "b", "c", "id", "__proto__", "é", 'q"', "a\\b", "");
const member = fc.tuple(key, wireValue);
const object = fc.array(member, { maxLength: 5 }).map((pairs) =>
  "{" + pairs.map(([k, v]) => `${JSON.stringify(k)}: ${prettyJson(v).trim()}`).join(", ") + "}"
);
// A document: the same few objects repeated in an array, with variations.
const documentText = fc.tuple(fc.array(object, { minLength: 1, maxLength: 4 }), fc.nat(6)).map(
  ([objects, repeat]) => {
    const items: string[] = [];
    for (let r = 0; r <= repeat; r++) items.push(...objects);
    return "[" + items.join(",\n ") + "]";
  },
);

Deno.test("layouts: the same value and the same errors as member-by-member parsing", () => {
  fc.assert(
    fc.property(documentText, fc.nat(), fc.constantFrom("", "}", ",", '"', ":", "1", " ", "\\"), (
      text,
      cutAt,
      insert,
    ) => {
      const [plain, templated] = bothWays(text);
      assert.deepEqual(templated, plain);
      // The same document damaged at one place: the same error at the same position.
      const at = cutAt % (text.length + 1);
      const damaged = text.slice(0, at) + insert + text.slice(at + (insert === "" ? 1 : 0));
      const [p2, t2] = bothWays(damaged);
      assert.deepEqual(t2, p2);
    }),
    { numRuns: 1_500 },
  );
});

Deno.test("layouts: an object that leaves its layout part way", () => {
  const seed = '{"a": 1, "b": 2.0, "c": "x"}';
  const cases: [string, JsonValue | string][] = [
    ['{"a": 1, "b": 2.0, "c": "x"}', { a: 1n, b: 2, c: "x" }],
    ['{"a": 1, "b": 2.0}', { a: 1n, b: 2 }],
    ['{"a": 1, "b": 2.0, "c": "x", "d": null}', { a: 1n, b: 2, c: "x", d: null }],
    ['{"a": 1, "c": "x", "b": 2.0}', { a: 1n, c: "x", b: 2 }],
    ['{"a": 1, "\\u0062": 2.0, "c": "x"}', { a: 1n, b: 2, c: "x" }],
    ['{"a": 1, "bb": 2.0, "c": "x"}', { a: 1n, bb: 2, c: "x" }],
    ['{"a": 1, "b": 2.0, "a": "x"}', "duplicate_key:1:20"],
    ['{"a": 1, "b": 2.0, "c": "x", "b": 3}', "duplicate_key:1:30"],
    ['{"a": 1, "b" 2.0, "c": "x"}', "syntax_error:1:14"],
    ['{"a": 1, "b": 2.0 "c": "x"}', "syntax_error:1:19"],
    ['{"a": 1, "b": 2.0, "c": "x",}', "syntax_error:1:29"],
  ];
  for (const layouts of [false, true]) {
    useLayouts(layouts);
    parseJson(`[${seed}, ${seed}, ${seed}]`); // learn the layout
    for (const [text, want] of cases) {
      const doc = `[${seed}, ${text}]`;
      if (typeof want === "string") {
        const [code, line, column] = want.split(":");
        assert.throws(() => parseJson(doc), (e: unknown) => {
          assert.ok(e instanceof WireError, text);
          assert.equal(e.code, code, text);
          assert.equal(e.position?.line, Number(line), text);
          assert.equal(e.position?.column, Number(column) + seed.length + 3, text);
          return true;
        });
      } else {
        const got = (parseJson(doc) as JsonValue[])[1];
        assert.deepEqual(got, want, text);
        assert.deepEqual(Object.keys(got as object), Object.keys(want as object), text);
      }
    }
  }
  useLayouts(true);
});

Deno.test("layouts: __proto__ stays an own member and never becomes a template", () => {
  const one = '{"__proto__": {"x": 1}, "y": 2}';
  const v = parseJson(`[${one}, ${one}, ${one}]`) as Record<string, unknown>[];
  for (const o of v) {
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.ok(Object.hasOwn(o, "__proto__"));
    assert.deepEqual(Object.keys(o), ["__proto__", "y"]);
  }
});
