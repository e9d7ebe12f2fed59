/**
 * Conversion of typed values to plain JSON values for API responses (not for signing).
 *
 * @module
 */
import { type JsonValue, mapJson, PyInt } from "./value.ts";

/** A plain JSON value as `JSON.stringify` writes it. */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [k: string]: PlainJson };

/**
 * Typed value → plain JSON value: ints become numbers when they are safe integers, otherwise
 * decimal strings. Use only for display and API responses; signatures need the typed value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toPlainJson } from "./plain.ts";
 * assert.equal(JSON.stringify(toPlainJson({ n: 3n, x: 1.5 })), '{"n":3,"x":1.5}');
 * ```
 */
export function toPlainJson(v: JsonValue | undefined): PlainJson {
  if (v === undefined) return null;
  return mapJson(v, (x) => {
    const n = x instanceof PyInt ? x.value : x;
    if (typeof n !== "bigint") return n;
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(n)
      : n.toString();
  }) as PlainJson;
}
