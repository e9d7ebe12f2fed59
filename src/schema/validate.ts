/**
 * Structural validation of proof records against the shipped JSON Schema (draft 2020-12),
 * with ajv. Every problem is reported with its RFC 6901 JSON pointer.
 *
 * @module
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { Problem } from "../errors/errors.ts";
import { isInt, type JsonValue } from "../json/value.ts";
import { projectForSchema } from "./project.ts";
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
  }[] | null;
};

let compiled: Validator | undefined;
// The typed value being validated; read by the wireType keyword.
let typedRoot: JsonValue = null;

function resolvePointer(root: JsonValue, pointer: string): JsonValue | undefined {
  let cur: unknown = root;
  if (pointer === "") return root;
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur as JsonValue;
}

function validator(): Validator {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv, ["date-time"]);
  ajv.addKeyword({
    keyword: "wireType",
    schemaType: "string",
    errors: true,
    validate: function wireType(
      this: unknown,
      kind: string,
      _data: unknown,
      _parent: unknown,
      cxt?: { instancePath: string },
    ): boolean {
      const original = resolvePointer(typedRoot, cxt?.instancePath ?? "");
      const ok = kind !== "int" || isInt(original);
      if (!ok) {
        (wireType as unknown as { errors: unknown[] }).errors = [{
          keyword: "wireType",
          message: "must be an int (written without a point or exponent)",
          params: { wireType: kind },
        }];
      }
      return ok;
    },
  });
  compiled = ajv.compile(schema) as unknown as Validator;
  return compiled;
}

/**
 * Validate a typed value against the proof record schema; returns every problem found
 * (empty when valid).
 *
 * @example
 * ```ts
 * import { validateRecordSchema } from "./validate.ts";
 * const problems = validateRecordSchema({ identity: {} });
 * console.assert(problems.length > 0 && problems[0].code === "schema_invalid");
 * ```
 */
export function validateRecordSchema(record: JsonValue): Problem[] {
  const v = validator();
  typedRoot = record;
  try {
    if (v(projectForSchema(record))) return [];
  } finally {
    typedRoot = null;
  }
  return (v.errors ?? []).map((e) => {
    let pointer = e.instancePath;
    let message = e.message ?? e.keyword;
    if (e.keyword === "required") {
      pointer += "/" + String(e.params.missingProperty);
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      pointer += "/" + String(e.params.additionalProperty);
      message = "is not allowed here";
    } else if (e.keyword === "enum") {
      message = `must be one of ${
        (e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(", ")
      }`;
    } else if (e.keyword === "const") {
      message = `must be ${JSON.stringify(e.params.allowedValue)}`;
    }
    return { code: "schema_invalid" as const, message: `${pointer || "/"} ${message}`, pointer };
  });
}
