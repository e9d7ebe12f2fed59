/**
 * Signing and verification keys.
 *
 * Keys are byte strings; text keys are their UTF-8 bytes. Signing needs at least
 * {@link MIN_SIGNING_KEY_BYTES} bytes; verification accepts any length.
 *
 * @module
 */
import { KeyError } from "../errors/errors.ts";

/** The documented demo key. Never use it in production: anyone can sign with it. */
export const DEFAULT_DEMO_KEY = "empiric-demo-key-do-not-use-in-production";

/** Minimum length of a signing key, in bytes. */
export const MIN_SIGNING_KEY_BYTES = 32;

const encoder = new TextEncoder();

/**
 * The bytes of a text key (UTF-8).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyFromText } from "./keys.ts";
 * assert.equal(keyFromText("é").length, 2);
 * ```
 */
export function keyFromText(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text) as Uint8Array<ArrayBuffer>;
}

/** The demo key's bytes. */
export const DEMO_KEY_BYTES: Uint8Array<ArrayBuffer> = keyFromText(DEFAULT_DEMO_KEY);

/**
 * True when the key is the demo key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEMO_KEY_BYTES, isDemoKey } from "./keys.ts";
 * assert.ok(isDemoKey(DEMO_KEY_BYTES));
 * ```
 */
export function isDemoKey(key: Uint8Array): boolean {
  if (key.length !== DEMO_KEY_BYTES.length) return false;
  for (let i = 0; i < key.length; i++) if (key[i] !== DEMO_KEY_BYTES[i]) return false;
  return true;
}

/**
 * Throw `key_too_short` unless the key is long enough to sign with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assertSigningKey, keyFromText } from "./keys.ts";
 * assertSigningKey(keyFromText("x".repeat(32)));
 * assert.throws(() => assertSigningKey(keyFromText("x".repeat(31))), /at least 32 bytes/);
 * ```
 */
export function assertSigningKey(key: Uint8Array): void {
  if (key.length < MIN_SIGNING_KEY_BYTES) {
    throw new KeyError(
      "key_too_short",
      `signing keys must be at least ${MIN_SIGNING_KEY_BYTES} bytes; this one has ${key.length}`,
    );
  }
}

/** Where a key came from. */
export type KeySource = "option" | "file" | "env" | "demo";

/** A resolved key and its origin. */
export interface ResolvedKey {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly source: KeySource;
}

/** Inputs to {@link resolveKey}; the caller supplies the environment and file reader. */
export interface KeyInputs {
  /** `--key TEXT` */
  key?: string;
  /** `--key-file PATH` */
  keyFile?: string;
  /** Value of `EMPIRIC_SIGN_KEY`, if set. */
  envKey?: string;
  /** Reads a key file. */
  readFile?: (path: string) => Promise<Uint8Array>;
  /** Fall back to the demo key when nothing is given (servers, `run`); otherwise undefined. */
  demoFallback?: boolean;
}

/**
 * Pick the key from `--key`, `--key-file`, `EMPIRIC_SIGN_KEY`, then (optionally) the demo key.
 * Key files are read as bytes; one trailing newline (LF or CRLF) is dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveKey } from "./keys.ts";
 * const k = await resolveKey({ envKey: "from-the-environment-0123456789abcdef" });
 * assert.equal(k?.source, "env");
 * ```
 */
export async function resolveKey(inputs: KeyInputs): Promise<ResolvedKey | undefined> {
  if (inputs.key !== undefined && inputs.keyFile !== undefined) {
    throw new KeyError("key_invalid", "give either --key or --key-file, not both");
  }
  if (inputs.key !== undefined) {
    if (inputs.key === "") throw new KeyError("key_invalid", "--key is empty");
    return { bytes: keyFromText(inputs.key), source: "option" };
  }
  if (inputs.keyFile !== undefined) {
    if (!inputs.readFile) throw new KeyError("key_invalid", "no file reader to read --key-file");
    let bytes: Uint8Array;
    try {
      bytes = await inputs.readFile(inputs.keyFile);
    } catch (cause) {
      throw new KeyError(
        "key_invalid",
        `cannot read key file ${inputs.keyFile}: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0a) {
      end--;
      if (end > 0 && bytes[end - 1] === 0x0d) end--;
    }
    if (end === 0) throw new KeyError("key_invalid", `key file ${inputs.keyFile} is empty`);
    return { bytes: bytes.slice(0, end) as Uint8Array<ArrayBuffer>, source: "file" };
  }
  if (inputs.envKey !== undefined && inputs.envKey !== "") {
    return { bytes: keyFromText(inputs.envKey), source: "env" };
  }
  if (inputs.demoFallback) return { bytes: DEMO_KEY_BYTES, source: "demo" };
  return undefined;
}
