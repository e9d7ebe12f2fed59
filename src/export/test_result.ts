/**
 * The record as an in-toto test-result attestation (predicate type
 * `https://in-toto.io/attestation/test-result/v0.1`, a vetted in-toto predicate): the claim is
 * one test, and the verdict its result, for policy engines that know test results but not
 * empiric's own predicate.
 *
 * | test-result field | from the record |
 * | --- | --- |
 * | `result` | VALIDATED → `PASSED`, REFUTED → `FAILED`, INCONCLUSIVE → `WARNED` |
 * | `passedTests` / `failedTests` / `warnedTests` | the one test, named `<scenario>: <metric> <comparator> <value> <units>` (the value in canonical form: `50.0`) |
 * | `configuration` | the scenario (digest `sha256` = config_hash) and each dataset (digest = content_hash) |
 * | `url` | option `url` (for example the CI run), when given |
 * | `subject` | as the proof record Statement: the proof_id, and the record file's bytes |
 *
 * @module
 */
import { TEST_RESULT_OF, TEST_RESULT_PREDICATE_TYPE } from "../attest/statement.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import { canonicalize } from "../json/canonical.ts";
import { UsageError } from "../errors/errors.ts";
import { IN_TOTO_STATEMENT_V1_TYPE, type InTotoSubject, recordSubjects } from "./intoto.ts";
import type { StatementOptions } from "./intoto.ts";
import { loadProof, type ProofInput, scenarioNameOf } from "./common.ts";

export { TEST_RESULT_PREDICATE_TYPE } from "../attest/statement.ts";

/** The test-result predicate (in-toto test-result v0.1). */
export interface TestResultPredicate {
  result: "PASSED" | "WARNED" | "FAILED";
  configuration: JsonObject[];
  url?: string;
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
}

/** An in-toto Statement v1 with the test-result predicate. */
export interface TestResultStatement {
  _type: typeof IN_TOTO_STATEMENT_V1_TYPE;
  subject: InTotoSubject[];
  predicateType: typeof TEST_RESULT_PREDICATE_TYPE;
  predicate: TestResultPredicate;
}

/** Options of {@link toTestResultStatement}. */
export interface TestResultOptions extends StatementOptions {
  /** A link to the test run (a URL). */
  url?: string;
}

/**
 * The test-result Statement of a signed record (the record is checked first, as every export
 * does: schema and proof_id).
 *
 * @example
 * ```ts
 * import { toTestResultStatement } from "./test_result.ts";
 * import { equal } from "node:assert/strict";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const st = await toTestResultStatement(text);
 * equal(st.predicateType, "https://in-toto.io/attestation/test-result/v0.1");
 * equal(st.predicate.passedTests.length + st.predicate.failedTests.length + st.predicate.warnedTests.length, 1);
 * ```
 */
export async function toTestResultStatement(
  proof: ProofInput,
  options: TestResultOptions = {},
): Promise<TestResultStatement> {
  const { record, bytes } = await loadProof(proof);
  if (options.url !== undefined) {
    try {
      new URL(options.url);
    } catch {
      throw new UsageError(`the test run url must be a URL, got ${JSON.stringify(options.url)}`);
    }
  }
  const scenario = scenarioNameOf(record);
  const t = record.claim.threshold;
  const value = canonicalize(t.value as unknown as JsonValue);
  const test = `${scenario}: ${t.metric} ${t.comparator} ${value} ${t.units}`.trimEnd();
  const result = TEST_RESULT_OF[record.verdict.outcome];
  const configuration: JsonObject[] = [
    { name: `scenario/${scenario}`, digest: { sha256: record.pre_registration.config_hash } },
    ...record.data.datasets.map((d) => ({
      name: `dataset/${d.name}`,
      digest: { sha256: d.content_hash },
      ...(/^https?:\/\//.test(d.source) ? { uri: d.source } : {}),
    })),
  ];
  return {
    _type: IN_TOTO_STATEMENT_V1_TYPE,
    subject: await recordSubjects(record, bytes, options),
    predicateType: TEST_RESULT_PREDICATE_TYPE,
    predicate: {
      result,
      configuration,
      ...(options.url !== undefined ? { url: options.url } : {}),
      passedTests: result === "PASSED" ? [test] : [],
      warnedTests: result === "WARNED" ? [test] : [],
      failedTests: result === "FAILED" ? [test] : [],
    },
  };
}
