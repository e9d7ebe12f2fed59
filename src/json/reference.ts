/**
 * The plain reference canonicalizer: rules R1 to R10 written as directly as they read, with no
 * byte buffer, no cache of quoted keys and no cache of object shapes. The fast writer
 * (`canonical.ts`) must give the same text and the same error (code and JSON pointer) for every
 * value; the differential tests (`tests/json/reference_test.ts`) compare the two on random
 * values whose shapes repeat, as records' do.
 *
 * It is not used by the product: it is what the tricks of `canonical.ts` are checked against.
 *
 * @module
 */
import { WireError } from "../errors/errors.ts";
import { compareCodePoints, intText, jsonPointer, MAX_DEPTH } from "./canonical.ts";
import { floatRepr } from "./float.ts";
import { type JsonValue, PyInt } from "./value.ts";

// R5, one UTF-16 unit at a time.
function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += s[i];
    else if (c === 8) out += "\\b";
    else if (c === 9) out += "\\t";
    else if (c === 10) out += "\\n";
    else if (c === 12) out += "\\f";
    else if (c === 13) out += "\\r";
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) throw lone();
      out += unicodeEscape(c) + unicodeEscape(d);
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) throw lone();
    else out += unicodeEscape(c);
  }
  return out + '"';
}

function unicodeEscape(c: number): string {
  return "\\u" + c.toString(16).padStart(4, "0");
}

function lone(): WireError {
  return new WireError("lone_surrogate", "string holds a lone surrogate (rule R5)");
}

function write(v: unknown, depth: number, path: (string | number)[]): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return intText(v);
  if (typeof v === "number") return floatRepr(v);
  if (typeof v === "string") return quote(v);
  if (typeof v === "object" && v instanceof PyInt) return intText(v.value);
  if (typeof v === "object" && (Array.isArray(v) || isPlain(v))) {
    if (depth >= MAX_DEPTH) {
      throw new WireError("depth_exceeded", `more than ${MAX_DEPTH} nested arrays/objects`);
    }
    if (Array.isArray(v)) {
      return "[" + v.map((x, i) => at(path, i, () => write(x, depth + 1, path))).join(",") + "]";
    }
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort(compareCodePoints);
    return "{" +
      keys.map((k) => at(path, k, () => quote(k) + ":" + write(o[k], depth + 1, path))).join(",") +
      "}";
  }
  throw new WireError("unsupported_type", `${typeof v} has no canonical form`);
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

// Run f with `segment` on the path; the path is left as it was when f throws, so the first
// error keeps the pointer of its value.
function at(path: (string | number)[], segment: string | number, f: () => string): string {
  path.push(segment);
  const out = f();
  path.pop();
  return out;
}

/**
 * The canonical text of a typed value, computed the plain way. Errors carry the same code and
 * JSON pointer as `canonicalize`'s.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { canonicalizeReference } from "./reference.ts";
 * equal(canonicalizeReference({ b: 1.5, a: [1n, null, "é"] }), '{"a":[1,null,"\\u00e9"],"b":1.5}');
 * ```
 */
export function canonicalizeReference(value: JsonValue): string {
  const path: (string | number)[] = [];
  try {
    return write(value, 0, path);
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    throw new WireError(e.code, e.message, { pointer: jsonPointer(path), cause: e });
  }
}
