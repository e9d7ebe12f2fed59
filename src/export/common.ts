/**
 * Helpers shared by the export formats: reading a signed record from any input form, strict
 * base64, the scenario and substrate named in a record's reproduction command, and typed values
 * that survive `JSON.stringify` as well as the canonical writer.
 *
 * @module
 */
import { declaredScenarioName, parseReproductionCommand } from "../record/command.ts";
import { RecordError, UsageError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { prettyJson } from "../json/pretty.ts";
import { type JsonObject, type JsonValue, mapJson, PyInt } from "../json/value.ts";
import { computeProofId } from "../record/sign.ts";
import type { ProofRecord } from "../record/types.ts";
import { validateRecordSchema } from "../schema/record_schema.ts";

/**
 * A signed proof record as the export functions accept it: the typed record (ints as `bigint`
 * or `PyInt`, floats as `number`, as {@link parseJson} returns it), or its JSON text or UTF-8
 * bytes. Never pass a record through plain `JSON.parse`: it turns `50.0` into `50` and the
 * record no longer verifies.
 */
export type ProofInput = ProofRecord | JsonObject | string | Uint8Array;

/** A record read for export: the typed record and the bytes of its file. */
export interface LoadedProof {
  /** The typed record. */
  readonly record: ProofRecord;
  /**
   * The record file's bytes: the input bytes when text or bytes were given, otherwise the
   * record written as empiric writes record files (pretty JSON, sections in order, newline).
   */
  readonly bytes: Uint8Array<ArrayBuffer>;
}

export { DEFAULT_EVENT_SOURCE } from "./source.ts";

const encoder = new TextEncoder();

/**
 * Read a signed record for export: parse it with the typed parser, check it against the record
 * schema (`schema_invalid`) and check that `identity.proof_id` is the hash of the body
 * (`proof_id_mismatch`). The HMAC is not checked (no key is needed to export).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadProof } from "./common.ts";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const { record } = await loadProof(text);
 * assert.equal(record.identity.proof_id.length, 64);
 * ```
 */
export async function loadProof(input: ProofInput): Promise<LoadedProof> {
  let value: JsonValue;
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  if (typeof input === "string") {
    value = parseJson(input);
    bytes = encoder.encode(input);
  } else if (input instanceof Uint8Array) {
    value = parseJson(input);
    bytes = new Uint8Array(input);
  } else {
    value = input as unknown as JsonValue;
  }
  const problems = validateRecordSchema(value);
  if (problems.length > 0) {
    throw new RecordError(
      "schema_invalid",
      `not a proof record: ${problems.slice(0, 3).map((p) => p.message).join("; ")}${
        problems.length > 3 ? ` (and ${problems.length - 3} more problems)` : ""
      }`,
      { problems },
    );
  }
  const record = value as unknown as ProofRecord;
  const actual = await computeProofId(value as JsonObject);
  if (actual !== record.identity.proof_id) {
    throw new RecordError(
      "proof_id_mismatch",
      `identity.proof_id is ${record.identity.proof_id} but the body hashes to ${actual}: the record was changed after it was sealed`,
      { pointer: "/identity/proof_id" },
    );
  }
  return { record, bytes: bytes ?? encoder.encode(prettyJson(value)) };
}

/**
 * Copy a typed value, turning every `bigint` into a {@link PyInt}. The copy canonicalizes to
 * the same bytes and can also be written with `JSON.stringify` (a `PyInt` writes its exact
 * digits through `JSON.rawJSON`), which throws on a plain `bigint`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withPyInts } from "./common.ts";
 * assert.equal(JSON.stringify(withPyInts({ n: 12345678901234567890n })), '{"n":12345678901234567890}');
 * ```
 */
export function withPyInts<T extends JsonValue>(value: T): T {
  return mapJson(value, (v) => (typeof v === "bigint" ? new PyInt(v) : v)) as T;
}

/** The scenario and substrate named in `reproduction.command`. */
export interface ReproductionParts {
  /** The scenario argument, or null when the command does not have the documented form. */
  scenario: string | null;
  /** The `--substrate` argument, or null. */
  substrate: string | null;
}

/**
 * Split `empiric run <scenario> --substrate <substrate>` into its two arguments.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reproductionParts } from "./common.ts";
 * const p = reproductionParts("empiric run echo-latency --substrate builtin:echo");
 * assert.equal(p.scenario, "echo-latency");
 * assert.equal(p.substrate, "builtin:echo");
 * ```
 */
export function reproductionParts(command: string): ReproductionParts {
  return parseReproductionCommand(command) ?? { scenario: null, substrate: null };
}

/** The scenario a record's run used (its declared name), else the first pillar. */
export function scenarioNameOf(record: ProofRecord): string {
  return declaredScenarioName(record) ?? record.evidence[0]?.pillar ?? "unknown";
}

export { base64Decode, base64Encode } from "../crypto/base64.ts";

/** Throw a usage error unless the value is a non-empty string. */
export function requireText(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") {
    throw new UsageError(`${what} must be a non-empty string`);
  }
  return value;
}
