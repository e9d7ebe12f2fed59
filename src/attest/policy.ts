/**
 * Trust policies for attestations (docs/keys.md, "Trust policies"): which keys are trusted, how
 * many distinct trusted keys must sign, which predicate types and verdict outcomes are
 * accepted. A CI gate passes `--policy FILE` to `empiric verify-dsse`.
 *
 * ```json
 * {
 *   "version": 1,
 *   "keys": ["keys/ci.pub", "-----BEGIN PUBLIC KEY-----\n..."],
 *   "keyids": ["3f1c...e9"],
 *   "min_signatures": 1,
 *   "predicate_types": ["https://empiric.dev/attestation/proof-record/v1"],
 *   "outcomes": ["VALIDATED"]
 * }
 * ```
 *
 * Every member but `version` is optional; unknown members are refused (a misspelt rule must
 * not pass silently). A policy that names keys (`keys` or `keyids`) trusts those keys only;
 * one that names none trusts the public keys given beside it (`--public-key`).
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { isInt, isJsonObject, type JsonValue, toNumber } from "../json/value.ts";
import type { Outcome } from "../record/types.ts";
import { importPublicKey, type PublicKey } from "./keys.ts";
import { KNOWN_PREDICATE_TYPES } from "./statement.ts";

/** A trust policy, read and with its keys imported. */
export interface TrustPolicy {
  /** Where it came from (a path, or `policy`). */
  readonly source: string;
  /** Public keys the policy trusts by value. */
  readonly keys: readonly PublicKey[];
  /** Key ids the policy trusts (the keys come from `keys` or from the caller). */
  readonly keyids: readonly string[];
  /** Distinct trusted keys that must have signed (at least 1). */
  readonly minSignatures: number;
  /** Accepted predicate types; null: the ones empiric knows. */
  readonly predicateTypes: readonly string[] | null;
  /** Accepted verdict outcomes; null: any. */
  readonly outcomes: readonly Outcome[] | null;
}

/** How {@link readPolicy} reads key files named in a policy. */
export interface PolicyFiles {
  /** Reads a key file; relative paths are resolved against the policy's directory. */
  readFile?: (path: string) => Promise<Uint8Array>;
}

const MEMBERS = new Set([
  "version",
  "keys",
  "keyids",
  "min_signatures",
  "predicate_types",
  "outcomes",
]);
const OUTCOMES: readonly Outcome[] = ["VALIDATED", "REFUTED", "INCONCLUSIVE"];
const decoder = new TextDecoder();

function invalid(source: string, pointer: string, message: string): EmpiricError {
  return new EmpiricError("policy_invalid", `${source}: ${pointer}: ${message}`, { pointer });
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash >= 0 ? path.slice(0, slash + 1) : "";
}

function strings(
  source: string,
  v: JsonValue | undefined,
  name: string,
  check?: (s: string) => string | null,
): string[] | null {
  if (v === undefined) return null;
  if (!Array.isArray(v) || v.length === 0) {
    throw invalid(source, `/${name}`, "must be a non-empty array of strings");
  }
  return v.map((x, i) => {
    if (typeof x !== "string" || x === "") {
      throw invalid(source, `/${name}/${i}`, "must be a non-empty string");
    }
    const problem = check?.(x);
    if (problem) throw invalid(source, `/${name}/${i}`, problem);
    return x;
  });
}

/**
 * Read a trust policy from JSON text, bytes or a parsed value. `source` names it in errors
 * (`policy_invalid`, with the JSON pointer of the bad member); key paths in `keys` are read
 * with `files.readFile`, relative to the policy's directory.
 *
 * @example
 * ```ts
 * import { readPolicy } from "./policy.ts";
 * import { equal, rejects } from "node:assert/strict";
 * const p = await readPolicy('{"version": 1, "min_signatures": 2, "outcomes": ["VALIDATED"]}', "p.json");
 * equal(p.minSignatures, 2);
 * await rejects(readPolicy('{"version": 1, "outcome": ["VALIDATED"]}', "p.json"), /unknown member/);
 * ```
 */
