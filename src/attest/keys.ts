/**
 * Public-key signing keys for attestations: Ed25519 and ECDSA P-256 through Web Crypto.
 *
 * Private keys are PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, unencrypted), public keys
 * SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`): the files `openssl genpkey`,
 * Python's `cryptography` and `empiric keygen` write. The **key id** of a key (docs/keys.md) is
 * the lowercase hex SHA-256 of its public key's DER SubjectPublicKeyInfo, as Web Crypto exports
 * it; a private key has the id of its public key.
 *
 * ECDSA signatures leave {@link signMessage} in ASN.1 DER and {@link verifyMessage} accepts
 * only DER, the encoding cosign, sigstore and securesystemslib use (Web Crypto's raw `r || s`
 * is converted in src/attest/der.ts). Ed25519 signatures are the 64 bytes of RFC 8032.
 *
 * @module
 */
import { KeyError } from "../errors/errors.ts";
import { sha256Hex } from "../crypto/hash.ts";
import { base64Decode, base64Encode } from "../crypto/base64.ts";
import { derToP1363, keyAlgorithmOf, p1363ToDer } from "./der.ts";

/** The public-key algorithms of attestations. */
export type KeyAlgorithm = "ed25519" | "ecdsa-p256";

/** Every {@link KeyAlgorithm}, in the order `keygen` offers them. */
export const KEY_ALGORITHMS: readonly KeyAlgorithm[] = ["ed25519", "ecdsa-p256"];

/** The securesystemslib `scheme` of each algorithm (docs/keys.md). */
export const SSLIB_SCHEME: Readonly<Record<KeyAlgorithm, string>> = {
  "ed25519": "ed25519",
  "ecdsa-p256": "ecdsa-sha2-nistp256",
};

/** A public key that verifies attestation signatures. */
export interface PublicKey {
  readonly algorithm: KeyAlgorithm;
  /** Lowercase hex SHA-256 of {@link spki}. */
  readonly keyid: string;
  /** The DER SubjectPublicKeyInfo. */
  readonly spki: Uint8Array<ArrayBuffer>;
  /** The key as SubjectPublicKeyInfo PEM. */
  readonly pem: string;
  readonly key: CryptoKey;
}

/** A private key that signs attestations, with its public half. */
export interface PrivateKey {
  readonly algorithm: KeyAlgorithm;
  /** The key id of {@link publicKey}. */
  readonly keyid: string;
  readonly key: CryptoKey;
  readonly publicKey: PublicKey;
}

/** A new key pair as files hold it. */
export interface GeneratedKeyPair {
  readonly privateKey: PrivateKey;
  /** PKCS#8 PEM of the private key. */
  readonly privatePem: string;
  /** SubjectPublicKeyInfo PEM of the public key. */
  readonly publicPem: string;
}

function params(algorithm: KeyAlgorithm): EcKeyImportParams | Algorithm {
  return algorithm === "ed25519" ? { name: "Ed25519" } : { name: "ECDSA", namedCurve: "P-256" };
}

function signParams(algorithm: KeyAlgorithm): AlgorithmIdentifier | EcdsaParams {
  return algorithm === "ed25519" ? { name: "Ed25519" } : { name: "ECDSA", hash: "SHA-256" };
}

/**
 * PEM text of DER bytes under a label (RFC 7468: base64 lines of 64 characters, final newline).
 *
 * @example
 * ```ts
 * import { pemEncode } from "./keys.ts";
 * import { equal } from "node:assert/strict";
 * equal(pemEncode("PUBLIC KEY", new Uint8Array([1, 2, 3])), "-----BEGIN PUBLIC KEY-----\nAQID\n-----END PUBLIC KEY-----\n");
 * ```
 */
export function pemEncode(label: string, der: Uint8Array): string {
  const b64 = base64Encode(der);
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)\r?\n?-----END \1-----/g;

/**
 * The DER bytes of the single PEM block of `label` in `text`. Throws `key_invalid` (naming
 * `where`) when there is none, several, the block is another kind of key, or its base64 is bad.
 *
 * @example
 * ```ts
 * import { pemDecode, pemEncode } from "./keys.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * const der = new Uint8Array([1, 2, 3]);
 * deepStrictEqual(pemDecode(pemEncode("PUBLIC KEY", der), "PUBLIC KEY", "k.pub"), der);
 * ```
 */
