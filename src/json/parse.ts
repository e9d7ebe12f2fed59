/**
 * The typed JSON parser (wire-format rule R11).
 *
 * Number literals with `.`, `e` or `E` become floats (`number`); other number literals become
 * ints (`bigint`, range -2^63 .. 2^63-1). Strict RFC 8259 syntax; duplicate keys, lone
 * surrogates, non-finite numbers, out-of-range ints, nesting beyond {@link MAX_DEPTH} and
 * invalid UTF-8 are rejected with a stable code and the position of the problem. Runs on any
 * JavaScript engine: it does not rely on `JSON.parse` source access.
 *
 * @module
 */
import type { TextPosition } from "../errors/errors.ts";
import { WireError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { MAX_DEPTH } from "./canonical.ts";
import { beginParse, type Layout, LAYOUT_MAX_KEYS, layoutAt, learnLayout } from "./layout.ts";
import { INT_MAX, INT_MIN, type JsonArray, type JsonObject, type JsonValue } from "./value.ts";

// Parser state. Parsing is synchronous, so module-level state is safe and fast.
let src = "";
let pos = 0;
let depth = 0;

/** Line and column (1-based, in UTF-16 units) of an offset in a text. */
export function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { offset, line, column: offset - lineStart + 1 };
}

function fail(code: ErrorCode, message: string, at = pos): never {
  const position = positionOf(src, at);
  throw new WireError(code, `${message} (line ${position.line}, column ${position.column})`, {
    position,
  });
}

function describeAt(at: number): string {
  if (at >= src.length) return "end of input";
  const c = src.codePointAt(at)!;
  if (c === 0xfeff) return "a byte order mark";
  if (c < 0x20 || c === 0x7f) return `control character U+${c.toString(16).padStart(4, "0")}`;
  if (c > 0x7e) return `'${String.fromCodePoint(c)}' (U+${c.toString(16).toUpperCase()})`;
  return `'${String.fromCharCode(c)}'`;
}

function unexpected(expected: string): never {
  fail("syntax_error", `expected ${expected}, found ${describeAt(pos)}`);
}

// Hot loops keep the source and position in locals and store the position back once: module
// variables live in memory, locals in registers.
function skipWs(): void {
  const s = src;
  let p = pos;
  let c = s.charCodeAt(p);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++p);
  pos = p;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function parseValue(): JsonValue {
  skipWs();
  const c = src.charCodeAt(pos);
  switch (c) {
    case 0x22:
      return parseString();
    case 0x7b:
      return parseObject();
    case 0x5b:
      return parseArray();
    case 0x74:
      return literal("true", true);
    case 0x66:
      return literal("false", false);
    case 0x6e:
      return literal("null", null);
    case 0x4e: // N
      if (src.startsWith("NaN", pos)) fail("non_finite_number", "NaN is not allowed (rule R8)");
      break;
    case 0x49: // I
      if (src.startsWith("Infinity", pos)) {
        fail("non_finite_number", "Infinity is not allowed (rule R8)");
      }
      break;
    default:
      if (c === 0x2d || isDigit(c)) return parseNumber();
  }
  unexpected("a JSON value");
}

function literal<T extends JsonValue>(word: string, value: T): T {
  if (!src.startsWith(word, pos)) unexpected(`'${word}'`);
  pos += word.length;
  return value;
}

// Exact powers of ten: 10^0 .. 10^22 are exact doubles.
const POW10 = Array.from({ length: 23 }, (_, i) => Number("1e" + i));

function parseNumber(): number | bigint {
  const start = pos;
  let c = src.charCodeAt(pos);
  const negative = c === 0x2d;
  if (negative) c = src.charCodeAt(++pos);
  // Digits are accumulated while they are few enough to be exact in a double (<= 15).
  let mantissa = 0;
  let digits = 0;
  if (c === 0x30) {
    c = src.charCodeAt(++pos);
    if (isDigit(c)) fail("syntax_error", "numbers must not have leading zeros");
  } else if (isDigit(c)) {
    const s = src;
    let p = pos;
    do {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      c = s.charCodeAt(++p);
    } while (isDigit(c));
    pos = p;
  } else {
    if (src.startsWith("Infinity", pos)) {
      fail("non_finite_number", "-Infinity is not allowed (rule R8)", start);
    }
    unexpected("a digit after '-'");
  }
  let isFloat = false;
  let scale = 0;
  if (c === 0x2e) {
    c = src.charCodeAt(++pos);
    if (!isDigit(c)) unexpected("a digit after the decimal point");
    const s = src;
    let p = pos;
    do {
      mantissa = mantissa * 10 + (c - 48);
      if (mantissa !== 0) digits++;
      scale++;
      c = s.charCodeAt(++p);
    } while (isDigit(c));
    pos = p;
    isFloat = true;
  }
  if (c === 0x65 || c === 0x45) {
    c = src.charCodeAt(++pos);
    if (c === 0x2b || c === 0x2d) c = src.charCodeAt(++pos);
    if (!isDigit(c)) unexpected("a digit in the exponent");
    do c = src.charCodeAt(++pos); while (isDigit(c));
    isFloat = true;
    digits = 99; // the exponent goes through the general path
  }
  if (isFloat) {
    // Exact mantissa and an exact power of ten: one correctly rounded division (Clinger).
    if (digits <= 15 && scale <= 22) {
      const x = mantissa / POW10[scale];
      return negative ? -x : x;
    }
    const text = src.slice(start, pos);
    const x = Number(text);
    if (x === Infinity || x === -Infinity) {
      fail("non_finite_number", `${text} overflows a binary64 float (rule R8)`, start);
    }
    return x;
  }
  if (digits <= 15) return BigInt(negative ? -mantissa : mantissa);
  const text = src.slice(start, pos);
  const v = BigInt(text);
  if (text.length > 18 && (v > INT_MAX || v < INT_MIN)) {
    fail("int_out_of_range", `int ${text} is outside -2^63 .. 2^63-1 (rule R6)`, start);
  }
  return v;
}