export async function readPolicy(
  input: string | Uint8Array | JsonValue,
  source: string,
  files: PolicyFiles = {},
): Promise<TrustPolicy> {
  let v: JsonValue;
  if (typeof input === "string" || input instanceof Uint8Array) {
    try {
      v = parseJson(input);
    } catch (e) {
      throw new EmpiricError("policy_invalid", `${source}: ${(e as Error).message}`, { cause: e });
    }
  } else v = input;
  if (!isJsonObject(v)) throw invalid(source, "", "a policy is a JSON object");
  for (const k of Object.keys(v)) {
    if (!MEMBERS.has(k)) {
      throw invalid(source, `/${k}`, `unknown member (known: ${[...MEMBERS].join(", ")})`);
    }
  }
  if (!(isInt(v.version) && toNumber(v.version) === 1)) {
    throw invalid(source, "/version", "must be 1");
  }
  let minSignatures = 1;
  if (v.min_signatures !== undefined) {
    const n = isInt(v.min_signatures) ? toNumber(v.min_signatures) : NaN;
    if (!(n >= 1 && n <= 1000)) {
      throw invalid(source, "/min_signatures", "must be a whole number from 1 to 1000");
    }
    minSignatures = n;
  }
  const keyids = strings(
    source,
    v.keyids,
    "keyids",
    (s) =>
      /^[0-9a-f]{64}$/.test(s) ? null : "a key id is 64 lowercase hex characters (docs/keys.md)",
  ) ?? [];
  const predicateTypes = strings(source, v.predicate_types, "predicate_types");
  const outcomes = strings(
    source,
    v.outcomes,
    "outcomes",
    (s) => (OUTCOMES as string[]).includes(s) ? null : `must be one of ${OUTCOMES.join(", ")}`,
  ) as Outcome[] | null;
  const keys: PublicKey[] = [];
  for (const [i, k] of (strings(source, v.keys, "keys") ?? []).entries()) {
    keys.push(await policyKey(k, `${source}: /keys/${i}`, dirOf(source), files));
  }
  return {
    source,
    keys,
    keyids,
    minSignatures,
    predicateTypes,
    outcomes,
  };
}

async function policyKey(
  entry: string,
  where: string,
  dir: string,
  files: PolicyFiles,
): Promise<PublicKey> {
  try {
    if (entry.includes("-----BEGIN ")) return await importPublicKey(entry, where);
    if (!files.readFile) {
      throw new EmpiricError(
        "policy_invalid",
        `${where}: key paths need a file system here; give the key's PEM text instead`,
      );
    }
    const path = entry.startsWith("/") ? entry : dir + entry;
    let bytes: Uint8Array;
    try {
      bytes = await files.readFile(path);
    } catch (e) {
      throw new EmpiricError(
        "policy_invalid",
        `${where}: cannot read ${path}: ${(e as Error).message}`,
      );
    }
    return await importPublicKey(decoder.decode(bytes), `${where} (${path})`);
  } catch (e) {
    if (e instanceof EmpiricError && e.code === "key_invalid") {
      throw new EmpiricError("policy_invalid", e.message, { cause: e });
    }
    throw e;
  }
}

/** The keys a verification tries and which of them count (see {@link trustedKeys}). */
export interface KeySet {
  /** Every key tried, without duplicates (by key id). */
  readonly candidates: readonly PublicKey[];
  /** Ids of the candidates that the policy trusts. */
  readonly trusted: ReadonlySet<string>;
}

/**
 * The keys to try and the ones to trust: without a policy, or with one that names no key, every
 * given key is trusted; a policy that names keys (by value or id) trusts exactly those, and
 * given keys it does not name are tried only to report `untrusted_signer`.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { readPolicy, trustedKeys } from "./policy.ts";
 * import { equal } from "node:assert/strict";
 * const a = (await generateKeyPair("ed25519")).privateKey.publicKey;
 * const b = (await generateKeyPair("ed25519")).privateKey.publicKey;
 * const policy = await readPolicy({ version: 1n, keyids: [a.keyid] }, "p");
 * const set = trustedKeys([a, b], policy);
 * equal(set.candidates.length, 2);
 * equal(set.trusted.has(a.keyid) && !set.trusted.has(b.keyid), true);
 * ```
 */
export function trustedKeys(given: readonly PublicKey[], policy?: TrustPolicy): KeySet {
  const byId = new Map<string, PublicKey>();
  for (const k of [...(policy?.keys ?? []), ...given]) if (!byId.has(k.keyid)) byId.set(k.keyid, k);
  const candidates = [...byId.values()];
  const closed = policy !== undefined && (policy.keys.length > 0 || policy.keyids.length > 0);
  const trusted = new Set(
    closed
      ? [...policy!.keys.map((k) => k.keyid), ...policy!.keyids].filter((id) => byId.has(id))
      : candidates.map((k) => k.keyid),
  );
  return { candidates, trusted };
}

/** The predicate types a policy accepts (its list, or the ones empiric knows). */
export function acceptedPredicateTypes(policy?: TrustPolicy): readonly string[] {
  return policy?.predicateTypes ?? KNOWN_PREDICATE_TYPES;
}
