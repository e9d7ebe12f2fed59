/**
 * The little ASN.1 DER that public-key attestations need, written by hand because Web Crypto
 * and the ecosystem disagree on one encoding:
 *
 * - ECDSA signatures: Web Crypto signs and verifies IEEE P1363 (`r || s`, 32 bytes each for
 *   P-256); cosign, sigstore-go, securesystemslib and OpenSSL use the ASN.1 DER
 *   `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279 §2.2.3).
 *   {@link p1363ToDer} and {@link derToP1363} convert between the two; the DER reader is strict
 *   (minimal lengths and integers, nothing after the sequence), so one signature has one
 *   accepted encoding.
 * - Key files: the algorithm identifier of a SubjectPublicKeyInfo or PKCS#8 PrivateKeyInfo
 *   ({@link keyAlgorithmOf}), to name the algorithm before importing the key.
 *
 * Differential tests compare both conversions with `node:crypto` (`dsaEncoding: "der"` and
 * `"ieee-p1363"`).
 *
 * @module
 */

/** One DER element: its tag and where its contents lie in the input. */
interface Tlv {
  tag: number;
  /** Offset of the first content byte. */
  start: number;
  /** Offset just past the last content byte. */
  end: number;
}

// Read one element at `at`; null unless its length is in minimal DER form and fits the input.
function readTlv(bytes: Uint8Array, at: number, limit = bytes.length): Tlv | null {
  if (at + 2 > limit) return null;
  const tag = bytes[at];
  let len = bytes[at + 1];
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 3 || start + n > limit) return null;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + bytes[start + i];
    start += n;
    // Minimal form: long form only from 128 on, without a leading zero byte.
    if (len < 0x80 || bytes[at + 2] === 0) return null;
  }
  const end = start + len;
  return end > limit ? null : { tag, start, end };
}

function encodeLength(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
  return [0x80 | out.length, ...out];
}

// A positive INTEGER's DER contents from big-endian unsigned bytes.
function integerContents(unsigned: Uint8Array): number[] {
  let i = 0;
  while (i < unsigned.length - 1 && unsigned[i] === 0) i++;
  const digits = [...unsigned.subarray(i)];
  return digits[0] & 0x80 ? [0, ...digits] : digits;
}

/**
 * ECDSA signature from IEEE P1363 (`r || s`, Web Crypto's form) to ASN.1 DER (cosign's and
 * securesystemslib's form). Throws a `RangeError` on an odd length.
 *
 * @example
 * ```ts
 * import { derToP1363, p1363ToDer } from "./der.ts";
 * import { deepStrictEqual, equal } from "node:assert/strict";
 * const raw = new Uint8Array(64).fill(0x80);
 * const der = p1363ToDer(raw);
 * equal(der[0], 0x30); // SEQUENCE
 * equal(der[3], 33); // r gets a leading zero: its high bit is set
 * deepStrictEqual(derToP1363(der, 32), raw);
 * ```
 */
export function p1363ToDer(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  if (raw.length === 0 || raw.length % 2 !== 0) {
    throw new RangeError(`Cannot convert signature: P1363 length ${raw.length} is not even`);
  }
  const half = raw.length / 2;
  const r = integerContents(raw.subarray(0, half));
  const s = integerContents(raw.subarray(half));
  const body = [0x02, ...encodeLength(r.length), ...r, 0x02, ...encodeLength(s.length), ...s];
  return new Uint8Array([0x30, ...encodeLength(body.length), ...body]);
}

// The unsigned big-endian value of a minimal positive DER INTEGER, or null.
function readUnsigned(bytes: Uint8Array, tlv: Tlv | null): Uint8Array | null {
  if (!tlv || tlv.tag !== 0x02 || tlv.end === tlv.start) return null;
  const v = bytes.subarray(tlv.start, tlv.end);
  if (v[0] & 0x80) return null; // negative
  if (v.length > 1 && v[0] === 0 && !(v[1] & 0x80)) return null; // not minimal
  return v[0] === 0 && v.length > 1 ? v.subarray(1) : v;
}

