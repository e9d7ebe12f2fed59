/**
 * The JS names of the SPEC's wire-format ports: `parseProof`, `verifySignature`,
 * `signCanonical` (with `PyInt` for integers). Same semantics as the Rust crate's
 * `parse_proof`, `verify_signature`, `sign_canonical`.
 *
 * @module
 */
import { RecordError } from "../errors/errors.ts";
import { canonicalBytes } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import { hmacSha256Hex, hmacSha256Verify, sha256Hex } from "../crypto/hash.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import { validateRecordSchema } from "../schema/record_schema.ts";
import { canonicalBodies } from "./sign.ts";
import type { ProofRecord } from "./types.ts";

/** A parsed, schema-valid proof record (typed values: ints are `bigint`). */
export interface Proof {
  /** The whole record as a typed value. */
  readonly record: ProofRecord;
  /** `identity.proof_id` as written in the record. */
  readonly proofId: string;
  /** `verdict.outcome`. */
  readonly outcome: string;
  /** Section 9 signature, lowercase hex. */
  readonly signature: string;
}

function asBytes(key: Uint8Array): Uint8Array<ArrayBuffer> {
  return (key.buffer instanceof ArrayBuffer ? key : new Uint8Array(key)) as Uint8Array<ArrayBuffer>;
}

/**
 * Parse a record's JSON text (or UTF-8 bytes) with the typed parser and check it against the
 * record schema. Throws a `WireError` (parse codes) or a `RecordError` (`schema_invalid`, with
 * every problem and its JSON pointer).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProof } from "./proof.ts";
 * try {
 *   parseProof('{"identity": {}}');
 * } catch (e) {
 *   assert.equal((e as { code: string }).code, "schema_invalid");
 * }
 * ```
 */
export function parseProof(text: string | Uint8Array): Proof {
  const value = parseJson(text);
  const problems = validateRecordSchema(value);
  if (problems.length > 0) {
    throw new RecordError("schema_invalid", problems.map((p) => p.message).join("; "), {
      problems,
    });
  }
  const record = value as unknown as ProofRecord;
  return {
    record,
    proofId: record.identity.proof_id,
    outcome: record.verdict.outcome,
    signature: record.signature.signature,
  };
}

/**
 * Check a proof's signature under a key. Resolves `true` when it verifies and `false` when it
 * does not; rejects with `proof_id_mismatch` when the body no longer hashes to its proof_id
 * (the record was edited). Constant-time comparison.
 *
 * @example
 * ```ts ignore
 * const ok = await verifySignature(parseProof(text), new TextEncoder().encode(key));
 * ```
 */
export async function verifySignature(proof: Proof, keyBytes: Uint8Array): Promise<boolean> {
  const bodies = canonicalBodies(proof.record as unknown as JsonObject);
  const id = await sha256Hex(bodies.idless);
  if (id !== proof.proofId) {
    throw new RecordError(
      "proof_id_mismatch",
      `identity.proof_id is ${proof.proofId} but the body hashes to ${id}`,
      {
        pointer: "/identity/proof_id",
      },
    );
  }
  return await hmacSha256Verify(asBytes(keyBytes), bodies.signed, proof.signature);
}

/**
 * HMAC-SHA256 (lowercase hex) of a value's canonical bytes. Integers must be `PyInt` (or
 * `bigint`); plain numbers are floats. Refuses keys shorter than 32 bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signCanonical } from "./proof.ts";
 * import { PyInt } from "../json/value.ts";
 * const sig = await signCanonical({ n: new PyInt(1), x: 1.5 }, new TextEncoder().encode("k".repeat(32)));
 * assert.ok(/^[0-9a-f]{64}$/.test(sig));
 * ```
 */
export async function signCanonical(value: JsonValue, keyBytes: Uint8Array): Promise<string> {
  assertSigningKey(keyBytes);
  return await hmacSha256Hex(asBytes(keyBytes), canonicalBytes(value));
}
