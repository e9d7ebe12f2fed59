/**
 * Base64 (RFC 4648): the standard alphabet with padding out; standard or URL-safe, padded or
 * not, in (DSSE verifiers must accept both).
 *
 * @module
 */

/**
 * Standard base64 with padding.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { base64Encode } from "./base64.ts";
 * assert.equal(base64Encode(new TextEncoder().encode("hello world")), "aGVsbG8gd29ybGQ=");
 * ```
 */
export function base64Encode(bytes: Uint8Array): string {
  let s = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    s += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(s);
}

const STD = /^[A-Za-z0-9+/]*={0,2}$/;
const URLSAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decode base64 in the standard or the URL-safe alphabet, with or without padding (DSSE
 * verifiers must accept both). Returns null for anything else: mixed alphabets, stray
 * characters or whitespace, impossible lengths, or non-zero trailing bits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { base64Decode } from "./base64.ts";
 * const a = base64Decode("13sqXeIlFCeNof0Xh+KOKkR5En0wkkk++QJNXlbI3CU=");
 * const b = base64Decode("13sqXeIlFCeNof0Xh-KOKkR5En0wkkk--QJNXlbI3CU");
 * assert.ok(a !== null && b !== null);
 * assert.deepEqual(a, b);
 * assert.equal(base64Decode("a b="), null);
 * ```
 */
export function base64Decode(text: string): Uint8Array<ArrayBuffer> | null {
  let std: string;
  if (STD.test(text)) std = text;
  else if (URLSAFE.test(text)) std = text.replaceAll("-", "+").replaceAll("_", "/");
  else return null;
  const body = std.replace(/=+$/, "");
  const pad = std.length - body.length;
  if (body.length % 4 === 1) return null;
  if (pad > 0 && (body.length + pad) % 4 !== 0) return null;
  const padded = body + "=".repeat((4 - (body.length % 4)) % 4);
  let bin: string;
  try {
    bin = atob(padded);
  } catch {
    return null;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  // Canonical encoding only: the unused low bits of the last character must be zero.
  if (base64Encode(out).replace(/=+$/, "") !== padded.replace(/=+$/, "")) return null;
  return out;
}