/**
 * ECDSA signature from strict ASN.1 DER to IEEE P1363 with `size`-byte halves (32 for P-256);
 * null when the bytes are not exactly one minimal `SEQUENCE { INTEGER, INTEGER }` of positive
 * values that fit.
 *
 * @example
 * ```ts
 * import { derToP1363 } from "./der.ts";
 * import { equal } from "node:assert/strict";
 * const der = new Uint8Array([0x30, 6, 2, 1, 1, 2, 1, 2]);
 * const raw = derToP1363(der, 32)!;
 * equal(raw.length, 64);
 * equal(raw[31], 1);
 * equal(raw[63], 2);
 * equal(derToP1363(new Uint8Array([0x30, 6, 2, 1, 1, 2, 1, 2, 0]), 32), null); // trailing byte
 * ```
 */
export function derToP1363(der: Uint8Array, size: number): Uint8Array<ArrayBuffer> | null {
  const seq = readTlv(der, 0);
  if (!seq || seq.tag !== 0x30 || seq.end !== der.length) return null;
  const rt = readTlv(der, seq.start, seq.end);
  const r = readUnsigned(der, rt);
  const st = rt ? readTlv(der, rt.end, seq.end) : null;
  const s = readUnsigned(der, st);
  if (!r || !s || !st || st.end !== seq.end || r.length > size || s.length > size) return null;
  const out = new Uint8Array(2 * size);
  out.set(r, size - r.length);
  out.set(s, 2 * size - s.length);
  return out;
}

const OID_ED25519 = [0x2b, 0x65, 0x70]; // 1.3.101.112
const OID_EC_PUBLIC_KEY = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]; // 1.2.840.10045.2.1
const OID_P256 = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]; // 1.2.840.10045.3.1.7

function sameBytes(bytes: Uint8Array, tlv: Tlv, expected: number[]): boolean {
  if (tlv.end - tlv.start !== expected.length) return false;
  return expected.every((b, i) => bytes[tlv.start + i] === b);
}

/** What the algorithm identifier of a key file names. */
export type KeyAlgorithmId =
  | { kind: "ed25519" }
  | { kind: "ecdsa-p256" }
  | { kind: "ec-other-curve" }
  | { kind: "unknown" };

/**
 * The algorithm of a DER SubjectPublicKeyInfo (`spki`) or PKCS#8 PrivateKeyInfo (`pkcs8`), read
 * from its AlgorithmIdentifier; `null` when the bytes do not have that structure.
 *
 * @example
 * ```ts
 * import { keyAlgorithmOf } from "./der.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * const kp = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]) as CryptoKeyPair;
 * const spki = new Uint8Array(await crypto.subtle.exportKey("spki", kp.publicKey));
 * deepStrictEqual(keyAlgorithmOf(spki, "spki"), { kind: "ed25519" });
 * ```
 */
export function keyAlgorithmOf(der: Uint8Array, form: "spki" | "pkcs8"): KeyAlgorithmId | null {
  const outer = readTlv(der, 0);
  if (!outer || outer.tag !== 0x30 || outer.end !== der.length) return null;
  let at = outer.start;
  if (form === "pkcs8") {
    const version = readTlv(der, at, outer.end);
    if (!version || version.tag !== 0x02) return null;
    at = version.end;
  }
  const algId = readTlv(der, at, outer.end);
  if (!algId || algId.tag !== 0x30) return null;
  const oid = readTlv(der, algId.start, algId.end);
  if (!oid || oid.tag !== 0x06) return null;
  if (sameBytes(der, oid, OID_ED25519)) return { kind: "ed25519" };
  if (sameBytes(der, oid, OID_EC_PUBLIC_KEY)) {
    const curve = readTlv(der, oid.end, algId.end);
    if (curve && curve.tag === 0x06 && sameBytes(der, curve, OID_P256)) {
      return { kind: "ecdsa-p256" };
    }
    return { kind: "ec-other-curve" };
  }
  return { kind: "unknown" };
}
