/**
 * `canonicalize_value`: the shared implementation behind `empiric canonicalize`, the MCP tool
 * `canonicalize_value` and its HTTP endpoint.
 *
 * @module
 */
import { z } from "zod";
import { COMPONENTS } from "./schemas.ts";
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { hmacSha256Hex, sha256Hex } from "../crypto/hash.ts";
import { traceCanonicalEncode } from "../telemetry/instrument.ts";
import { defineOperation } from "./operation.ts";

/** `canonicalize_value` input. */
export const CanonicalizeInput = z.strictObject({
  value_json: z.string().describe(
    "JSON text of any value. Numbers written with '.', 'e' or 'E' are floats, others ints (rule R11): send text, not a parsed value.",
  ),
}).register(COMPONENTS, { id: "CanonicalizeInput" });

/** `canonicalize_value` output. */
export const CanonicalizeOutput = z.object({
  canonical: z.string().describe("Canonical JSON text (ASCII, rules R1-R10)"),
  bytes: z.number().int().describe("Length of the canonical form in bytes"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).describe(
    "SHA-256 of the canonical bytes, lowercase hex",
  ),
}).register(COMPONENTS, { id: "CanonicalizeOutput" });

/** Result of {@link canonicalizeValue}. */
export type CanonicalizeResult = z.infer<typeof CanonicalizeOutput> & {
  /** HMAC-SHA256 of the canonical bytes under the given key, when one was given. */
  hmac_sha256?: string;
};

const encoder = new TextEncoder();

/**
 * Canonicalize a JSON text: parse it with the typed parser (ints and floats stay distinct)
 * and return the canonical form with its SHA-256 (and HMAC when a key is given).
 *
 * @example
 * ```ts
 * import { canonicalizeValue } from "./canonicalize_value.ts";
 * import assert from "node:assert/strict";
 * const r = await canonicalizeValue('{"b": 1.0, "a": 1}');
 * assert.equal(r.canonical, '{"a":1,"b":1.0}');
 * assert.equal(r.bytes, 15);
 * ```
 */
export async function canonicalizeValue(
  jsonText: string | Uint8Array,
  options: { key?: Uint8Array<ArrayBuffer> } = {},
): Promise<CanonicalizeResult> {
  return await traceCanonicalEncode(async () => {
    const canonical = canonicalize(parseJson(jsonText));
    const bytes = encoder.encode(canonical);
    const result: CanonicalizeResult = {
      canonical,
      bytes: bytes.length,
      sha256: await sha256Hex(bytes),
    };
    if (options.key) result.hmac_sha256 = await hmacSha256Hex(options.key, bytes);
    return result;
  });
}

/** The `canonicalize_value` operation (no key: an HMAC under a server's key would let anyone sign). */
export const canonicalizeValueOp = defineOperation({
  name: "canonicalize_value",
  title: "Canonicalize a JSON value",
  description:
    "Return the canonical JSON form of a value (the bytes records are hashed and signed over: " +
    "what Python's json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=True) " +
    "writes), its length in bytes and its SHA-256. Pass the value as JSON text in value_json, " +
    "not as a parsed value, so that ints and floats stay distinct (1 and 1.0 canonicalize " +
    "differently). Duplicate keys, NaN/Infinity, lone surrogates and ints outside the signed " +
    "64-bit range are errors.",
  access: "read",
  exposure: [],
  input: CanonicalizeInput,
  output: CanonicalizeOutput,
  http: {
    method: "POST",
    path: "/canonicalize",
    tags: ["wire format"],
    response: "The canonical form",
    errors: [400, 422],
  },
  mcp: { tool: {} },
  run: async (input) => {
    const { canonical, bytes, sha256 } = await canonicalizeValue(input.value_json);
    return { canonical, bytes, sha256 };
  },
});
