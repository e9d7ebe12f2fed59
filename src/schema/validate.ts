/**
 * Structural validation against JSON Schemas (draft 2020-12) compiled with ajv at run time, with
 * every problem reported with its RFC 6901 JSON pointer. Proof records are validated by the
 * validator generated ahead of time (src/schema/record_schema.ts); compiling the record schema
 * here is its reference.
 *
 * @module
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Problem } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import type { JsonValue } from "../json/value.ts";
import { type AjvError, ajvErrorsToProblems } from "./problems.ts";
import { isWireType, keepsWireBound, WIRE_BOUNDS, wireTypeMessage } from "./wire_keywords.ts";
import schema from "./proof-record.schema.json" with { type: "json" };

/** The record JSON Schema (draft 2020-12) as an object. */
export const PROOF_RECORD_SCHEMA: typeof schema = schema;

// ajv-formats is CommonJS with a default export; unwrap it for typed use.
type AddFormats = (ajv: Ajv2020, formats: string[]) => unknown;
const addFormats: AddFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/**
 * The shipped schema uses standard JSON Schema types. Validating typed values (where ints are
 * `bigint`) directly, without copying the record, needs `"type": "number"` and
 * `"type": "integer"` replaced by the `wireType` keyword, which knows the typed model:
 * `number` accepts a float or an int, `int` accepts only an int. The replacement keeps the
 * `minimum` constraints, checked by `wireType` too.
 */
export function adaptSchemaForTypedValues(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(adaptSchemaForTypedValues);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  const src = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(src)) {
    if (k === "properties" || k === "$defs") {
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map((
          [n, s],
        ) => [n, adaptSchemaForTypedValues(s)]),
      );
    } else if (k === "type" && (v === "number" || v === "integer")) {
      out.wireType = v === "integer" ? "int" : "number";
    } else if (BOUNDS[k] !== undefined && (src.type === "number" || src.type === "integer")) {
      out[BOUNDS[k]] = v;
    } else {
      out[k] = adaptSchemaForTypedValues(v);
    }
  }
  return out;
}

const BOUNDS: Record<string, string> = {
  minimum: "wireMinimum",
  maximum: "wireMaximum",
  exclusiveMinimum: "wireExclusiveMinimum",
  exclusiveMaximum: "wireExclusiveMaximum",
};

/** A compiled validator of typed values: returns every problem (empty when valid). */
export type TypedValidator = (value: JsonValue) => Problem[];

/**
 * Compile a JSON Schema (draft 2020-12) into a validator of typed values (ints as `bigint`),
 * reporting problems with `code` and RFC 6901 JSON pointers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileTypedValidator } from "./validate.ts";
 * const check = compileTypedValidator({ type: "object", properties: { n: { type: "integer" } } }, "schema_invalid");
 * assert.equal(check({ n: 1n }).length, 0);
 * assert.equal(check({ n: 1.5 }).length, 1);
 * ```
 */
export function compileTypedValidator(schemaDoc: object, code: ErrorCode): TypedValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: true, verbose: true });
  addFormats(ajv, ["date-time"]);
  ajv.addKeyword({
    keyword: "wireType",
    schemaType: "string",
    errors: true,
    validate: function wireType(kind: string, data: unknown): boolean {
      const ok = isWireType(kind, data);
      if (!ok) {
        (wireType as unknown as { errors: unknown[] }).errors = [{
          keyword: "wireType",
          message: wireTypeMessage(kind),
          params: { wireType: kind },
        }];
      }
      return ok;
    },
  });
  for (
    const [keyword, word] of Object.entries(WIRE_BOUNDS) as [keyof typeof WIRE_BOUNDS, string][]
  ) {
    ajv.addKeyword({
      keyword,
      schemaType: "number",
      errors: true,
      validate: function bound(limit: number, data: unknown): boolean {
        const ok = keepsWireBound(keyword, limit, data);
        if (!ok) {
          (bound as unknown as { errors: unknown[] }).errors = [{
            keyword,
            message: `must be ${word} ${limit}`,
            params: { limit },
          }];
        }
        return ok;
      },
    });
  }
  const v = ajv.compile(adaptSchemaForTypedValues(schemaDoc) as object) as unknown as Validator;
  return (value) => (v(value) ? [] : ajvErrorsToProblems(v.errors ?? [], code));
}
