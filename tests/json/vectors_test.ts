// Every wire-format vector in fixtures/wire/vectors.json, in both directions.
import assert from "node:assert/strict";
import {
  canonicalBytes,
  canonicalize,
  type JsonValue,
  parseJson,
  prettyJson,
  setMember,
} from "../../src/json/mod.ts";
import { WireError } from "../../src/errors/mod.ts";
import { hmacSha256Hex, sha256Hex } from "../../src/crypto/mod.ts";

interface ValidVector {
  name: string;
  input: string;
  typed: unknown;
  canonical: string;
  sha256: string;
  hmac_sha256: string;
}
interface InvalidVector {
  name: string;
  input?: string;
  input_base64?: string;
  error: string;
}
const doc = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/wire/vectors.json", import.meta.url)),
) as {
  hmac_key_utf8: string;
  valid: ValidVector[];
  invalid: InvalidVector[];
};
const key = new TextEncoder().encode(doc.hmac_key_utf8);

/** Build a typed value from the vectors' typed encoding. */
export function fromTyped(t: unknown): JsonValue {
  if (t === null || typeof t === "boolean" || typeof t === "string") return t;
  if (Array.isArray(t)) return t.map(fromTyped);
  const o = t as Record<string, unknown>;
  if ("int" in o) return BigInt(o.int as string);
  if ("float" in o) return Number(o.float as string);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of o.object as [string, unknown][]) setMember(out, k, fromTyped(v));
  return out;
}

Deno.test("wire vectors: counts", () => {
  assert.ok(doc.valid.length >= 70, "valid vectors");
  assert.ok(doc.invalid.length >= 50, "invalid vectors");
});

for (const v of doc.valid) {
  Deno.test(`wire valid: ${v.name}`, async () => {
    const parsed = parseJson(v.input);
    assert.equal(canonicalize(parsed), v.canonical, "parse then canonicalize");
    const built = fromTyped(v.typed);
    assert.equal(canonicalize(built), v.canonical, "build then canonicalize");
    const bytes = canonicalBytes(built);
    assert.equal(await sha256Hex(bytes), v.sha256);
    assert.equal(await hmacSha256Hex(key, bytes), v.hmac_sha256);
    // the pretty writer round-trips through the parser
    assert.equal(canonicalize(parseJson(prettyJson(parsed))), v.canonical, "pretty round trip");
    // and the canonical text is itself parsed back to the same bytes
    assert.equal(canonicalize(parseJson(v.canonical)), v.canonical, "canonical is a fixpoint");
  });
}

for (const v of doc.invalid) {
  Deno.test(`wire invalid: ${v.name} -> ${v.error}`, () => {
    const input = v.input_base64 !== undefined
      ? Uint8Array.from(atob(v.input_base64), (c) => c.charCodeAt(0))
      : v.input!;
    assert.throws(
      () => parseJson(input),
      (e: unknown) => {
        assert.ok(e instanceof WireError, `WireError, got ${e}`);
        assert.equal(e.code, v.error, e.message);
        return true;
      },
    );
    // bytes input gives the same code as text input
    if (v.input !== undefined) {
      assert.throws(() => parseJson(new TextEncoder().encode(v.input)), { code: v.error });
    }
  });
}
