/**
 * Ajv's error objects turned into empiric's problems: a stable code, a message naming the
 * place (an RFC 6901 JSON pointer) and the pointer. Shared by the runtime-compiled validators
 * (src/schema/validate.ts) and the generated record validator (src/schema/record_schema.ts);
 * free of ajv, so that the latter loads no compiler.
 *
 * @module
 */
import type { Problem } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { didYouMean } from "./did_you_mean.ts";

/** The fields of an Ajv error object that the problems are made of. */
export interface AjvError {
  /** JSON pointer of the value in error. */
  instancePath: string;
  /** The keyword that failed. */
  keyword: string;
  /** Ajv's message. */
  message?: string;
  /** The keyword's parameters (`missingProperty`, `allowedValues`, `limit`...). */
  params: Record<string, unknown>;
  /** The schema holding the keyword (with `verbose`). */
  parentSchema?: { properties?: Record<string, unknown> };
}

/**
 * Turn Ajv's errors (from a validator compiled with `allErrors` and `verbose`) into problems
 * with `code`: `required` and `additionalProperties` point at the property (with a "did you
 * mean" for a misspelt one), `enum` and `const` name the allowed values, and a failed `oneOf`
 * is reported only when it is the sole error (its branches' errors say more).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ajvErrorsToProblems } from "./problems.ts";
 * const problems = ajvErrorsToProblems(
 *   [{ instancePath: "/a", keyword: "required", params: { missingProperty: "b" } }],
 *   "schema_invalid",
 * );
 * assert.deepEqual(problems, [{ code: "schema_invalid", message: "/a/b is required", pointer: "/a/b" }]);
 * ```
 */
export function ajvErrorsToProblems(errors: readonly AjvError[], code: ErrorCode): Problem[] {
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
