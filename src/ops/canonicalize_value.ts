/**
 * `canonicalize_value`: the shared implementation behind `empiric canonicalize`, the MCP tool
 * `canonicalize_value` and its HTTP endpoint.
 *
 * @module
 */
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { hmacSha256Hex, sha256Hex } from "../crypto/hash.ts";
import { traceCanonicalEncode } from "../telemetry/instrument.ts";

/** Result of {@link canonicalizeValue}. */
export interface CanonicalizeResult {
  /** The canonical text (ASCII). */
  canonical: string;
  /** Its length in bytes. */
  bytes: number;
  /** SHA-256 of the canonical bytes, lowercase hex. */
  sha256: string;
  /** HMAC-SHA256 of the canonical bytes under the given key, when one was given. */
  hmac_sha256?: string;
}

const encoder = new TextEncoder();

/**
 * Canonicalize a JSON text: parse it with the typed parser (ints and floats stay distinct)
 * and return the canonical form with its SHA-256 (and HMAC when a key is given).
 *
 * @example
 * ```ts
 * import { canonicalizeValue } from "./canonicalize_value.ts";
 * const r = await canonicalizeValue('{"b": 1.0, "a": 1}');
 * console.assert(r.canonical === '{"a":1,"b":1.0}' && r.bytes === 15);
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
