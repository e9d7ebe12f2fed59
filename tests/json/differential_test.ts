// Differential tests: our canonicalizer and parser against Python's standard library, which
// defines the canonical form. At least 10,000 random values in each direction.
import assert from "node:assert/strict";
import fc from "fast-check";
import { pythonModule } from "../support/peers.ts";
import { canonicalize, type JsonValue, parseJson, prettyJson } from "../../src/json/mod.ts";
import { toTyped, wireValue } from "../support/arbitraries.ts";

const RUNS = 10_000;
const oracle = new URL("../support/python_oracle.py", import.meta.url).pathname;

async function python(requests: unknown[]): Promise<string[]> {
  const child = new Deno.Command("python3", { args: [oracle], stdin: "piped", stdout: "piped" })
    .spawn();
  const input = requests.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const writer = child.stdin.getWriter();
  const [out] = await Promise.all([
    child.output(),
    writer.write(new TextEncoder().encode(input)).then(() => writer.close()),
  ]);
  assert.equal(out.code, 0, "python oracle exited cleanly");
  const lines = new TextDecoder().decode(out.stdout).split("\n");
  lines.pop();
  return lines;
}

const values: JsonValue[] = fc.sample(wireValue, { numRuns: RUNS, seed: 20261122 });

const havePython = await pythonModule("json", "Python 3");

Deno.test({
  name: `differential: canonicalize ${RUNS} random typed values == Python json.dumps`,
  ignore: !havePython,
}, async () => {
  const expected = await python(values.map((v) => ({ typed: toTyped(v) })));
  assert.equal(expected.length, values.length);
  let compared = 0;
  for (let i = 0; i < values.length; i++) {
    assert.equal(
      canonicalize(values[i]),
      expected[i],
      `value #${i}: ${JSON.stringify(toTyped(values[i]))}`,
    );
    compared++;
  }
  assert.equal(compared, RUNS);
});

// Texts in three layouts: pretty (non-ASCII raw), canonical (all escaped), and the pretty text
// with random extra whitespace. Python parses them with json.loads; we parse with parseJson.
function layouts(v: JsonValue, i: number): string {
  switch (i % 3) {
    case 0:
      return prettyJson(v);
    case 1:
      return canonicalize(v);
    default:
      return prettyJson(v, 1 + (i % 4)).replace(/\n/g, "\r\n\t ");
  }
}

Deno.test({
  name: `differential: parse ${RUNS} random texts == Python json.loads`,
  ignore: !havePython,
}, async () => {
  const texts = values.map(layouts);
  const expected = await python(texts.map((text) => ({ text })));
  for (let i = 0; i < texts.length; i++) {
    assert.equal(canonicalize(parseJson(texts[i])), expected[i], `text #${i}: ${texts[i]}`);
  }
});

Deno.test("property: parse(canonicalize(v)) canonicalizes to the same text", () => {
  fc.assert(
    fc.property(wireValue, (v) => {
      const c = canonicalize(v);
      assert.equal(canonicalize(parseJson(c)), c);
      assert.ok(/^[\x20-\x7e]*$/.test(c), "canonical text is printable ASCII (R10)");
    }),
    { numRuns: 2000, seed: 7 },
  );
});
