/**
 * The canonical form (wire-format rules R1 to R10): the exact bytes Python writes with
 * `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)`.
 *
 * @module
 */
import { WireError } from "../errors/errors.ts";
import { floatRepr } from "./float.ts";
import { INT_MAX, INT_MIN, type JsonValue, PyInt } from "./value.ts";

/** Maximum nesting of arrays and objects accepted by the parser and the canonicalizer. */
export const MAX_DEPTH = 512;

// Strings made only of printable ASCII other than `"` and `\` are written as they are.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// Characters JSON.stringify leaves raw but R5 escapes: U+007F and above.
const NON_ASCII = /[\u007f-\uffff]/g;
const HAS_SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function escapeUnit(c: string): string {
  const hex = c.charCodeAt(0).toString(16);
  return "\\u" + "0000".slice(hex.length) + hex;
}

function isWellFormed(s: string): boolean {
  const f = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return f ? f.call(s) : !LONE_SURROGATE.test(s);
}

/**
 * The canonical JSON text of a string (rule R5).
 *
 * @example
 * ```ts
 * import { quoteString } from "./canonical.ts";
 * console.assert(quoteString("café/😀") === '"caf\\u00e9/\\ud83d\\ude00"');
 * ```
 */
export function quoteString(s: string, pointer = ""): string {
  if (PLAIN.test(s)) return '"' + s + '"';
  if (!isWellFormed(s)) {
    throw new WireError("lone_surrogate", "string holds a lone surrogate (rule R5)", { pointer });
  }
  // JSON.stringify gives the R5 escapes for `"`, `\` and controls (lowercase \u00xx) and
  // leaves everything from U+007F up raw; those become \uxxxx per UTF-16 unit.
  return JSON.stringify(s).replace(NON_ASCII, escapeUnit);
}

/**
 * The canonical text of an int (rule R6); rejects values outside -2^63 .. 2^63-1.
 *
 * @example
 * ```ts
 * import { intText } from "./canonical.ts";
 * console.assert(intText(-42n) === "-42");
 * ```
 */
export function intText(v: bigint, pointer = ""): string {
  if (v < INT_MIN || v > INT_MAX) {
    throw new WireError("int_out_of_range", `int ${v} is outside -2^63 .. 2^63-1 (rule R6)`, {
      pointer,
    });
  }
  return v.toString();
}

/** Compare strings by Unicode code point (rule R3), not by UTF-16 code unit. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) encode code points above U+FFFF: they sort after E000-FFFF.
    const hx = x >= 0xd800 && x <= 0xdfff;
    const hy = y >= 0xd800 && y <= 0xdfff;
    if (hx !== hy) return hx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

// Path from the root to the value being written; joined into a JSON pointer only on error.
const path: (string | number)[] = [];

/** RFC 6901 JSON pointer of a path. */
export function jsonPointer(segments: readonly (string | number)[]): string {
  let out = "";
  for (const s of segments) {
    out += "/" + (typeof s === "number" ? s : s.replace(/~/g, "~0").replace(/\//g, "~1"));
  }
  return out;
}

function here(): string {
  return jsonPointer(path);
}

function write(v: unknown, depth: number): string {
  switch (typeof v) {
    case "string":
      return PLAIN.test(v) ? '"' + v + '"' : quoteString(v, here());
    case "number":
      if (!Number.isFinite(v)) {
        throw new WireError("non_finite_number", `${v} has no canonical form (rule R8)`, {
          pointer: here(),
        });
      }
      return floatRepr(v);
    case "bigint":
      return intText(v, here());
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      if (depth >= MAX_DEPTH) {
        throw new WireError("depth_exceeded", `more than ${MAX_DEPTH} nested arrays/objects`, {
          pointer: here(),
        });
      }
      if (Array.isArray(v)) {
        const n = v.length;
        if (n === 0) return "[]";
        path.push(0);
        let out = "[" + write(v[0], depth + 1);
        for (let i = 1; i < n; i++) {
          path[path.length - 1] = i;
          out += "," + write(v[i], depth + 1);
        }
        path.pop();
        return out + "]";
      }
      if (v instanceof PyInt) return intText(v.value, here());
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) break;
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj);
      const n = keys.length;
      if (n === 0) return "{}";
      if (n > 1) {
        keys.sort();
        // Default sort is UTF-16 order; it differs from code point order only with surrogates.
        for (let i = 0; i < n; i++) {
          if (HAS_SURROGATE.test(keys[i])) {
            keys.sort(compareCodePoints);
            break;
          }
        }
      }
      let out = "{";
      path.push("");
      for (let i = 0; i < n; i++) {
        const k = keys[i];
        path[path.length - 1] = k;
        if (i > 0) out += ",";
        const kq = PLAIN.test(k) ? '"' + k + '"' : quoteString(k, here());
        out += kq + ":" + write(obj[k], depth + 1);
      }
      path.pop();
      return out + "}";
    }
  }
  throw new WireError(
    "unsupported_type",
    `${describe(v)} has no canonical form (use number for floats, bigint or PyInt for ints)`,
    { pointer: here() },
  );
}

function describe(v: unknown): string {
  if (v === undefined) return "undefined";
  if (typeof v === "object" && v !== null) {
    return `an instance of ${(v as object).constructor?.name ?? "an unknown class"}`;
  }
  return `a ${typeof v}`;
}

/**
 * The canonical JSON text of a typed value (ASCII only).
 *
 * Throws a {@link WireError} with code `non_finite_number`, `int_out_of_range`,
 * `lone_surrogate`, `depth_exceeded` or `unsupported_type`, and the JSON pointer of the value.
 *
 * @example
 * ```ts
 * import { canonicalize } from "./canonical.ts";
 * console.assert(canonicalize({ b: 1.5, a: [1n, null, "é"] }) === '{"a":[1,null,"\\u00e9"],"b":1.5}');
 * ```
 */
export function canonicalize(value: JsonValue): string {
  path.length = 0;
  return write(value, 0);
}

const encoder = new TextEncoder();

/**
 * The canonical bytes of a typed value (rule R10: ASCII, no BOM, no trailing newline).
 *
 * @example
 * ```ts
 * import { canonicalBytes } from "./canonical.ts";
 * console.assert(canonicalBytes([1.0]).length === 5); // [1.0]
 * ```
 */
export function canonicalBytes(value: JsonValue): Uint8Array<ArrayBuffer> {
  return encoder.encode(canonicalize(value)) as Uint8Array<ArrayBuffer>;
}