function hex4(at: number): number {
  let v = 0;
  for (let i = at; i < at + 4; i++) {
    const c = src.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else {
      pos = i;
      unexpected("four hex digits after \\u");
    }
    v = v * 16 + d;
  }
  return v;
}

function parseString(): string {
  const start = pos;
  pos++; // opening quote
  let out = "";
  let run = pos;
  const n = src.length;
  for (;;) {
    // Fast scan over characters that need no attention.
    const s = src;
    let p = pos;
    let c = s.charCodeAt(p);
    while (c !== 0x22 && c !== 0x5c && c >= 0x20 && (c < 0xd800 || c > 0xdfff)) {
      c = s.charCodeAt(++p);
    }
    pos = p;
    if (c === 0x22) {
      const s = run === start + 1 && out === "" ? src.slice(run, pos) : out + src.slice(run, pos);
      pos++;
      return s;
    }
    if (pos >= n) fail("syntax_error", "unterminated string", start);
    if (c === 0x5c) {
      out += src.slice(run, pos);
      const e = src.charCodeAt(pos + 1);
      switch (e) {
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += "\\";
          break;
        case 0x2f:
          out += "/";
          break;
        case 0x62:
          out += "\b";
          break;
        case 0x66:
          out += "\f";
          break;
        case 0x6e:
          out += "\n";
          break;
        case 0x72:
          out += "\r";
          break;
        case 0x74:
          out += "\t";
          break;
        case 0x75: {
          const u = hex4(pos + 2);
          if (u >= 0xd800 && u <= 0xdbff) {
            // must be followed by an escaped low surrogate
            if (src.charCodeAt(pos + 6) === 0x5c && src.charCodeAt(pos + 7) === 0x75) {
              const l = hex4(pos + 8);
              if (l >= 0xdc00 && l <= 0xdfff) {
                out += String.fromCharCode(u, l);
                pos += 12;
                run = pos;
                continue;
              }
            }
            fail("lone_surrogate", `\\u${src.slice(pos + 2, pos + 6)} is a lone surrogate`);
          }
          if (u >= 0xdc00 && u <= 0xdfff) {
            fail("lone_surrogate", `\\u${src.slice(pos + 2, pos + 6)} is a lone surrogate`);
          }
          out += String.fromCharCode(u);
          pos += 6;
          run = pos;
          continue;
        }
        default:
          pos++;
          unexpected('an escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
      }
      pos += 2;
      run = pos;
      continue;
    }
    if (c < 0x20) {
      fail("syntax_error", `${describeAt(pos)} must be escaped inside a string`);
    }
    // a raw surrogate: valid only as a high-then-low pair
    if (c <= 0xdbff) {
      const l = src.charCodeAt(pos + 1);
      if (l >= 0xdc00 && l <= 0xdfff) {
        pos += 2;
        continue;
      }
    }
    fail("lone_surrogate", "string holds a lone surrogate");
  }
}

function enter(): void {
  if (++depth > MAX_DEPTH) {
    fail("depth_exceeded", `more than ${MAX_DEPTH} nested arrays/objects`);
  }
  pos++;
}

function parseArray(): JsonArray {
  enter();
  const out: JsonArray = [];
  skipWs();
  if (src.charCodeAt(pos) === 0x5d) {
    pos++;
    depth--;
    return out;
  }
  for (;;) {
    out.push(parseValue());
    skipWs();
    const c = src.charCodeAt(pos);
    if (c === 0x2c) {
      pos++;
      continue;
    }
    if (c === 0x5d) {
      pos++;
      depth--;
      return out;
    }
    unexpected("',' or ']' after an array element");
  }
}

// Match a template key at the opening quote at `pos`, and move past it.
function matchKey(k: string): boolean {
  const at = pos + 1;
  if (src.charCodeAt(at + k.length) !== 0x22 || !src.startsWith(k, at)) return false;
  pos = at + k.length + 1;
  return true;
}

// Values collected for a template object, one array per depth (reused).
const collected: JsonValue[][] = [];

function parseObject(): JsonObject {
  enter();
  skipWs();
  if (src.charCodeAt(pos) === 0x7d) {
    pos++;
    depth--;
    return {};
  }
  // A known layout of this depth whose first key is the one here (see layout.ts).
  let layout: Layout | undefined;
  if (src.charCodeAt(pos) === 0x22) {
    for (let w = 0; (layout = layoutAt(depth, w)) !== undefined; w++) {
      if (layout.build !== undefined && matchKey(layout.keys[0])) break;
    }
  }
  if (layout === undefined) return parseMembers({}, []);
  const keys = layout.keys;
  const n = keys.length;
  const values = collected[depth] ?? (collected[depth] = []);
  let i = 0;
  for (;;) {
    skipWs();
    if (src.charCodeAt(pos) !== 0x3a) unexpected("':' after an object key");
    pos++;
    values[i++] = parseValue();
    skipWs();
    const c = src.charCodeAt(pos);
    if (c === 0x7d && i === n) {
      pos++;
      depth--;
      const out = layout.build!(values);
      values.fill(undefined as unknown as JsonValue, 0, n); // keep the array, drop the values
      return out;
    }
    if (c === 0x2c) {
      pos++;
      skipWs();
      if (i < n && src.charCodeAt(pos) === 0x22 && matchKey(keys[i])) continue;
    }
    // The object leaves the layout here: keep what was read and go on member by member.
    const out: JsonObject = {};
    for (let j = 0; j < i; j++) out[keys[j]] = values[j];
    values.fill(undefined as unknown as JsonValue, 0, i);
    if (c === 0x7d) {
      pos++;
      depth--;
      return out;
    }
    if (c !== 0x2c) unexpected("',' or '}' after an object member");
    return parseMembers(out, undefined);
  }
}

// Parse members one by one into `out` (at the first key). `keys` collects the key sequence of an
// object read from its start, to learn its layout.
function parseMembers(out: JsonObject, learn: string[] | undefined): JsonObject {
  let keys = learn;
  for (;;) {
    skipWs();
    if (src.charCodeAt(pos) !== 0x22) unexpected("a string key");
    const keyAt = pos;
    const key = parseString();
    // Checked before the value: the first problem reading left to right is the one reported.
    if (out[key] !== undefined && Object.hasOwn(out, key)) {
      fail("duplicate_key", `duplicate key ${JSON.stringify(key)} (rule R4)`, keyAt);
    }
    skipWs();
    if (src.charCodeAt(pos) !== 0x3a) unexpected("':' after an object key");
    pos++;
    const value = parseValue();
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = value;
    }
    if (keys !== undefined) {
      if (keys.length < LAYOUT_MAX_KEYS) keys.push(key);
      else keys = undefined; // too many for a template
    }
    skipWs();
    const c = src.charCodeAt(pos);
    if (c === 0x2c) {
      pos++;
      continue;
    }
    if (c === 0x7d) {
      pos++;
      if (keys !== undefined) learnLayout(keys, depth);
      depth--;
      return out;
    }
    unexpected("',' or '}' after an object member");
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Byte offset of the first ill-formed UTF-8 sequence (Unicode Table 3-7), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number, lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * Decode UTF-8 bytes strictly (no BOM stripping, no replacement characters).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeUtf8 } from "./parse.ts";
 * assert.equal(decodeUtf8(new Uint8Array([0x22, 0x61, 0x22])), '"a"');
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch (cause) {
    const at = firstInvalidUtf8(bytes);
    throw new WireError("invalid_utf8", `input is not valid UTF-8 (byte offset ${at})`, {
      position: { offset: at, line: 0, column: 0 },
      cause,
    });
  }
}

/**
 * Parse JSON text (or UTF-8 bytes) into a typed value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJson } from "./parse.ts";
 * const v = parseJson('{"int": 1, "float": 1.0, "big": 9223372036854775807}');
 * assert.notEqual(v, null);
 * assert.equal(typeof v, "object");
 * const o = v as Record<string, unknown>;
 * assert.equal(o.int, 1n);
 * assert.equal(o.float, 1);
 * assert.equal(o.big, 9223372036854775807n);
 * ```
 */
export function parseJson(input: string | Uint8Array): JsonValue {
  src = typeof input === "string" ? input : decodeUtf8(input);
  pos = 0;
  depth = 0;
  beginParse();
  try {
    const value = parseValue();
    skipWs();
    if (pos < src.length) {
      fail("syntax_error", `unexpected ${describeAt(pos)} after the JSON value`);
    }
    return value;
  } catch (e) {
    collected.length = 0; // drop values of the failed parse
    throw e;
  } finally {
    src = "";
  }
}
