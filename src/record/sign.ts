/**
 * proof_id and HMAC signatures of records (docs/wire-format.md, "Records").
 *
 * @module
 */
import { canonicalize, compareCodePoints, quoteString } from "../json/canonical.ts";
import { isJsonObject, type JsonObject } from "../json/value.ts";
import { hmacSha256Hex, sha256Hex } from "../crypto/hash.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import { RecordError } from "../errors/errors.ts";
import { type ProofRecord, SECTION_ORDER, type UnsignedRecord } from "./types.ts";

const encoder = new TextEncoder();

/** Canonical texts of a record body with and without `identity.proof_id`. */
export interface CanonicalBodies {
  /** canonical(body): what the signature covers. */
  readonly signed: string;
  /** canonical(body without identity.proof_id): what proof_id hashes. */
  readonly idless: string;
}

/**
 * Canonicalize a record body once for both uses: each top-level section is written once and
 * the two forms differ only in `identity`.
 *
 * @example
 * ```ts
 * import { canonicalBodies } from "./sign.ts";
 * const b = canonicalBodies({ identity: { proof_id: "x", a: 1n }, signature: { signature: "s" } });
 * console.assert(b.signed === '{"identity":{"a":1,"proof_id":"x"}}' && b.idless === '{"identity":{"a":1}}');
 * ```
 */
export function canonicalBodies(record: JsonObject): CanonicalBodies {
  const keys = Object.keys(record).filter((k) => k !== "signature").sort(compareCodePoints);
  let signed = "{";
  let idless = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const sep = (i > 0 ? "," : "") + quoteString(k) + ":";
    const v = record[k];
    if (k === "identity" && isJsonObject(v) && Object.hasOwn(v, "proof_id")) {
      const { proof_id: _, ...rest } = v;
      signed += sep + canonicalize(v);
      idless += sep + canonicalize(rest);
    } else {
      const c = canonicalize(v);
      signed += sep + c;
      idless += sep + c;
    }
  }
  return { signed: signed + "}", idless: idless + "}" };
}

/**
 * The proof_id of a record: SHA-256 of the canonical body without `identity.proof_id`.
 *
 * @example
 * ```ts
 * import { computeProofId } from "./sign.ts";
 * const id = await computeProofId({ identity: { created_at: "2026-01-01T00:00:00Z" } });
 * console.assert(/^[0-9a-f]{64}$/.test(id));
 * ```
 */
export async function computeProofId(record: JsonObject): Promise<string> {
  return await sha256Hex(encoder.encode(canonicalBodies(record).idless));
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
  const proofId = await sha256Hex(encoder.encode(canonicalBodies(draft).idless));
  draft.identity = { proof_id: proofId, ...identityRest };
  const signature = await hmacSha256Hex(key, encoder.encode(canonicalBodies(draft).signed));
  return { ...draft, signature: { signature } } as unknown as ProofRecord;
}

/**
 * The signed body: sections 1 to 8 (the record without `signature`).
 *
 * @example
 * ```ts
 * import { recordBody } from "./sign.ts";
 * console.assert(!("signature" in recordBody({ identity: {}, signature: { signature: "x" } })));
 * ```
 */
export function recordBody(record: ProofRecord | JsonObject): JsonObject {
  const { signature: _, ...body } = record as JsonObject;
  return body;
}
