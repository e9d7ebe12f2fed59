/**
 * Verification of proof records: the one implementation behind `schema validate`,
 * `POST /verify`, the `verify_proof` tool and `verifyProofImpl`.
 *
 * @module
 */
import { asEmpiricError, type Problem } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/value.ts";
import { hmacSha256Verify, sha256Hex } from "../crypto/hash.ts";
import { isDemoKey } from "../crypto/keys.ts";
import { validateRecordSchema } from "../schema/record_schema.ts";
import { canonicalBodies } from "./sign.ts";
import { checkVerdictConsistency } from "./consistency.ts";

/** Outcome of one verification step. */
export type CheckStatus = "pass" | "fail" | "skipped";

/** The result of verifying one record. Same shape on every surface. */
export interface VerifyResult {
  /** True when every check passed **and** the signature was checked under a key. */
  verified: boolean;
  /** True when every check that ran passed (without a key: structure and proof_id only). */
  valid: boolean;
  /** The record's claimed `identity.proof_id`, when it could be read. */
  proof_id: string | null;
  /** The record's verdict section, when it could be read. */
  verdict: { outcome: string; [k: string]: JsonValue } | null;
  /** Code of the first failure, or null. */
  reason: ErrorCode | null;
  /**
   * Each step's status. `verdict`: the outcome follows from the deciding evidence, threshold
   * and rule (checked with or without a key; `skipped` for records made before pillar entities).
   */
  checks: {
    parse: CheckStatus;
    schema: CheckStatus;
    proof_id: CheckStatus;
    signature: CheckStatus;
    verdict: CheckStatus;
  };
  /** Why a check was skipped although it could have run (old records: the verdict check). */
  notes: string[];
  /** True when the signature was checked with the documented demo key. */
  demo_key: boolean;
  /** Every problem found, in order. */
  problems: Problem[];
}

/** Options of {@link verifyRecord}. */
export interface VerifyOptions {
  /** HMAC key; without one only structure and proof_id are checked. */
  key?: Uint8Array<ArrayBuffer>;
}

function result(partial: Partial<VerifyResult>, problems: Problem[]): VerifyResult {
  return {
    verified: false,
    valid: false,
    proof_id: null,
    verdict: null,
    reason: problems[0]?.code ?? null,
    checks: {
      parse: "skipped",
      schema: "skipped",
      proof_id: "skipped",
      signature: "skipped",
      verdict: "skipped",
    },
    demo_key: false,
    notes: [],
    problems,
    ...partial,
  };
}

/**
 * Verify a record given as JSON text or UTF-8 bytes. Never throws for a bad record: problems
 * are reported in the result with stable codes, JSON pointers and text positions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verifyRecord } from "./verify.ts";
 * const r = await verifyRecord('{"identity": 1}');
 * assert.ok(!r.valid);
 * assert.equal(r.reason, "schema_invalid");
 * ```
 */
export async function verifyRecord(
  input: string | Uint8Array | JsonValue,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  let value: JsonValue;
  if (typeof input === "string" || input instanceof Uint8Array) {
    try {
      value = parseJson(input);
    } catch (e) {
      const err = asEmpiricError(e);
      return result({
        checks: {
          parse: "fail",
          schema: "skipped",
          proof_id: "skipped",
          signature: "skipped",
          verdict: "skipped",
        },
      }, [
        ...err.problems,
      ]);
    }
  } else {
    value = input;
  }
  return await verifyParsed(value, options);
}

async function verifyParsed(value: JsonValue, options: VerifyOptions): Promise<VerifyResult> {
  const checks: VerifyResult["checks"] = {
    parse: "pass",
    schema: "skipped",
    proof_id: "skipped",
    signature: "skipped",
    verdict: "skipped",
  };
  const record = isJsonObject(value) ? value : undefined;
  const identity = record && isJsonObject(record.identity) ? record.identity : undefined;
  const claimedId = typeof identity?.proof_id === "string" ? identity.proof_id : null;
  const verdictSection = record && isJsonObject(record.verdict) &&
      typeof record.verdict.outcome === "string"
    ? record.verdict as VerifyResult["verdict"]
    : null;
  const partial = { proof_id: claimedId, verdict: verdictSection, checks };

  const schemaProblems = validateRecordSchema(value);
  if (schemaProblems.length > 0) {
    checks.schema = "fail";
    return result(partial, schemaProblems);
  }
  checks.schema = "pass";

  const problems: Problem[] = [];
  let bodies;
  try {
    bodies = canonicalBodies(record as JsonObject);
  } catch (e) {
    return result(partial, [...asEmpiricError(e).problems]);
  }
  const actualId = await sha256Hex(bodies.idless);
  if (actualId === claimedId) {
    checks.proof_id = "pass";
  } else {
    checks.proof_id = "fail";
    problems.push({
      code: "proof_id_mismatch",
      message:
        `identity.proof_id is ${claimedId} but the body hashes to ${actualId}: the record was changed after it was sealed`,
      pointer: "/identity/proof_id",
    });
  }

  let demo = false;
  if (options.key) {
    demo = isDemoKey(options.key);
    const sig = ((record as JsonObject).signature as JsonObject).signature as string;
    if (await hmacSha256Verify(options.key, bodies.signed, sig)) {
      checks.signature = "pass";
    } else {
      checks.signature = "fail";
      problems.push({
        code: "signature_mismatch",
        message: demo
          ? "the signature does not verify under the demo key"
          : "the signature does not verify under the given key (wrong key, or the record was changed)",
        pointer: "/signature/signature",
      });
    }
  }
  // With or without a key: the outcome must follow from the deciding evidence and its rule.
  const consistency = checkVerdictConsistency(record as JsonObject);
  checks.verdict = consistency.status;
  problems.push(...consistency.problems);
  const valid = problems.length === 0;
  return result({
    ...partial,
    valid,
    verified: valid && checks.signature === "pass",
    demo_key: demo,
    notes: consistency.note ? [consistency.note] : [],
  }, problems);
}
