/**
 * Structural validation of proof records with the record schema's validator generated ahead
 * of time (src/schema/record_validator.generated.ts, written by
 * scripts/embed_record_validator.ts with Ajv's standalone code). A performance trick: the
 * reference is `compileTypedValidator(PROOF_RECORD_SCHEMA, "schema_invalid")`
 * (src/schema/validate.ts), which compiles the schema with Ajv at run time, and
 * tests/schema/record_schema_test.ts asserts that both return the same problems on every
 * fixtures/records case and on mutated records.
 *
 * Benchmark (`deno run -A bench/startup.ts --only schema`, `schema validate` of one record):
 * importing ajv and ajv-formats (~55 ms) and compiling the schema (130-150 ms) are gone;
 * 376 ms → 173-179 ms, ratio against an empty Deno script 11.0x → 5.1-5.6x (2026-11-23, shared
 * 2-core machine).
 *
 * @module
 */
import type { Problem } from "../errors/errors.ts";
import type { JsonValue } from "../json/value.ts";
import { type AjvError, ajvErrorsToProblems } from "./problems.ts";
import { validate } from "./record_validator.generated.ts";

const generated = validate as ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/**
 * Validate a typed value (ints as `bigint`) against the proof record schema; returns every
 * problem found (empty when valid).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateRecordSchema } from "./record_schema.ts";
 * const problems = validateRecordSchema({ identity: {} });
 * assert.ok(problems.length > 0);
 * assert.equal(problems[0].code, "schema_invalid");
 * ```
 */
export function validateRecordSchema(record: JsonValue): Problem[] {
  return generated(record) ? [] : ajvErrorsToProblems(generated.errors ?? [], "schema_invalid");
}
