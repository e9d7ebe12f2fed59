/**
 * proof_id and HMAC signatures of records (docs/wire-format.md, "Records").
 *
 * @module
 */
import { canonicalBytesCut } from "../json/canonical.ts";
import { isJsonObject, type JsonObject } from "../json/value.ts";
import { hmacSha256Hex, sha256Hex } from "../crypto/hash.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import { RecordError } from "../errors/errors.ts";
import { type ProofRecord, SECTION_ORDER, type UnsignedRecord } from "./types.ts";

/** Canonical bytes of a record body with and without `identity.proof_id`. */
export interface CanonicalBodies {
  /** canonical(body): what the signature covers. */
  readonly signed: Uint8Array<ArrayBuffer>;
  /**
   * canonical(body without identity.proof_id), as one or two slices of `signed`: what proof_id
   * hashes.
   */
  readonly idless: readonly Uint8Array<ArrayBuffer>[];
}

const PROOF_ID_PATH = ["identity", "proof_id"] as const;

/**
 * Canonicalize a record body once for both uses: the body is written once, and the form without
 * `identity.proof_id` is the same bytes with that member cut out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalBodies } from "./sign.ts";
 * const b = canonicalBodies({ identity: { proof_id: "x", a: 1n }, signature: { signature: "s" } });
 * const text = (parts: readonly Uint8Array[]) => parts.map((p) => new TextDecoder().decode(p)).join("");
 * assert.equal(text([b.signed]), '{"identity":{"a":1,"proof_id":"x"}}');
 * assert.equal(text(b.idless), '{"identity":{"a":1}}');
 * ```
 */
export function canonicalBodies(record: JsonObject): CanonicalBodies {
  const { bytes, cut } = canonicalBytesCut(recordBody(record), PROOF_ID_PATH);
  return {
    signed: bytes,
    idless: cut ? [bytes.subarray(0, cut[0]), bytes.subarray(cut[1])] : [bytes],
  };
}

/**
 * The proof_id of a record: SHA-256 of the canonical body without `identity.proof_id`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { computeProofId } from "./sign.ts";
 * const id = await computeProofId({ identity: { created_at: "2026-01-01T00:00:00Z" } });
 * assert.ok(/^[0-9a-f]{64}$/.test(id));
 * ```
 */
export async function computeProofId(record: JsonObject): Promise<string> {
  return await sha256Hex(canonicalBodies(record).idless);
}

/**
 * Sign a record: compute proof_id, then the HMAC over the canonical body. Returns a new record
 * with its sections in file order. Refuses keys shorter than 32 bytes.
 *
 * @example
 * ```ts ignore
 * import { signRecord } from "./sign.ts";
 * const signed = await signRecord(unsigned, new TextEncoder().encode(secret));
 * ```
 */
export async function signRecord(
  unsigned: UnsignedRecord | ProofRecord,
  key: Uint8Array<ArrayBuffer>,
): Promise<ProofRecord> {
  assertSigningKey(key);
  const src = unsigned as unknown as JsonObject;
  if (!isJsonObject(src.identity)) {
    throw new RecordError("record_structure", "identity must be an object", {
      pointer: "/identity",
    });
  }
  const { proof_id: _old, ...identityRest } = src.identity as JsonObject;
  const draft: JsonObject = {};
  for (const k of SECTION_ORDER) if (k !== "signature" && k in src) draft[k] = src[k];
  for (const k of Object.keys(src)) if (k !== "signature" && !(k in draft)) draft[k] = src[k];
  draft.identity = identityRest;
  const proofId = await sha256Hex(canonicalBodies(draft).idless);
  draft.identity = { proof_id: proofId, ...identityRest };
  const signature = await hmacSha256Hex(key, canonicalBodies(draft).signed);
  return { ...draft, signature: { signature } } as unknown as ProofRecord;
}

/**
 * The signed body: sections 1 to 8 (the record without `signature`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordBody } from "./sign.ts";
 * assert.ok(!("signature" in recordBody({ identity: {}, signature: { signature: "x" } })));
 * ```
 */
export function recordBody(record: ProofRecord | JsonObject): JsonObject {
  const { signature: _, ...body } = record as JsonObject;
  return body;
}
