/**
 * in-toto Statement v1 as attestations carry it: the predicate types empiric signs, reading a
 * Statement from verified payload bytes, the checks each known predicate must pass, and the
 * verdict outcome a Statement states (for trust policies).
 *
 * | predicate type | what it states |
 * | --- | --- |
 * | {@link PROOF_RECORD_PREDICATE_TYPE} | a proof record: its signed body and its HMAC |
 * | {@link TEST_RESULT_PREDICATE_TYPE} | the in-toto vetted test-result predicate: the claim as a test |
 * | {@link REGISTRATION_PREDICATE_TYPE} | a pre-registration: claim, config_hash, data_hash, plan |
 *
 * @module
 */
import { asEmpiricError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/value.ts";
import type { Outcome } from "../record/types.ts";

/** `_type` of an in-toto Statement v1. */
export const STATEMENT_V1_TYPE = "https://in-toto.io/Statement/v1";
/** DSSE `payloadType` of an in-toto Statement. */
export const INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
/** empiric's proof record predicate (the SPEC's `PROOFSVC_PREDICATE_TYPE_V1`). */
export const PROOF_RECORD_PREDICATE_TYPE = "https://empiric.dev/attestation/proof-record/v1";
/** The in-toto vetted test-result predicate, version 0.1. */
export const TEST_RESULT_PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1";
/** empiric's pre-registration predicate. */
export const REGISTRATION_PREDICATE_TYPE = "https://empiric.dev/attestation/registration/v1";

/** The predicate types empiric reads; a policy without `predicate_types` allows these. */
export const KNOWN_PREDICATE_TYPES: readonly string[] = [
  PROOF_RECORD_PREDICATE_TYPE,
  TEST_RESULT_PREDICATE_TYPE,
  REGISTRATION_PREDICATE_TYPE,
];

/** Test-result `result` of each verdict outcome (and back, for policies). */
export const TEST_RESULT_OF: Readonly<Record<Outcome, "PASSED" | "FAILED" | "WARNED">> = {
  VALIDATED: "PASSED",
  REFUTED: "FAILED",
  INCONCLUSIVE: "WARNED",
};

/** A Statement read from payload bytes (typed JSON: ints are `bigint`). */
export interface Statement extends JsonObject {
  _type: string;
  subject: JsonObject[];
  predicateType: string;
  predicate: JsonObject;
}

/** Why a payload is not a usable Statement. */
export interface StatementProblem {
  code: ErrorCode;
  message: string;
}

/**
 * Parse a Statement from payload bytes (the typed parser: floats stay floats) and check the
 * in-toto Statement v1 layer: `_type`, a non-empty `subject` of descriptors with a non-empty
 * `digest` of hex strings, a string `predicateType`, an object `predicate`.
 *
 * @example
 * ```ts
 * import { readStatement } from "./statement.ts";
 * import { equal } from "node:assert/strict";
 * const bytes = new TextEncoder().encode('{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"a","digest":{"sha256":"00"}}],"predicateType":"x","predicate":{}}');
 * equal("predicateType" in readStatement(bytes) && (readStatement(bytes) as { predicateType: string }).predicateType, "x");
 * ```
 */
export function readStatement(payload: Uint8Array): Statement | StatementProblem {
  let st: JsonValue;
  try {
    st = parseJson(payload);
  } catch (e) {
    const err = asEmpiricError(e);
    return { code: err.code, message: `the payload is not JSON: ${err.message}` };
  }
  const bad = (message: string): StatementProblem => ({ code: "schema_invalid", message });
  if (!isJsonObject(st)) return bad("the payload is not a JSON object");
  if (st._type !== STATEMENT_V1_TYPE) {
    return bad(`_type is ${JSON.stringify(st._type)}, expected ${STATEMENT_V1_TYPE}`);
  }
  const subject = st.subject;
  if (!Array.isArray(subject) || subject.length === 0) {
    return bad("subject must be a non-empty array");
  }
  for (const [i, s] of subject.entries()) {
    if (
      !isJsonObject(s) || !isJsonObject(s.digest) || Object.keys(s.digest).length === 0 ||
      !Object.values(s.digest).every((d) => typeof d === "string" && /^[0-9a-fA-F]+$/.test(d))
    ) {
      return bad(`subject[${i}] must be a descriptor with a digest of hex strings`);
    }
  }
  if (typeof st.predicateType !== "string" || st.predicateType === "") {
    return bad("predicateType must be a non-empty string");
  }
  if (!isJsonObject(st.predicate)) return bad("predicate must be an object");
  return st as Statement;
}

/** True when {@link readStatement} returned a problem. */
export function isStatementProblem(r: Statement | StatementProblem): r is StatementProblem {
  return !("_type" in r);
}

const HEX64 = /^[0-9a-f]{64}$/;
const OUTCOMES = new Set(["VALIDATED", "REFUTED", "INCONCLUSIVE"]);

function stringList(v: JsonValue | undefined): boolean {
  return v === undefined || (Array.isArray(v) && v.every((x) => typeof x === "string"));
}

/**
 * The shape problem of a test-result predicate (in-toto test-result v0.1): `result` one of
 * PASSED, WARNED, FAILED; `configuration` an array of descriptors; optional `url` string and
 * `passedTests`/`warnedTests`/`failedTests` string arrays. Null when it is well formed.
 */
export function testResultProblem(p: JsonObject): string | null {
  if (p.result !== "PASSED" && p.result !== "WARNED" && p.result !== "FAILED") {
    return `predicate.result must be PASSED, WARNED or FAILED, got ${JSON.stringify(p.result)}`;
  }
  if (!Array.isArray(p.configuration) || !p.configuration.every(isJsonObject)) {
    return "predicate.configuration must be an array of resource descriptors";
  }
  if (p.url !== undefined && typeof p.url !== "string") return "predicate.url must be a string";
  for (const k of ["passedTests", "warnedTests", "failedTests"]) {
    if (!stringList(p[k])) return `predicate.${k} must be an array of strings`;
  }
  return null;
}

/**
 * The shape problem of a registration predicate (docs/keys.md): `scenario`, `claim` (object),
 * `config_hash` and `data_hash` (64 lowercase hex), `analysis_plan`, `registered_at` (RFC 3339
 * UTC), `datasets` (array). Null when it is well formed.
 */
export function registrationProblem(p: JsonObject): string | null {
  if (typeof p.scenario !== "string" || p.scenario === "") {
    return "predicate.scenario must be a non-empty string";
  }
  if (!isJsonObject(p.claim)) return "predicate.claim must be an object";
  for (const k of ["config_hash", "data_hash"]) {
    if (typeof p[k] !== "string" || !HEX64.test(p[k] as string)) {
      return `predicate.${k} must be 64 lowercase hex characters`;
    }
  }
  if (typeof p.analysis_plan !== "string") return "predicate.analysis_plan must be a string";
  if (
    typeof p.registered_at !== "string" ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(p.registered_at) ||
    Number.isNaN(Date.parse(p.registered_at))
  ) {
    return "predicate.registered_at must be an RFC 3339 UTC time ending in Z";
  }
  if (!Array.isArray(p.datasets) || !p.datasets.every(isJsonObject)) {
    return "predicate.datasets must be an array of objects";
  }
  return null;
}

/**
 * The verdict outcome a Statement states: a proof record's `verdict.outcome`; a test result's
 * `result` mapped back (PASSED → VALIDATED, FAILED → REFUTED, WARNED → INCONCLUSIVE); null for
 * a registration or an unknown predicate.
 *
 * @example
 * ```ts
 * import { outcomeOf, TEST_RESULT_PREDICATE_TYPE } from "./statement.ts";
 * import { equal } from "node:assert/strict";
 * equal(outcomeOf({ _type: "", subject: [], predicateType: TEST_RESULT_PREDICATE_TYPE, predicate: { result: "WARNED" } }), "INCONCLUSIVE");
 * ```
 */
export function outcomeOf(st: Statement): Outcome | null {
  if (st.predicateType === PROOF_RECORD_PREDICATE_TYPE) {
    const body = st.predicate.body;
    const verdict = isJsonObject(body) ? body.verdict : undefined;
    const o = isJsonObject(verdict) ? verdict.outcome : undefined;
    return typeof o === "string" && OUTCOMES.has(o) ? o as Outcome : null;
  }
  if (st.predicateType === TEST_RESULT_PREDICATE_TYPE) {
    const entry = Object.entries(TEST_RESULT_OF).find(([, r]) => r === st.predicate.result);
    return entry ? entry[0] as Outcome : null;
  }
  return null;
}
