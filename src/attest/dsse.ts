/**
 * DSSE envelopes (https://github.com/secure-systems-lab/dsse, protocol v1): the
 * pre-authentication encoding, signers (HMAC-SHA256 for the SPEC's symmetric envelopes, Ed25519
 * and ECDSA P-256 for public-key attestations), signing with one or several of them, and reading
 * an envelope strictly.
 *
 * Every signature carries a `keyid` (docs/keys.md): the key id of a public key, or for an HMAC
 * key the id given by the caller or else a fingerprint that only a key holder can check.
 *
 * @module
 */
import { asEmpiricError, UsageError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { hmacSha256Hex } from "../crypto/hash.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import { base64Decode, base64Encode } from "../crypto/base64.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/value.ts";
import { type KeyAlgorithm, type PrivateKey, signMessage } from "./keys.ts";

/** One DSSE signature. */
export interface DsseSignature {
  keyid?: string;
  sig: string;
}

/** A DSSE envelope. */
export interface DsseEnvelope {
  payload: string;
  payloadType: string;
  signatures: DsseSignature[];
}

const encoder = new TextEncoder();

/**
 * DSSE pre-authentication encoding of a payload type and payload bytes:
 * `"DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload`, lengths in bytes, ASCII decimal.
 *
 * @example
 * ```ts
 * import { pae } from "./dsse.ts";
 * import { equal } from "node:assert/strict";
 * const p = pae("http://example.com/HelloWorld", new TextEncoder().encode("hello world"));
 * equal(new TextDecoder().decode(p), "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
 * ```
 */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array<ArrayBuffer> {
  const type = encoder.encode(payloadType);
  const head = encoder.encode(`DSSEv1 ${type.length} `);
  const mid = encoder.encode(` ${payload.length} `);
  const out = new Uint8Array(head.length + type.length + mid.length + payload.length);
  out.set(head, 0);
  out.set(type, head.length);
  out.set(mid, head.length + type.length);
  out.set(payload, head.length + type.length + mid.length);
  return out;
}

/** The algorithm of a DSSE signer. */
export type SignerAlgorithm = "hmac-sha256" | KeyAlgorithm;

/** Something that signs DSSE pre-authentication encodings. */
export interface DsseSigner {
  /** Written into the signature's `keyid`. */
  readonly keyid: string;
  readonly algorithm: SignerAlgorithm;
  /** The raw signature bytes over the PAE bytes. */
  sign(message: Uint8Array<ArrayBuffer>): Promise<Uint8Array>;
}

function ownBytes(key: Uint8Array): Uint8Array<ArrayBuffer> {
  return (key.buffer instanceof ArrayBuffer ? key : new Uint8Array(key)) as Uint8Array<ArrayBuffer>;
}

/**
 * The default key id of an HMAC DSSE key (docs/keys.md): `hmac-sha256:` and the first 16 hex
 * characters of HMAC-SHA256(key, "empiric keyid"). It tells keys apart without revealing them;
 * only a holder of the key can recompute it.
 *
 * @example
 * ```ts
 * import { hmacKeyId } from "./dsse.ts";
 * import { match } from "node:assert/strict";
 * match(await hmacKeyId(new TextEncoder().encode("k".repeat(32))), /^hmac-sha256:[0-9a-f]{16}$/);
 * ```
 */
export async function hmacKeyId(key: Uint8Array): Promise<string> {
  const mac = await hmacSha256Hex(ownBytes(key), encoder.encode("empiric keyid"));
  return `hmac-sha256:${mac.slice(0, 16)}`;
}

/**
 * A DSSE signer over HMAC-SHA256 (the SPEC's symmetric envelopes). Refuses keys shorter than
 * 32 bytes (`key_too_short`). Without `keyid`, the signature carries {@link hmacKeyId}.
 *
 * @example
 * ```ts
 * import { hmacSigner } from "./dsse.ts";
 * import { equal } from "node:assert/strict";
 * const s = await hmacSigner(new TextEncoder().encode("k".repeat(32)), "ci-2026");
 * equal(s.keyid, "ci-2026");
 * ```
 */
export async function hmacSigner(key: Uint8Array, keyid?: string): Promise<DsseSigner> {
  assertSigningKey(key);
  const k = ownBytes(key);
  return {
    keyid: keyid ?? await hmacKeyId(k),
    algorithm: "hmac-sha256",
    sign: async (message) => fromHex(await hmacSha256Hex(k, message)),
  };
}

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * A DSSE signer over an Ed25519 or ECDSA P-256 private key; its `keyid` is the key's id.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { publicKeySigner } from "./dsse.ts";
 * import { equal } from "node:assert/strict";
 * const { privateKey } = await generateKeyPair("ed25519");
 * equal(publicKeySigner(privateKey).keyid, privateKey.keyid);
 * ```
 */
export function publicKeySigner(key: PrivateKey): DsseSigner {
  return {
    keyid: key.keyid,
    algorithm: key.algorithm,
    sign: (message) => signMessage(key, message),
  };
}

/**
 * Sign a payload into a DSSE envelope with every signer, in order (one signature each).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { hmacSigner, publicKeySigner, signEnvelope } from "./dsse.ts";
 * import { equal } from "node:assert/strict";
 * const { privateKey } = await generateKeyPair("ecdsa-p256");
 * const env = await signEnvelope("text/plain", new TextEncoder().encode("hi"), [
 *   publicKeySigner(privateKey),
 *   await hmacSigner(new TextEncoder().encode("k".repeat(32))),
 * ]);
 * equal(env.signatures.length, 2);
 * equal(env.signatures[0].keyid, privateKey.keyid);
 * ```
 */
export async function signEnvelope(
  payloadType: string,
  payload: Uint8Array,
  signers: readonly DsseSigner[],
): Promise<DsseEnvelope> {
  if (signers.length === 0) {
    throw new UsageError("a DSSE envelope needs at least one signer");
  }
  const message = pae(payloadType, payload);
  const signatures: DsseSignature[] = [];
  for (const s of signers) {
    signatures.push({ keyid: s.keyid, sig: base64Encode(await s.sign(message)) });
  }
  return { payload: base64Encode(payload), payloadType, signatures };
}

/** A signature as read from an envelope. */
export interface ReadSignature {
  /** Its position in `signatures`. */
  readonly index: number;
  /** The `keyid` hint as written (null when absent). */
  readonly keyid: string | null;
  /** The decoded signature bytes. */
  readonly sig: Uint8Array;
}

/** An envelope read strictly: decoded payload and signatures, the PAE to check them over. */
export interface ReadEnvelope {
  readonly payloadType: string;
  readonly payload: Uint8Array<ArrayBuffer>;
  readonly signatures: readonly ReadSignature[];
  /** PAE(payloadType, payload): the bytes every signature signs. */
  readonly message: Uint8Array<ArrayBuffer>;
}

/** Why an envelope cannot be read: a stable code and a message naming the member. */
export interface EnvelopeProblem {
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * Read a DSSE envelope (JSON text, bytes or a parsed object): `payload` and `payloadType`
 * strings, a non-empty `signatures` array of `{sig, keyid?}` with string members; `payload` and
 * each `sig` decode as base64, standard or URL-safe, padded or not. Returns the problem instead
 * of throwing.
 *
 * @example
 * ```ts
 * import { readEnvelope } from "./dsse.ts";
 * import { equal } from "node:assert/strict";
 * const r = readEnvelope('{"payload":"aGk=","payloadType":"text/plain","signatures":[]}');
 * equal("code" in r && r.code, "schema_invalid");
 * ```
 */
export function readEnvelope(
  envelope: DsseEnvelope | JsonObject | string | Uint8Array,
): ReadEnvelope | EnvelopeProblem {
  let env: JsonValue;
  if (typeof envelope === "string" || envelope instanceof Uint8Array) {
    try {
      env = parseJson(envelope);
    } catch (e) {
      const err = asEmpiricError(e);
      return { code: err.code, message: `the envelope is not JSON: ${err.message}` };
    }
  } else env = envelope as unknown as JsonValue;
  const bad = (message: string): EnvelopeProblem => ({ code: "schema_invalid", message });
  if (!isJsonObject(env)) return bad("the envelope is not a JSON object");
  const { payload, payloadType, signatures } = env;
  if (typeof payload !== "string") return bad("payload must be a string");
  if (typeof payloadType !== "string") return bad("payloadType must be a string");
  if (!Array.isArray(signatures) || signatures.length === 0) {
    return bad("signatures must be a non-empty array");
  }
  const body = base64Decode(payload);
  if (!body) return bad("payload is not valid base64");
  const read: ReadSignature[] = [];
  for (const [index, s] of signatures.entries()) {
    if (!isJsonObject(s) || typeof s.sig !== "string") {
      return bad(`signatures[${index}] must be an object with a string sig`);
    }
    if (s.keyid !== undefined && typeof s.keyid !== "string") {
      return bad(`signatures[${index}].keyid must be a string`);
    }
    const sig = base64Decode(s.sig);
    if (!sig) return bad(`signatures[${index}].sig is not valid base64`);
    read.push({ index, keyid: typeof s.keyid === "string" ? s.keyid : null, sig });
  }
  return { payloadType, payload: body, signatures: read, message: pae(payloadType, body) };
}

/** True when {@link readEnvelope} returned a problem. */
export function isEnvelopeProblem(r: ReadEnvelope | EnvelopeProblem): r is EnvelopeProblem {
  return "code" in r;
}

/**
 * True when a JSON value is a Sigstore bundle (a `mediaType` of
 * `application/vnd.dev.sigstore.bundle...`) rather than a bare DSSE envelope.
 *
 * @example
 * ```ts
 * import { isSigstoreBundle } from "./dsse.ts";
 * import { equal } from "node:assert/strict";
 * equal(isSigstoreBundle({ mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json" }), true);
 * equal(isSigstoreBundle({ payload: "" }), false);
 * ```
 */
export function isSigstoreBundle(value: JsonValue): boolean {
  return isJsonObject(value) && typeof value.mediaType === "string" &&
    value.mediaType.startsWith("application/vnd.dev.sigstore.bundle");
}
