/**
 * Digests a report needs: the SHA-256 of a style sheet for the page's Content-Security-Policy
 * (base64, as CSP hash sources are written) and of an observations file (hex, as records name
 * their datasets).
 *
 * @module
 */
import { base64Encode } from "../crypto/base64.ts";
import { fromHex, sha256Hex } from "../crypto/hash.ts";

/**
 * SHA-256 of a text's UTF-8 bytes, base64.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Base64 } from "./digest.ts";
 * assert.equal(await sha256Base64(""), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
 * ```
 */
export async function sha256Base64(text: string): Promise<string> {
  return base64Encode(fromHex(await sha256Hex(new TextEncoder().encode(text))));
}

/** SHA-256 of bytes, lowercase hex. */
export async function sha256OfBytes(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return await sha256Hex(bytes);
}
