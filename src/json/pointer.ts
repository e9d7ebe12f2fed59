/**
 * RFC 6901 JSON pointers over typed values.
 *
 * @module
 */
import { isJsonObject, type JsonValue } from "./value.ts";

/**
 * The value at a JSON pointer, or undefined when absent. `""` is the whole value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { getPointer } from "./pointer.ts";
 * assert.equal(getPointer({ a: [{ "b/c": 1n }] }, "/a/0/b~1c"), 1n);
 * assert.equal(getPointer({ a: 1n }, "/x"), undefined);
 * ```
 */
export function getPointer(value: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === "") return value;
  let cur: JsonValue | undefined = value;
  for (const raw of pointer.slice(1).split("/")) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else if (isJsonObject(cur)) {
      cur = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    } else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}
