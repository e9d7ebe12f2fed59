/**
 * Verifying a public-key attestation: a DSSE envelope of an in-toto Statement signed with
 * Ed25519 or ECDSA P-256 keys, checked against public keys and an optional trust policy.
 *
 * Verification runs named steps in order; the first that fails ends it with its step name and
 * a stable error code (docs/keys.md, "Verification steps"):
 *
 * | step | checks | code when it fails |
 * | --- | --- | --- |
 * | `envelope` | the DSSE envelope's shape and base64 | `schema_invalid` (or a parse code) |
 * | `signatures` | each signature under each key (key id hint first), over PAE | `signature_mismatch` |
 * | `trust` | a trusted key signed | `untrusted_signer` |
 * | `threshold` | at least `min_signatures` distinct trusted keys signed | `signature_threshold` |
 * | `statement` | payloadType in-toto, an in-toto Statement v1, parsed from the verified bytes | `schema_invalid` |
 * | `predicate_type` | the policy accepts the predicate type | `policy_violation` |
 * | `predicate` | the predicate is well formed; a proof record's body, proof_id and subject agree (and its HMAC, with the record key) | `schema_invalid`, `proof_id_mismatch`, `signature_mismatch` |
 * | `outcome` | the policy accepts the stated verdict outcome | `policy_violation` |
 *
 * Nothing is re-serialized: the Statement is parsed from the exact payload bytes that verified.
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import type { JsonObject } from "../json/value.ts";
import type { Outcome } from "../record/types.ts";
import { verifyStatementRecord } from "../export/intoto.ts";
import type { StatementRecordCheck } from "../export/intoto.ts";
import { type DsseEnvelope, isEnvelopeProblem, type ReadEnvelope, readEnvelope } from "./dsse.ts";
import { type PublicKey, verifyMessage } from "./keys.ts";
import { acceptedPredicateTypes, type KeySet, trustedKeys, type TrustPolicy } from "./policy.ts";
import {
  INTOTO_PAYLOAD_TYPE,
  isStatementProblem,
  outcomeOf,
  PROOF_RECORD_PREDICATE_TYPE,
  readStatement,
  REGISTRATION_PREDICATE_TYPE,
  registrationProblem,
  type Statement,
  TEST_RESULT_PREDICATE_TYPE,
  testResultProblem,
} from "./statement.ts";

import { VERIFICATION_STEPS, type VerificationStep } from "./steps.ts";

export { VERIFICATION_STEPS, type VerificationStep };

/** A failed verification step: its name and a stable code. */
export class AttestationError extends EmpiricError {
  /** The step that failed. */
  readonly step: VerificationStep;
  constructor(step: VerificationStep, code: ErrorCode, message: string) {
    super(code, message);
    this.step = step;
  }
}

/** What became of one signature of the envelope. */
export interface SignatureCheck {
  /** Position in `signatures`. */
  index: number;
  /** The `keyid` as written (a hint, unauthenticated), or null. */
  keyid: string | null;
  /** Id of the key it verifies under, or null when it verifies under none of the keys. */
  verified_by: string | null;
  /** Whether that key is trusted (the policy's keys, or every given key without a policy). */
  trusted: boolean;
}

/** The result of {@link verifyAttestation}. */
export interface AttestationVerification {
  /** True when every step passed. */
  verified: boolean;
  /** The step that failed, or null. */
  step: VerificationStep | null;
  /** Stable code of the failure, or null. */
  reason: ErrorCode | null;
  /** What failed, for people. */
  message: string | null;
  /** Per signature: which key verified it. */
  signatures: SignatureCheck[];
  /** Distinct trusted key ids whose signature verified. */
  signers: string[];
  /** Signatures needed (the policy's `min_signatures`, else 1). */
  min_signatures: number;
  payloadType: string | null;
  predicateType: string | null;
  /** The verdict outcome the Statement states, when it states one. */
  outcome: Outcome | null;
  /** The verified payload bytes (set once the signatures verified). */
  payload: Uint8Array | null;
  /** The Statement, parsed from the verified bytes (typed JSON). */
  statement: Statement | null;
  /** For a proof record predicate: the inner record check. */
  record: StatementRecordCheck | null;
}

