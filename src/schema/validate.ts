/**
 * Structural validation of proof records against the shipped JSON Schema (draft 2020-12),
 * with ajv. Every problem is reported with its RFC 6901 JSON pointer.
 *
 * @module
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Problem } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { didYouMean } from "./did_you_mean.ts";
import { isInt, type JsonValue, PyInt } from "../json/value.ts";
import schema from "./proof-record.schema.json" with { type: "json" };

/** The record JSON Schema (draft 2020-12) as an object. */
export const PROOF_RECORD_SCHEMA: typeof schema = schema;

// ajv-formats is CommonJS with a default export; unwrap it for typed use.
type AddFormats = (ajv: Ajv2020, formats: string[]) => unknown;
const addFormats: AddFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

type Validator = ((data: unknown) => boolean) & {
  errors?: {
    instancePath: string;
    keyword: string;
    message?: string;
    params: Record<string, unknown>;
    parentSchema?: { properties?: Record<string, unknown> };
  }[] | null;
};

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

function numeric(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof PyInt) return Number(v.value);
  return undefined;
}

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
      const ok = kind === "int" ? isInt(data) : numeric(data) !== undefined;
      if (!ok) {
        (wireType as unknown as { errors: unknown[] }).errors = [{
          keyword: "wireType",
          message: kind === "int"
            ? "must be an int (a number written without a point or exponent)"
            : "must be a number",
          params: { wireType: kind },
        }];
      }
      return ok;
    },
  });
  for (
    const [keyword, cmp, word] of [
      ["wireMinimum", (n: number, m: number) => n >= m, ">="],
      ["wireMaximum", (n: number, m: number) => n <= m, "<="],
      ["wireExclusiveMinimum", (n: number, m: number) => n > m, ">"],
      ["wireExclusiveMaximum", (n: number, m: number) => n < m, "<"],
    ] as const
  ) {
    ajv.addKeyword({
      keyword,
      schemaType: "number",
      errors: true,
      validate: function bound(limit: number, data: unknown): boolean {
        const n = numeric(data);
        const ok = n === undefined || cmp(n, limit);
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
  return (value) => (v(value) ? [] : toProblems(v.errors ?? [], code));
}

function toProblems(errors: NonNullable<Validator["errors"]>, code: ErrorCode): Problem[] {
  return errors.filter((e) => e.keyword !== "oneOf" || errors.length === 1).map((e) => {
    let pointer = e.instancePath;
    let message = e.message ?? e.keyword;
    if (e.keyword === "required") {
      pointer += "/" + String(e.params.missingProperty);
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      const name = String(e.params.additionalProperty);
      pointer += "/" + name;
      const known = Object.keys(e.parentSchema?.properties ?? {});
      const near = didYouMean(name, known);
      message = near === undefined
        ? "is not allowed here"
        : `is not allowed here (did you mean ${near}?)`;
    } else if (e.keyword === "enum") {
      message = `must be one of ${
        (e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(", ")
      }`;
    } else if (e.keyword === "const") {
      message = `must be ${JSON.stringify(e.params.allowedValue)}`;
    }
    return { code, message: `${pointer || "/"} ${message}`, pointer };
  });
}

let recordValidator: TypedValidator | undefined;

/**
 * Validate a typed value against the proof record schema; returns every problem found
 * (empty when valid).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateRecordSchema } from "./validate.ts";
 * const problems = validateRecordSchema({ identity: {} });
 * assert.ok(problems.length > 0);
 * assert.equal(problems[0].code, "schema_invalid");
 * ```
 */
export function validateRecordSchema(record: JsonValue): Problem[] {
  recordValidator ??= compileTypedValidator(schema, "schema_invalid");
  return recordValidator(record);
}
