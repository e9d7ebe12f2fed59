/**
 * A readable writer for record files: indented, members in their given order, non-ASCII
 * characters kept as UTF-8, and every float written so it reads back as a float (`50.0`).
 * Parsing its output with {@link parseJson} gives back the same typed value.
 *
 * @module
 */
import { WireError } from "../errors/errors.ts";
import { intText, MAX_DEPTH } from "./canonical.ts";
import { floatRepr } from "./float.ts";
import { type JsonValue, PyInt } from "./value.ts";

function str(s: string): string {
  const wf = (s as { isWellFormed?: () => boolean }).isWellFormed;
  if (wf && !wf.call(s)) throw new WireError("lone_surrogate", "string holds a lone surrogate");
  return JSON.stringify(s);
}

function write(v: unknown, indent: string, step: string, depth: number): string {
  if (depth > MAX_DEPTH) {
    throw new WireError("depth_exceeded", `more than ${MAX_DEPTH} nested arrays/objects`);
  }
  switch (typeof v) {
    case "string":
      return str(v);
    case "number":
      return floatRepr(v);
    case "bigint":
      return intText(v);
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      if (v instanceof PyInt) return intText(v.value);
      const inner = indent + step;
      if (Array.isArray(v)) {
        if (v.length === 0) return "[]";
        return "[\n" + v.map((x) => inner + write(x, inner, step, depth + 1)).join(",\n") +
          "\n" + indent + "]";
      }
      const keys = Object.keys(v);
      if (keys.length === 0) return "{}";
      const o = v as Record<string, unknown>;
      return "{\n" +
        keys.map((k) => inner + str(k) + ": " + write(o[k], inner, step, depth + 1)).join(",\n") +
        "\n" + indent + "}";
    }
  }
  throw new WireError("unsupported_type", `a ${typeof v} cannot be written as JSON`);
}

/**
 * Pretty JSON text of a typed value (2-space indent, given member order, trailing newline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prettyJson } from "./pretty.ts";
 * assert.equal(prettyJson({ value: 50, n: 3n }), '{\n  "value": 50.0,\n  "n": 3\n}\n');
 * ```
 */
export function prettyJson(value: JsonValue, indent = 2): string {
  return write(value, "", " ".repeat(indent), 0) + "\n";
}