export function pemDecode(text: string, label: string, where: string): Uint8Array<ArrayBuffer> {
  const blocks = [...text.matchAll(PEM_BLOCK)];
  const mine = blocks.filter((b) => b[1] === label);
  if (mine.length !== 1) {
    const found = blocks.map((b) => b[1]);
    throw new KeyError("key_invalid", `${where}: ${pemProblem(label, found)}`);
  }
  const der = base64Decode(mine[0][2].replace(/\s+/g, ""));
  if (!der || der.length === 0) {
    throw new KeyError("key_invalid", `${where}: the ${label} block is not valid base64`);
  }
  return der;
}

function pemProblem(label: string, found: string[]): string {
  if (found.includes(label)) return `holds ${found.length} ${label} blocks; give one key per file`;
  const other = found[0];
  if (other === undefined) return `no PEM "${label}" block found (is this a key file?)`;
  if (other === "ENCRYPTED PRIVATE KEY" || other.startsWith("ENCRYPTED")) {
    return `the private key is encrypted (${other}); empiric reads unencrypted PKCS#8: ` +
      "`openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8`, or make one with `empiric keygen`";
  }
  if (other === "EC PRIVATE KEY") {
    return "the key is in SEC1 form (EC PRIVATE KEY); convert it to PKCS#8 with " +
      "`openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pkcs8`";
  }
  if (label === "PUBLIC KEY" && other === "PRIVATE KEY") {
    return "this is a private key; give the public key (PREFIX.pub)";
  }
  if (label === "PRIVATE KEY" && other === "PUBLIC KEY") {
    return "this is a public key; signing needs the private key (PREFIX.key)";
  }
  return `expected a "${label}" PEM block, found "${other}"`;
}

function algorithmOrThrow(der: Uint8Array, form: "spki" | "pkcs8", where: string): KeyAlgorithm {
  const id = keyAlgorithmOf(der, form);
  if (!id) throw new KeyError("key_invalid", `${where}: not a DER ${form.toUpperCase()} key`);
  if (id.kind === "ed25519" || id.kind === "ecdsa-p256") return id.kind;
  const what = id.kind === "ec-other-curve" ? "an elliptic curve other than P-256" : "an algorithm";
  throw new KeyError(
    "key_invalid",
    `${where}: the key uses ${what} that empiric does not sign with (Ed25519 and ECDSA P-256 only)`,
  );
}

/**
 * The key id of a DER SubjectPublicKeyInfo: lowercase hex SHA-256 of the bytes.
 *
 * @example
 * ```ts
 * import { keyIdOf } from "./keys.ts";
 * import { equal } from "node:assert/strict";
 * equal(await keyIdOf(new TextEncoder().encode("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * ```
 */
export async function keyIdOf(spki: Uint8Array<ArrayBuffer>): Promise<string> {
  return await sha256Hex(spki);
}

async function publicKeyFrom(algorithm: KeyAlgorithm, key: CryptoKey): Promise<PublicKey> {
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", key));
  return {
    algorithm,
    keyid: await keyIdOf(spki),
    spki,
    pem: pemEncode("PUBLIC KEY", spki),
    key,
  };
}

/**
 * Import a public key from SubjectPublicKeyInfo PEM text or DER bytes; `where` names the source
 * in errors (`key_invalid`).
 *
 * @example
 * ```ts
 * import { generateKeyPair, importPublicKey } from "./keys.ts";
 * import { equal } from "node:assert/strict";
 * const pair = await generateKeyPair("ecdsa-p256");
 * const pub = await importPublicKey(pair.publicPem, "test.pub");
 * equal(pub.keyid, pair.privateKey.keyid);
 * equal(pub.algorithm, "ecdsa-p256");
 * ```
 */
export async function importPublicKey(
  input: string | Uint8Array<ArrayBuffer>,
  where: string,
): Promise<PublicKey> {
  const der = typeof input === "string" ? pemDecode(input, "PUBLIC KEY", where) : input;
  const algorithm = algorithmOrThrow(der, "spki", where);
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("spki", der, params(algorithm), true, ["verify"]);
  } catch (e) {
    throw new KeyError("key_invalid", `${where}: cannot read the public key: ${errText(e)}`, {
      cause: e,
    });
  }
  return await publicKeyFrom(algorithm, key);
}

