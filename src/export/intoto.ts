/**
 * in-toto Statement v1 of a proof record and its DSSE envelope (SPEC "in-toto Statement v1 and
 * DSSE"): `toInTotoStatement`, `toDsseEnvelope`, `verifyDsseEnvelope`, and the separate inner
 * check of the record signature over `predicate.body`.
 *
 * The DSSE signature is HMAC-SHA256 over the pre-authentication encoding
 * `PAE(payloadType, payload) = "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload`
 * (lengths in bytes, ASCII decimal). The payload is the Statement's canonical JSON bytes
 * (wire-format rules R1–R11). Verification checks the exact payload bytes of the envelope and
 * parses the Statement only from the bytes that verified; nothing is re-serialized.
 *
 * @module
 */
import { asEmpiricError, RecordError, UsageError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { canonicalBytes } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/value.ts";
import { hmacSha256Verify, sha256Hex, toHex } from "../crypto/hash.ts";
import { verifyRecord, type VerifyResult } from "../record/verify.ts";
import { recordBody } from "../record/sign.ts";
import type { ProofRecord } from "../record/types.ts";
import {
  type DsseEnvelope,
  type DsseSigner,
  hmacSigner,
  isEnvelopeProblem,
  publicKeySigner,
  readEnvelope,
  signEnvelope,
} from "../attest/dsse.ts";
import type { PrivateKey } from "../attest/keys.ts";
import { loadProof, type ProofInput, withPyInts } from "./common.ts";

export { type DsseEnvelope, type DsseSignature, pae } from "../attest/dsse.ts";

/** `_type` of an in-toto Statement v1. */
export const IN_TOTO_STATEMENT_V1_TYPE = "https://in-toto.io/Statement/v1";
/** `predicateType` of an empiric proof record predicate, version 1. */
export const PROOFSVC_PREDICATE_TYPE_V1 = "https://empiric.dev/attestation/proof-record/v1";
/** DSSE `payloadType` of an in-toto Statement. */
export const DSSE_INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** A subject of a Statement (an in-toto ResourceDescriptor with a digest). */
export interface InTotoSubject {
  name: string;
  digest: { sha256: string };
  mediaType?: string;
}

/** The proof record predicate: the signed body (sections 1–8) and the record's HMAC (hex). */
export interface ProofPredicate {
  body: JsonObject;
  signature: string;
}

/** An in-toto Statement v1 about a proof record (a typed JSON value: ints are `PyInt`). */
export interface InTotoStatement {
  _type: typeof IN_TOTO_STATEMENT_V1_TYPE;
  subject: InTotoSubject[];
  predicateType: typeof PROOFSVC_PREDICATE_TYPE_V1;
  predicate: ProofPredicate;
}

/** Options of {@link toInTotoStatement}. */
export interface StatementOptions {
  /**
   * Name of the record file in the second subject (default `<proof_id>.json`, the proof
   * store's file name).
   */
  fileName?: string;
}

/**
 * The two subjects of a Statement about a record: the record by its proof_id, and the record
 * file by the SHA-256 of its bytes (so that blob-based tools such as
 * `cosign verify-blob-attestation` match the file).
 */
export async function recordSubjects(
  record: ProofRecord,
  bytes: Uint8Array<ArrayBuffer>,
  options: StatementOptions = {},
): Promise<InTotoSubject[]> {
  const id = record.identity.proof_id;
  const name = options.fileName ?? `${id}.json`;
  if (name === "" || /[\/]/.test(name)) {
    throw new UsageError(
      `a record file name must be a plain file name, got ${JSON.stringify(name)}`,
    );
  }
  return [
    { name: `${id}.json`, digest: { sha256: id } },
    { name, digest: { sha256: await sha256Hex(bytes) }, mediaType: "application/json" },
  ];
}

/**
 * The in-toto Statement v1 of a signed record (SPEC `to_in_toto_statement(proof)`).
 *
 * - `subject[0]`: `name` `<proof_id>.json`, `digest.sha256` = the proof_id (the SHA-256 of the
 *   canonical body without `identity.proof_id`, as the SPEC defines it);
 * - `subject[1]`: the record file: `name` (option `fileName`, default `<proof_id>.json`),
 *   `digest.sha256` = the SHA-256 of the file's bytes (of the text or bytes given; a typed
 *   record is hashed as empiric writes record files), `mediaType` `application/json`;
 * - `predicate.body`: sections 1 to 8 exactly as signed; `predicate.signature`: section 9's
 *   HMAC, lowercase hex.
 *
 * The record is checked first (schema and proof_id). Ints in the result are `PyInt`, so it
 * can be written with `JSON.stringify` too; sign and hash its {@link statementBytes}.
 *
 * @example
 * ```ts
 * import { toInTotoStatement } from "./intoto.ts";
 * import { equal } from "node:assert/strict";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const st = await toInTotoStatement(text);
 * equal(st.subject[0].digest.sha256, st.predicate.body.identity && (st.predicate.body.identity as { proof_id: string }).proof_id);
 * equal(st.subject.length, 2);
 * ```
 */
export async function toInTotoStatement(
  proof: ProofInput,
  options: StatementOptions = {},
): Promise<InTotoStatement> {
  const { record, bytes } = await loadProof(proof);
  return {
    _type: IN_TOTO_STATEMENT_V1_TYPE,
    subject: await recordSubjects(record, bytes, options),
    predicateType: PROOFSVC_PREDICATE_TYPE_V1,
    predicate: {
      body: withPyInts(recordBody(record)),
      signature: record.signature.signature,
    },
  };
}

/** The canonical JSON bytes of a Statement: the DSSE payload. */
export function statementBytes(statement: { _type: string }): Uint8Array<ArrayBuffer> {
  return canonicalBytes(statement as unknown as JsonValue);
}

function keyBytes(key: Uint8Array): Uint8Array<ArrayBuffer> {
  return (key.buffer instanceof ArrayBuffer ? key : new Uint8Array(key)) as Uint8Array<ArrayBuffer>;
}

/** Options of {@link toDsseEnvelope}. */
export interface DsseOptions extends StatementOptions {
  /** A DSSE HMAC key (at least 32 bytes); may differ from the record's key. */
  key?: Uint8Array;
  /** The HMAC signature's key id (default: the key's fingerprint, docs/keys.md). */
  keyid?: string;
  /** Ed25519 / ECDSA P-256 keys, one public-key signature each (after the HMAC one). */
  signingKeys?: readonly PrivateKey[];
}

/** The signers an options object names: the HMAC key first, then each private key. */
export async function dsseSigners(options: DsseOptions): Promise<DsseSigner[]> {
  const signers: DsseSigner[] = [];
  if (options.key !== undefined) signers.push(await hmacSigner(options.key, options.keyid));
  else if (options.keyid !== undefined) {
    throw new UsageError("keyid names the HMAC key's signature: give key too");
  }
  for (const k of options.signingKeys ?? []) signers.push(publicKeySigner(k));
  if (signers.length === 0) {
    throw new UsageError("a DSSE envelope needs a key: an HMAC key or a signing key");
  }
  return signers;
}

/**
 * Sign any payload into a DSSE envelope with HMAC-SHA256 over PAE. Refuses keys shorter than
 * 32 bytes (`key_too_short`), as record signing does.
 */
export async function signDsse(
  payloadType: string,
  payload: Uint8Array,
  options: DsseOptions,
): Promise<DsseEnvelope> {
  return await signEnvelope(payloadType, payload, await dsseSigners(options));
}

/**
 * The DSSE envelope of a signed record's in-toto Statement (SPEC
 * `to_dsse_envelope(proof, key=<bytes>, keyid=<string>)`): `payloadType`
 * {@link DSSE_INTOTO_PAYLOAD_TYPE}, `payload` = standard base64 (padded) of the Statement's
 * canonical bytes, one signature `{keyid, sig}` per key: with `key`, `sig` = base64 of
 * HMAC-SHA256(key, PAE); with `signingKeys`, an Ed25519 or ECDSA P-256 (DER) signature each.
 * Every signature carries a `keyid`.
 *
 * @example
 * ```ts
 * import { toDsseEnvelope, verifyDsseEnvelope } from "./intoto.ts";
 * import { equal } from "node:assert/strict";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const key = new TextEncoder().encode("a-dsse-key-of-at-least-32-bytes!!");
 * const env = await toDsseEnvelope(text, { key, keyid: "ci-2026" });
 * equal((await verifyDsseEnvelope(env, key)).verified, true);
 * ```
 */
export async function toDsseEnvelope(
  proof: ProofInput,
  options: DsseOptions,
): Promise<DsseEnvelope> {
  const signers = await dsseSigners(options);
  const statement = await toInTotoStatement(proof, options);
  return await signEnvelope(DSSE_INTOTO_PAYLOAD_TYPE, statementBytes(statement), signers);
}

/** The result of {@link verifyDsseEnvelope}. */
export interface DsseVerification {
  /** True when a signature verifies under the key and the payload is an empiric Statement. */
  verified: boolean;
  /** Code of the first failure, or null. */
  reason: ErrorCode | null;
  /** What failed, for people. */
  message: string | null;
  /** `keyid` of the signature that verified (null when none did or it has none). */
  keyid: string | null;
  /** The envelope's payloadType, when readable. */
  payloadType: string | null;
  /** The payload bytes that verified (null unless the signature verified). */
  payload: Uint8Array | null;
  /** The Statement parsed (typed) from the verified bytes, when it is one. */
  statement: InTotoStatement | null;
}

function fail(
  reason: ErrorCode,
  message: string,
  extra: Partial<DsseVerification> = {},
): DsseVerification {
  return {
    verified: false,
    reason,
    message,
    keyid: null,
    payloadType: null,
    payload: null,
    statement: null,
    ...extra,
  };
}

/**
 * Check the signature of any DSSE envelope under an HMAC-SHA256 key (DSSE steps only, no
 * payload type policy): the envelope's shape (`payload`, `payloadType`, a non-empty
 * `signatures` array of `{sig}`); `payload` and each `sig` decode as base64, standard or
 * URL-safe, padded or not; some signature equals HMAC-SHA256(key, PAE(payloadType, payload
 * bytes)), compared in constant time (`signature_mismatch` otherwise). On success `payload`
 * holds the bytes that verified. Never throws for a bad envelope.
 */
export async function verifyDsseSignature(
  envelope: DsseEnvelope | JsonObject | string | Uint8Array,
  key: Uint8Array,
): Promise<DsseVerification> {
  const env = readEnvelope(envelope);
  if (isEnvelopeProblem(env)) return fail(env.code, env.message);
  const payloadType = env.payloadType;
  const k = keyBytes(key);
  let matched: { keyid: string | null } | undefined;
  for (const s of env.signatures) {
    // Check every signature (no early exit) so that timing does not reveal which one matched.
    const ok = s.sig.length === 32 && await hmacSha256Verify(k, env.message, toHex(s.sig));
    if (ok && !matched) matched = { keyid: s.keyid };
  }
  if (!matched) {
    return fail("signature_mismatch", "no signature verifies under the given DSSE key", {
      payloadType,
    });
  }
  return {
    verified: true,
    reason: null,
    message: null,
    keyid: matched.keyid,
    payloadType,
    payload: env.payload,
    statement: null,
  };
}

/**
 * Check a DSSE envelope of an empiric in-toto Statement under a key (SPEC
 * `verify_dsse_envelope(envelope, key)`): the outer envelope only, in the order DSSE
 * prescribes: first the signature ({@link verifyDsseSignature}), then, on the bytes that
 * verified and never on a re-serialization, that `payloadType` is
 * {@link DSSE_INTOTO_PAYLOAD_TYPE} and the payload parses (typed parser) as an in-toto
 * Statement v1 with predicateType {@link PROOFSVC_PREDICATE_TYPE_V1}.
 *
 * Never throws for a bad envelope. The record inside is not checked: use
 * {@link verifyStatementRecord} with the record's key for that.
 */
export async function verifyDsseEnvelope(
  envelope: DsseEnvelope | JsonObject | string | Uint8Array,
  key: Uint8Array,
): Promise<DsseVerification> {
  const sig = await verifyDsseSignature(envelope, key);
  if (!sig.verified || !sig.payload) return sig;
  const verifiedPart = { keyid: sig.keyid, payloadType: sig.payloadType, payload: sig.payload };
  if (sig.payloadType !== DSSE_INTOTO_PAYLOAD_TYPE) {
    return fail(
      "schema_invalid",
      `unsupported payloadType ${
        JSON.stringify(sig.payloadType)
      } (expected ${DSSE_INTOTO_PAYLOAD_TYPE})`,
      verifiedPart,
    );
  }
  let statement: JsonValue;
  try {
    statement = parseJson(sig.payload);
  } catch (e) {
    const err = asEmpiricError(e);
    return fail(err.code, `the payload is not JSON: ${err.message}`, verifiedPart);
  }
  const problem = statementProblem(statement);
  if (problem) return fail("schema_invalid", problem, verifiedPart);
  return { ...sig, statement: statement as unknown as InTotoStatement };
}

function statementProblem(st: JsonValue): string | null {
  if (!isJsonObject(st)) return "the payload is not a JSON object";
  if (st._type !== IN_TOTO_STATEMENT_V1_TYPE) {
    return `_type is ${JSON.stringify(st._type)}, expected ${IN_TOTO_STATEMENT_V1_TYPE}`;
  }
  if (st.predicateType !== PROOFSVC_PREDICATE_TYPE_V1) {
    return `predicateType is ${
      JSON.stringify(st.predicateType)
    }, expected ${PROOFSVC_PREDICATE_TYPE_V1}`;
  }
  const subject = st.subject;
  if (
    !Array.isArray(subject) || subject.length === 0 ||
    !subject.every((s) =>
      isJsonObject(s) && isJsonObject(s.digest) && Object.keys(s.digest).length > 0
    )
  ) {
    return "subject must be a non-empty array of descriptors with a digest";
  }
  const p = st.predicate;
  if (!isJsonObject(p) || !isJsonObject(p.body) || typeof p.signature !== "string") {
    return "predicate must be an object with body (an object) and signature (a string)";
  }
  return null;
}

/** The result of {@link verifyStatementRecord}: the record check plus the subject match. */
export interface StatementRecordCheck extends VerifyResult {
  /** True when a subject's sha256 digest equals the body's proof_id. */
  subject_matches: boolean;
}

/**
 * The inner check (SPEC "Authentication" 3): rebuild the record from `predicate.body` and
 * `predicate.signature` and verify it as any record is verified (schema, proof_id, and with the
 * record's key the HMAC over the canonical body); also check that the Statement's subject
 * digest is that proof_id. Separate from {@link verifyDsseEnvelope}: the DSSE key and the
 * record key may differ.
 */
export async function verifyStatementRecord(
  statement: InTotoStatement | JsonObject,
  recordKey?: Uint8Array,
): Promise<StatementRecordCheck> {
  const st = statement as unknown as JsonObject;
  const p = isJsonObject(st.predicate) ? st.predicate : {};
  const body = isJsonObject(p.body) ? p.body : {};
  const record: JsonObject = { ...body, signature: { signature: p.signature ?? null } };
  const r = await verifyRecord(record, recordKey ? { key: keyBytes(recordKey) } : {});
  const id = r.proof_id;
  const subjects = Array.isArray(st.subject) ? st.subject : [];
  const subjectMatches = id !== null &&
    subjects.some((s) => isJsonObject(s) && isJsonObject(s.digest) && s.digest.sha256 === id);
  if (r.valid && !subjectMatches) {
    return {
      ...r,
      valid: false,
      verified: false,
      reason: "proof_id_mismatch",
      problems: [...r.problems, {
        code: "proof_id_mismatch",
        message: `no subject of the Statement has digest.sha256 = the body's proof_id ${id}`,
        pointer: "/subject",
      }],
      subject_matches: false,
    };
  }
  return { ...r, subject_matches: subjectMatches };
}

/** Throw unless a DSSE verification succeeded (for callers that prefer exceptions). */
export function assertDsseVerified(v: DsseVerification): InTotoStatement {
  if (!v.verified || !v.statement) {
    throw new RecordError(
      v.reason ?? "signature_mismatch",
      v.message ?? "the envelope does not verify",
    );
  }
  return v.statement;
}
