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

/** RFC 6901 JSON pointer of a path. */
export function jsonPointer(segments: readonly (string | number)[]): string {
  let out = "";
  for (const s of segments) {
    out += "/" + (typeof s === "number" ? s : s.replace(/~/g, "~0").replace(/\//g, "~1"));
  }
  return out;
}

// Quoted object keys, cached: records repeat the same keys in every evidence entry. Bounded.
const keyCache = new Map<string, string>();
const KEY_CACHE_MAX = 4096;

function quoteKey(k: string): string {
  let q = keyCache.get(k);
  if (q !== undefined) return q;
  q = PLAIN.test(k) ? '"' + k + '"' : quoteString(k);
  if (k.length <= 64) {
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(k, q);
  }
  return q;
}

// A quoted key escapes every non-ASCII unit, so a key with a surrogate shows `\ud8`-`\udf`.
const QUOTED_SURROGATE = /\\ud[89a-f]/;

function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  if (keys.length > 1) {
    keys.sort();
    // Default sort is UTF-16 order; it differs from code point order only with surrogates.
    for (let i = 0; i < keys.length; i++) {
      const q = quoteKey(keys[i]);
      if (q.length !== keys[i].length + 2 && QUOTED_SURROGATE.test(q)) {
        return keys.sort(compareCodePoints);
      }
    }
  }
  return keys;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

// The hot path: no pointer bookkeeping. When it throws, `locate` walks the value again in the
// same order to find where, and the error is re-thrown with the JSON pointer.
function write(v: unknown, depth: number): string {
  switch (typeof v) {
    case "string":
      return PLAIN.test(v) ? '"' + v + '"' : quoteString(v);
    case "number":
      return floatRepr(v);
    case "bigint":
      return intText(v);
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      if (depth >= MAX_DEPTH) {
        throw new WireError("depth_exceeded", `more than ${MAX_DEPTH} nested arrays/objects`);
      }
      if (Array.isArray(v)) {
        const n = v.length;
        if (n === 0) return "[]";
        let out = "[" + write(v[0], depth + 1);
        for (let i = 1; i < n; i++) out += "," + write(v[i], depth + 1);
        return out + "]";
      }
      if (v instanceof PyInt) return intText(v.value);
      if (!isPlainObject(v)) break;
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj);
      const n = keys.length;
      if (n === 0) return "{}";
      if (n > 1) keys.sort();
      let out = "{";
      for (let i = 0; i < n; i++) {
        const k = keys[i];
        const q = quoteKey(k);
        // A key with a surrogate (shown as \ud8-\udf once quoted) needs code point order.
        if (q.length !== k.length + 2 && n > 1 && QUOTED_SURROGATE.test(q)) {
          return writeObjectByCodePoint(obj, keys, depth);
        }
        out += (i === 0 ? "" : ",") + q + ":" + write(obj[k], depth + 1);
      }
      return out + "}";
    }
  }
  throw new WireError(
    "unsupported_type",
    `${describe(v)} has no canonical form (use number for floats, bigint or PyInt for ints)`,
  );
}

function writeObjectByCodePoint(
  obj: Record<string, unknown>,
  keys: string[],
  depth: number,
): string {
  keys.sort(compareCodePoints);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    out += (i === 0 ? "" : ",") + quoteKey(keys[i]) + ":" + write(obj[keys[i]], depth + 1);
  }
  return out + "}";
}

// Find the path of the first value `write` rejects (same traversal order).
function locate(v: unknown, depth: number, path: (string | number)[]): boolean {
  try {
    if (typeof v !== "object" || v === null || v instanceof PyInt) {
      write(v, depth);
      return false;
    }
    if (depth >= MAX_DEPTH) return true;
  } catch {
    return true;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      if (locate(v[i], depth + 1, path)) return true;
      path.pop();
    }
    return false;
  }
  if (!isPlainObject(v)) return true;
  for (const k of sortedKeys(v)) {
    path.push(k);
    try {
      quoteKey(k);
    } catch {
      return true;
    }
    if (locate((v as Record<string, unknown>)[k], depth + 1, path)) return true;
    path.pop();
  }
  return false;
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
  try {
    return write(value, 0);
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    const path: (string | number)[] = [];
    locate(value, 0, path);
    throw new WireError(e.code, e.message, { pointer: jsonPointer(path), cause: e });
  }
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