/**
 * Import a private key from PKCS#8 PEM text; `where` names the file in errors (`key_invalid`).
 * Its public half (and so its key id) is derived from it.
 *
 * @example
 * ```ts
 * import { generateKeyPair, importPrivateKey } from "./keys.ts";
 * import { equal } from "node:assert/strict";
 * const pair = await generateKeyPair("ed25519");
 * const again = await importPrivateKey(pair.privatePem, "test.key");
 * equal(again.keyid, pair.privateKey.keyid);
 * ```
 */
export async function importPrivateKey(text: string, where: string): Promise<PrivateKey> {
  const der = pemDecode(text, "PRIVATE KEY", where);
  const algorithm = algorithmOrThrow(der, "pkcs8", where);
  let key: CryptoKey;
  let publicKey: CryptoKey;
  try {
    // Extractable only here, to derive the public half; the key kept is not extractable.
    const full = await crypto.subtle.importKey("pkcs8", der, params(algorithm), true, ["sign"]);
    const jwk = await crypto.subtle.exportKey("jwk", full);
    delete jwk.d;
    jwk.key_ops = ["verify"];
    publicKey = await crypto.subtle.importKey("jwk", jwk, params(algorithm), true, ["verify"]);
    key = await crypto.subtle.importKey("pkcs8", der, params(algorithm), false, ["sign"]);
  } catch (e) {
    throw new KeyError("key_invalid", `${where}: cannot read the private key: ${errText(e)}`, {
      cause: e,
    });
  }
  const pub = await publicKeyFrom(algorithm, publicKey);
  return { algorithm, keyid: pub.keyid, key, publicKey: pub };
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A new key pair (randomness from Web Crypto).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { match } from "node:assert/strict";
 * const pair = await generateKeyPair("ed25519");
 * match(pair.privatePem, /^-----BEGIN PRIVATE KEY-----\n/);
 * match(pair.privateKey.keyid, /^[0-9a-f]{64}$/);
 * ```
 */
export async function generateKeyPair(algorithm: KeyAlgorithm): Promise<GeneratedKeyPair> {
  const pair = await crypto.subtle.generateKey(params(algorithm), true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const pub = await publicKeyFrom(algorithm, pair.publicKey);
  return {
    privateKey: { algorithm, keyid: pub.keyid, key: pair.privateKey, publicKey: pub },
    privatePem: pemEncode("PRIVATE KEY", pkcs8),
    publicPem: pub.pem,
  };
}

/**
 * Sign bytes: Ed25519, or ECDSA P-256 with SHA-256 whose signature is returned in ASN.1 DER.
 *
 * @example
 * ```ts
 * import { generateKeyPair, signMessage, verifyMessage } from "./keys.ts";
 * import { equal } from "node:assert/strict";
 * const { privateKey } = await generateKeyPair("ecdsa-p256");
 * const msg = new TextEncoder().encode("hello");
 * const sig = await signMessage(privateKey, msg);
 * equal(sig[0], 0x30); // DER SEQUENCE
 * equal(await verifyMessage(privateKey.publicKey, msg, sig), true);
 * ```
 */
export async function signMessage(
  key: PrivateKey,
  message: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const raw = new Uint8Array(
    await crypto.subtle.sign(signParams(key.algorithm), key.key, message),
  );
  return key.algorithm === "ecdsa-p256" ? p1363ToDer(raw) : raw;
}

/**
 * Check a signature over bytes under a public key (ECDSA: DER only). False, never an exception,
 * for a signature of the wrong form.
 *
 * @example
 * ```ts
 * import { generateKeyPair, signMessage, verifyMessage } from "./keys.ts";
 * import { equal } from "node:assert/strict";
 * const { privateKey } = await generateKeyPair("ed25519");
 * const sig = await signMessage(privateKey, new TextEncoder().encode("a"));
 * equal(await verifyMessage(privateKey.publicKey, new TextEncoder().encode("b"), sig), false);
 * ```
 */
export async function verifyMessage(
  key: PublicKey,
  message: Uint8Array<ArrayBuffer>,
  signature: Uint8Array,
): Promise<boolean> {
  let sig: Uint8Array<ArrayBuffer> | null;
  if (key.algorithm === "ecdsa-p256") sig = derToP1363(signature, 32);
  else sig = signature.length === 64 ? new Uint8Array(signature) : null;
  if (!sig) return false;
  try {
    return await crypto.subtle.verify(signParams(key.algorithm), key.key, sig, message);
  } catch {
    return false;
  }
}