/** Options of {@link verifyAttestation}. */
export interface VerifyAttestationOptions {
  /** Public keys to verify with (`--public-key`). */
  publicKeys?: readonly PublicKey[];
  /** A trust policy (`--policy`). */
  policy?: TrustPolicy;
  /** The record's HMAC key, to also check a proof record predicate's section 9. */
  recordKey?: Uint8Array;
}

/** Step `signatures`: which key verifies each signature (keys with a matching id first). */
export async function checkSignatures(
  env: ReadEnvelope,
  keys: KeySet,
): Promise<SignatureCheck[]> {
  const out: SignatureCheck[] = [];
  for (const s of env.signatures) {
    // The keyid is a hint: try the key it names first, then the others.
    const order = [...keys.candidates].sort((a, b) =>
      Number(b.keyid === s.keyid) - Number(a.keyid === s.keyid)
    );
    let by: PublicKey | null = null;
    for (const k of order) {
      if (await verifyMessage(k, env.message, s.sig)) {
        by = k;
        break;
      }
    }
    out.push({
      index: s.index,
      keyid: s.keyid,
      verified_by: by?.keyid ?? null,
      trusted: by !== null && keys.trusted.has(by.keyid),
    });
  }
  return out;
}

/** Steps `trust` and `threshold`: the distinct trusted signers, or the failure. */
export function checkTrust(checks: readonly SignatureCheck[], minSignatures: number): string[] {
  const signers = [...new Set(checks.filter((c) => c.trusted).map((c) => c.verified_by!))];
  if (signers.length === 0) {
    const untrusted = checks.filter((c) => c.verified_by !== null);
    if (untrusted.length > 0) {
      throw new AttestationError(
        "trust",
        "untrusted_signer",
        `the envelope is signed only by keys the policy does not trust (${
          [...new Set(untrusted.map((c) => c.verified_by))].join(", ")
        })`,
      );
    }
    throw new AttestationError("signatures", "signature_mismatch", "no signature verifies");
  }
  if (signers.length < minSignatures) {
    throw new AttestationError(
      "threshold",
      "signature_threshold",
      `${signers.length} trusted key${
        signers.length === 1 ? "" : "s"
      } signed; the policy requires ${minSignatures}`,
    );
  }
  return signers;
}

/** Step `statement`: the in-toto Statement in the verified payload. */
export function checkStatement(env: ReadEnvelope): Statement {
  if (env.payloadType !== INTOTO_PAYLOAD_TYPE) {
    throw new AttestationError(
      "statement",
      "schema_invalid",
      `payloadType is ${JSON.stringify(env.payloadType)}, expected ${INTOTO_PAYLOAD_TYPE}`,
    );
  }
  const st = readStatement(env.payload);
  if (isStatementProblem(st)) throw new AttestationError("statement", st.code, st.message);
  return st;
}

/** Step `predicate_type`: the policy (or empiric) accepts the predicate type. */
export function checkPredicateType(st: Statement, policy?: TrustPolicy): void {
  const accepted = acceptedPredicateTypes(policy);
  if (!accepted.includes(st.predicateType)) {
    throw new AttestationError(
      "predicate_type",
      "policy_violation",
      `predicateType ${st.predicateType} is not accepted${
        policy ? ` by ${policy.source}` : ""
      } (accepted: ${accepted.join(", ")})`,
    );
  }
}

