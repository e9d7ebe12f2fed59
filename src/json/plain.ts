/**
 * Conversion of typed values to plain JSON values for API responses (not for signing).
 *
 * @module
 */
import { type JsonValue, PyInt } from "./value.ts";

/** A plain JSON value as `JSON.stringify` writes it. */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [k: string]: PlainJson };

/**
 * Typed value → plain JSON value: ints become numbers when they are safe integers, otherwise
 * decimal strings. Use only for display and API responses; signatures need the typed value.
 *
 * @example
 * ```ts
 * import { toPlainJson } from "./plain.ts";
 * console.assert(JSON.stringify(toPlainJson({ n: 3n, x: 1.5 })) === '{"n":3,"x":1.5}');
 * ```
 */
export function toPlainJson(v: JsonValue | undefined): PlainJson {
  if (v === undefined) return null;
  if (typeof v === "bigint") {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : v.toString();
  }
  if (v instanceof PyInt) return toPlainJson(v.value);
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(toPlainJson);
  const out: { [k: string]: PlainJson } = {};
  for (const k of Object.keys(v)) {
    const x = toPlainJson(v[k]);
    if (k === "__proto__") {
      Object.defineProperty(out, k, {
        value: x,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[k] = x;
  }
  return out;
}
