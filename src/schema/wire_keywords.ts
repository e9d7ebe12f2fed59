/**
 * The checks behind the typed-value keywords (`wireType`, `wireMinimum`, `wireMaximum`,
 * `wireExclusiveMinimum`, `wireExclusiveMaximum`) that `adaptSchemaForTypedValues`
 * (src/schema/validate.ts) puts in place of `type: number|integer` and the numeric bounds. Both the runtime-compiled
 * validator (src/schema/validate.ts) and the generated record validator
 * (src/schema/record_validator.generated.ts, which imports this module by relative path) call
 * them, so this module must stay free of ajv.
 *
 * @module
 */
import { isInt, PyInt } from "../json/value.ts";

/**
 * The numeric value of a typed value (a float, a `bigint` or a {@link PyInt}), or `undefined`
 * when it is not a number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wireNumeric } from "./wire_keywords.ts";
 * assert.equal(wireNumeric(3n), 3);
 * assert.equal(wireNumeric(0.5), 0.5);
 * assert.equal(wireNumeric("3"), undefined);
 * ```
 */
export function wireNumeric(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof PyInt) return Number(v.value);
  return undefined;
}

/**
 * Whether a typed value has the wire type `kind`: `"int"` accepts only an int, `"number"` a
 * float or an int.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isWireType } from "./wire_keywords.ts";
 * assert.equal(isWireType("int", 1n), true);
 * assert.equal(isWireType("int", 1), false);
 * assert.equal(isWireType("number", 1), true);
 * ```
 */
export function isWireType(kind: string, v: unknown): boolean {
  return kind === "int" ? isInt(v) : wireNumeric(v) !== undefined;
}

/** The bound keywords, with the comparison each makes and the word of its message. */
export const WIRE_BOUNDS = {
  wireMinimum: ">=",
  wireMaximum: "<=",
  wireExclusiveMinimum: ">",
  wireExclusiveMaximum: "<",
} as const;

/** A bound keyword's name. */
export type WireBound = keyof typeof WIRE_BOUNDS;

/**
 * Whether a typed value keeps the bound `keyword` with limit `limit` (a value that is not a
 * number keeps every bound: `wireType` reports it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keepsWireBound } from "./wire_keywords.ts";
 * assert.equal(keepsWireBound("wireMinimum", 0, 0n), true);
 * assert.equal(keepsWireBound("wireExclusiveMinimum", 0, 0n), false);
 * assert.equal(keepsWireBound("wireMaximum", 1, "x"), true);
 * ```
 */
export function keepsWireBound(keyword: WireBound, limit: number, v: unknown): boolean {
  const n = wireNumeric(v);
  if (n === undefined) return true;
  switch (keyword) {
    case "wireMinimum":
      return n >= limit;
    case "wireMaximum":
      return n <= limit;
    case "wireExclusiveMinimum":
      return n > limit;
    case "wireExclusiveMaximum":
      return n < limit;
  }
}

/**
 * The message of a failed `wireType` check.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wireTypeMessage } from "./wire_keywords.ts";
 * assert.equal(wireTypeMessage("number"), "must be a number");
 * ```
 */
export function wireTypeMessage(kind: string): string {
  return kind === "int"
    ? "must be an int (a number written without a point or exponent)"
    : "must be a number";
}