/** Step `predicate`: the predicate's own checks; for a proof record, the inner record check. */
export async function checkPredicate(
  st: Statement,
  recordKey?: Uint8Array,
): Promise<StatementRecordCheck | null> {
  if (st.predicateType === PROOF_RECORD_PREDICATE_TYPE) {
    const p = st.predicate;
    if (typeof p.signature !== "string" || typeof p.body !== "object") {
      throw new AttestationError(
        "predicate",
        "schema_invalid",
        "predicate must be an object with body (an object) and signature (a string)",
      );
    }
    const r = await verifyStatementRecord(st as JsonObject, recordKey);
    const ok = r.valid && (recordKey === undefined || r.verified);
    if (!ok) {
      const first = r.problems[0];
      throw new AttestationError(
        "predicate",
        r.reason ?? "schema_invalid",
        `the record in the Statement does not verify: ${first?.message ?? r.reason}`,
      );
    }
    return r;
  }
  const problem = st.predicateType === TEST_RESULT_PREDICATE_TYPE
    ? testResultProblem(st.predicate)
    : st.predicateType === REGISTRATION_PREDICATE_TYPE
    ? registrationProblem(st.predicate)
    : null;
  if (problem) throw new AttestationError("predicate", "schema_invalid", problem);
  return null;
}

/** Step `outcome`: the policy accepts the verdict outcome the Statement states. */
export function checkOutcome(st: Statement, policy?: TrustPolicy): Outcome | null {
  const outcome = outcomeOf(st);
  if (policy?.outcomes && (outcome === null || !policy.outcomes.includes(outcome))) {
    throw new AttestationError(
      "outcome",
      "policy_violation",
      outcome === null
        ? `the Statement (${st.predicateType}) states no verdict outcome; ${policy.source} accepts only ${
          policy.outcomes.join(", ")
        }`
        : `outcome ${outcome} is not accepted by ${policy.source} (accepted: ${
          policy.outcomes.join(", ")
        })`,
    );
  }
  return outcome;
}

/**
 * Verify a public-key DSSE attestation, step by step (see the module table). Never throws for a
 * bad envelope, key mismatch or policy failure: the result says which step failed and why.
 * Throws `key_invalid` only when there is no key at all to verify with.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { publicKeySigner, signEnvelope } from "./dsse.ts";
 * import { verifyAttestation } from "./verify.ts";
 * import { equal } from "node:assert/strict";
 * const { privateKey } = await generateKeyPair("ed25519");
 * const env = await signEnvelope("text/plain", new TextEncoder().encode("hi"), [publicKeySigner(privateKey)]);
 * const r = await verifyAttestation(env, { publicKeys: [privateKey.publicKey] });
 * equal(r.step, "statement"); // the signature verified; the payload is no in-toto Statement
 * equal(r.signers[0], privateKey.keyid);
 * ```
 */
export async function verifyAttestation(
  envelope: DsseEnvelope | JsonObject | string | Uint8Array,
  options: VerifyAttestationOptions,
): Promise<AttestationVerification> {
  const keys = trustedKeys(options.publicKeys ?? [], options.policy);
  if (keys.candidates.length === 0) {
    throw new EmpiricError(
      "key_invalid",
      "no public key to verify with: give --public-key, or a policy with keys",
    );
  }
  const minSignatures = options.policy?.minSignatures ?? 1;
  const result: AttestationVerification = {
    verified: false,
    step: null,
    reason: null,
    message: null,
    signatures: [],
    signers: [],
    min_signatures: minSignatures,
    payloadType: null,
    predicateType: null,
    outcome: null,
    payload: null,
    statement: null,
    record: null,
  };
  try {
    const env = readEnvelope(envelope);
    if (isEnvelopeProblem(env)) throw new AttestationError("envelope", env.code, env.message);
    result.payloadType = env.payloadType;
    result.signatures = await checkSignatures(env, keys);
    result.signers = checkTrust(result.signatures, minSignatures);
    result.payload = env.payload;
    const st = checkStatement(env);
    result.statement = st;
    result.predicateType = st.predicateType;
    checkPredicateType(st, options.policy);
    result.record = await checkPredicate(st, options.recordKey);
    result.outcome = outcomeOf(st);
    checkOutcome(st, options.policy);
    result.verified = true;
    return result;
  } catch (e) {
    if (!(e instanceof AttestationError)) throw e;
    return { ...result, step: e.step, reason: e.code, message: e.message };
  }
}
