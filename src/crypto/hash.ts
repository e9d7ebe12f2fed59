/**
 * SHA-256 and HMAC-SHA256 over bytes, written as lowercase hex.
 *
 * Uses the Web Crypto API (`crypto.subtle`), available in Deno, Node 20+ and browsers. Where the
 * runtime also offers the synchronous `node:crypto` module through
 * `process.getBuiltinModule` (Deno, Node 20.16+, Bun), that is used instead: same OpenSSL-class
 * primitives, without Web Crypto's per-call hand-off to a worker thread, which costs more than
 * hashing a 6 KB record. Both paths give identical results (tested).
 *
 * @module
 */

interface NodeHash {
  update(data: Uint8Array): NodeHash;
  digest(): Uint8Array;
  digest(encoding: "hex"): string;
  copy(): NodeHash;
}
interface NodeCrypto {
  createHash(algorithm: string): NodeHash;
}

function loadNodeCrypto(): NodeCrypto | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
      .process;
    return proc?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  } catch {
    return undefined;
  }
}

// Loaded on the first hash, not at import: loading node:crypto takes 5-30 ms, which commands
// that never hash (and servers until their first request) need not pay at start-up.
let nodeCryptoLoaded: NodeCrypto | undefined | null = null;

function nodeCrypto(): NodeCrypto | undefined {
  if (nodeCryptoLoaded === null) nodeCryptoLoaded = loadNodeCrypto();
  return nodeCryptoLoaded;
}

/** Which implementation hashes: `"node"` (synchronous node:crypto) or `"webcrypto"`. */
export function cryptoBackend(): "node" | "webcrypto" {
  return nodeCrypto() ? "node" : "webcrypto";
}

/** Force the Web Crypto path (`true`) or restore the default; for tests and benchmarks. */
export function useWebCryptoOnly(on: boolean): void {
  nodeCryptoLoaded = on ? undefined : loadNodeCrypto();
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Lowercase hex of bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toHex } from "./hash.ts";
 * assert.equal(toHex(new Uint8Array([0, 255])), "00ff");
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

/**
 * Bytes of a lowercase or uppercase hex string (throws on odd length or non-hex).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fromHex } from "./hash.ts";
 * assert.equal(fromHex("00ff")[1], 255);
 * ```
 */
export function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new TypeError("not a hex string");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Bytes to hash: one array, or several hashed as their concatenation. */
export type HashInput = Uint8Array<ArrayBuffer> | readonly Uint8Array<ArrayBuffer>[];

// One array of the input (Web Crypto takes one): the input itself, or its parts concatenated.
function oneArray(data: HashInput): Uint8Array<ArrayBuffer> {
  if (data instanceof Uint8Array) return data;
  const parts = data;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function feed(h: NodeHash, data: HashInput): NodeHash {
  if (data instanceof Uint8Array) return h.update(data);
  for (const part of data) h.update(part);
  return h;
}

/**
 * SHA-256 of bytes (or of the concatenation of several arrays), lowercase hex.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Hex } from "./hash.ts";
 * const enc = new TextEncoder();
 * const h = await sha256Hex(enc.encode("abc"));
 * assert.ok(h.startsWith("ba7816bf"));
 * assert.equal(await sha256Hex([enc.encode("a"), enc.encode("bc")]), h);
 * ```
 */
export async function sha256Hex(data: HashInput): Promise<string> {
  const c = nodeCrypto();
  if (c) return feed(c.createHash("sha256"), data).digest("hex");
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", oneArray(data))));
}

const keyCache = new WeakMap<Uint8Array, CryptoKey>();

// HMAC (RFC 2104) as two SHA-256 passes whose first block, the key XOR ipad/opad, is hashed
// once per key and copied: saves re-deriving the key schedule for every message.
interface HmacState {
  readonly inner: NodeHash;
  readonly outer: NodeHash;
}
const hmacStates = new WeakMap<Uint8Array, HmacState>();

// Lowercase hex straight from node:crypto (cheaper than a Buffer there).
function nodeHmacHex(c: NodeCrypto, key: Uint8Array, data: HashInput): string {
  let state = hmacStates.get(key);
  if (state === undefined) {
    const block = new Uint8Array(64);
    block.set(key.length > 64 ? c.createHash("sha256").update(key).digest() : key);
    const ipad = block.map((b) => b ^ 0x36);
    const opad = block.map((b) => b ^ 0x5c);
    state = {
      inner: c.createHash("sha256").update(ipad),
      outer: c.createHash("sha256").update(opad),
    };
    hmacStates.set(key, state);
  }
  const innerDigest = feed(state.inner.copy(), data).digest();
  return state.outer.copy().update(innerDigest).digest("hex");
}

async function hmacKey(key: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  let k = keyCache.get(key);
  if (!k) {
    k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    keyCache.set(key, k);
  }
  return k;
}

/**
 * HMAC-SHA256 of bytes under a key, lowercase hex.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmacSha256Hex } from "./hash.ts";
 * const enc = new TextEncoder();
 * const mac = await hmacSha256Hex(enc.encode("key"), enc.encode("The quick brown fox jumps over the lazy dog"));
 * assert.equal(mac, "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
 * ```
 */
export async function hmacSha256Hex(
  key: Uint8Array<ArrayBuffer>,
  data: HashInput,
): Promise<string> {
  const c = nodeCrypto();
  if (c) return nodeHmacHex(c, key, data);
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(key), oneArray(data));
  return toHex(new Uint8Array(sig));
}

// Compare two strings of equal length without an early exit.
function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Check an HMAC-SHA256 (lowercase hex) in constant time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hmacSha256Hex, hmacSha256Verify } from "./hash.ts";
 * const enc = new TextEncoder();
 * const k = enc.encode("k".repeat(32)), m = enc.encode("m");
 * assert.ok(await hmacSha256Verify(k, m, await hmacSha256Hex(k, m)));
 * ```
 */
export async function hmacSha256Verify(
  key: Uint8Array<ArrayBuffer>,
  data: HashInput,
  expectedHex: string,
): Promise<boolean> {
  if (!/^[0-9a-f]{64}$/.test(expectedHex)) return false;
  const c = nodeCrypto();
  if (c) return equalInConstantTime(nodeHmacHex(c, key, data), expectedHex);
  return await crypto.subtle.verify(
    "HMAC",
    await hmacKey(key),
    fromHex(expectedHex),
    oneArray(data),
  );
}
