// The generated record validator (src/schema/record_schema.ts) against its reference, the
// schema compiled by Ajv at run time (compileTypedValidator): identical problems on every
// fixtures/records case and on mutated records. And the generated module is current.
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateRecordSchema } from "../../src/schema/record_schema.ts";
import { compileTypedValidator, PROOF_RECORD_SCHEMA } from "../../src/schema/validate.ts";
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseJson,
  PyInt,
  setMember,
} from "../../src/json/mod.ts";
import { RECORDS, ROOT } from "../support/env.ts";
import { wireFloat, wireInt, wireString, wireValue } from "../support/arbitraries.ts";

const reference = compileTypedValidator(PROOF_RECORD_SCHEMA, "schema_invalid");
const records: [string, JsonValue][] = [];
for await (const e of Deno.readDir(RECORDS)) {
  if (!e.isFile || !e.name.endsWith(".json")) continue;
  try {
    records.push([e.name, parseJson(await Deno.readFile(RECORDS + e.name))]);
  } catch {
    // Not JSON (a truncated record): nothing to validate.
  }
}
records.sort(([a], [b]) => a < b ? -1 : 1);
const validRecords = records.filter(([n]) => n.startsWith("valid")).map(([, r]) => r);

function same(value: JsonValue): void {
  assert.deepEqual(validateRecordSchema(value), reference(value));
}

Deno.test("generated record validator: every fixtures/records file as the reference", () => {
  assert.ok(records.length >= 20);
  let invalid = 0;
  for (const [name, value] of records) {
    const problems = reference(value);
    if (problems.length > 0) invalid++;
    assert.deepEqual(validateRecordSchema(value), problems, name);
  }
  assert.ok(invalid > 0, "some fixture fails the schema");
});

function clone(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(clone);
  if (isJsonObject(v)) {
    const o: JsonObject = {};
    for (const [k, x] of Object.entries(v)) setMember(o, k, clone(x));
    return o;
  }
  return v;
}

/** Every place in a value: the path of keys and indices to it. */
function paths(v: JsonValue, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (isJsonObject(v)) { for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out); }
  return out;
}

type Mutation =
  | { kind: "replace"; value: JsonValue }
  | { kind: "delete" }
  | { kind: "add"; key: string; value: JsonValue };

function mutate(record: JsonValue, path: (string | number)[], m: Mutation): JsonValue {
  const root = clone(record);
  if (path.length === 0) return m.kind === "replace" ? m.value : root;
  let parent = root as JsonValue;
  for (const k of path.slice(0, -1)) parent = (parent as Record<string, JsonValue>)[k];
  const last = path[path.length - 1];
  const target = (parent as Record<string, JsonValue>)[last];
  if (m.kind === "replace") (parent as Record<string, JsonValue>)[last] = m.value;
  else if (m.kind === "delete") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete (parent as Record<string, JsonValue>)[last];
  } else if (isJsonObject(target)) setMember(target, m.key, m.value);
  return root;
}

const nearValues: fc.Arbitrary<JsonValue> = fc.oneof(
  wireValue,
  wireInt,
  wireFloat,
  wireInt.map((n) => new PyInt(n)),
  fc.constantFrom<JsonValue>(
    "2024-01-01T00:00:00Z",
    "2024-02-30T00:00:00Z",
    "2024-01-01T00:00:00+01:00",
    "2024-01-01 00:00:00Z",
    "VALIDATED",
    "REFUTED",
    "INCONCLUSIVE",
    "validated",
    "1.0",
    "a".repeat(64),
    "",
    0,
    -1,
    -1n,
    0n,
    1.5,
    1e300,
    [],
    {},
  ),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), value: nearValues }),
  fc.constant({ kind: "delete" as const }),
  fc.record({
    kind: fc.constant("add" as const),
    key: fc.oneof(wireString, fc.constantFrom("statment", "outcome", "proof_idd", "verdict")),
    value: nearValues,
  }),
);

Deno.test("generated record validator: mutated records as the reference", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...validRecords),
      fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 }),
      (record, steps) => {
        let value = record;
        for (const [pick, m] of steps) {
          const all = paths(value);
          value = mutate(value, all[pick % all.length], m);
        }
        same(value);
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("generated record validator: every place of every valid record, replaced or deleted", () => {
  const replacements: JsonValue[] = [-1n, -0.5, 0n, 1.5, 2n ** 62n, 1e300, "x", null, [], {}];
  let checked = 0;
  for (const record of validRecords) {
    for (const path of paths(record)) {
      same(mutate(record, path, { kind: "delete" }));
      same(mutate(record, path, { kind: "add", key: "extra", value: 1n }));
      for (const value of replacements) same(mutate(record, path, { kind: "replace", value }));
      checked++;
    }
  }
  assert.ok(checked > 100);
});

Deno.test("generated record validator: arbitrary values as the reference", () => {
  fc.assert(fc.property(wireValue, (v) => same(v)), { numRuns: 300 });
});

Deno.test("src/schema/record_validator.generated.ts is current", async () => {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "scripts/embed_record_validator.ts", "--check"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
});
