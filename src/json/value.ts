/**
 * The typed JSON value model (wire-format rule R1): ints and floats are different types.
 *
 * - a plain `number` is always a **float** (`3` canonicalizes as `3.0`);
 * - an **int** is a native `bigint` or a {@link PyInt} (a wrapper holding a `bigint`, the name
 *   the JS API of the SPEC uses), in the range -2^63 .. 2^63-1.
 *
 * @module
 */

/** Smallest int of the wire format: -2^63. */
export const INT_MIN: bigint = -(2n ** 63n);
/** Largest int of the wire format: 2^63 - 1. */
export const INT_MAX: bigint = 2n ** 63n - 1n;

/**
 * An integer, as distinct from a float. Wrap integers in `PyInt` when building values to sign.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PyInt } from "./value.ts";
 * import { canonicalize } from "./canonical.ts";
 * assert.equal(canonicalize({ n: new PyInt(3), x: 3 }), '{"n":3,"x":3.0}');
 * ```
 */
export class PyInt {
  /** The integer value. */
  readonly value: bigint;

  /** Build from a bigint, a safe-integer number, or decimal text. */
  constructor(value: bigint | number | string) {
    if (typeof value === "number" && !Number.isSafeInteger(value)) {
      throw new RangeError(`PyInt needs a safe integer number, got ${value}`);
    }
    this.value = BigInt(value);
  }

  /** Decimal text of the value. */
  toString(): string {
    return this.value.toString();
  }

  /** JSON text of the value (used by JSON.stringify; the value stays exact). */
  toJSON(): unknown {
    const raw = (JSON as unknown as { rawJSON?: (s: string) => unknown }).rawJSON;
    return raw ? raw(this.value.toString()) : Number(this.value);
  }
}

/** A JSON object of typed values. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A JSON array of typed values. */
export type JsonArray = JsonValue[];

/** A typed JSON value: floats are `number`, ints are `bigint` or {@link PyInt}. */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | PyInt
  | string
  | JsonArray
  | JsonObject;

/**
 * Make an int value from a safe-integer number or bigint (returns a native `bigint`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { int } from "./value.ts";
 * assert.equal(int(200), 200n);
 * ```
 */
export function int(value: number | bigint): bigint {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new RangeError(`int() needs a safe integer number, got ${value}`);
  }
  return BigInt(value);
}

/**
 * True when the value is a wire-format int (`bigint` or {@link PyInt}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isInt, PyInt } from "./value.ts";
 * assert.ok(isInt(1n));
 * assert.ok(isInt(new PyInt(1)));
 * assert.ok(!isInt(1));
 * ```
 */
export function isInt(value: unknown): value is bigint | PyInt {
  return typeof value === "bigint" || value instanceof PyInt;
}

/**
 * The numeric value of an int or float as a JS number (ints beyond 2^53 lose precision).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toNumber } from "./value.ts";
 * assert.equal(toNumber(200n), 200);
 * assert.equal(toNumber(1.5), 1.5);
 * ```
 */
export function toNumber(value: JsonValue): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof PyInt) return Number(value.value);
  throw new TypeError(`not a number: ${typeof value}`);
}

/** True for a plain JSON object (not an array, null, PyInt or other class instance). */
export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Set `obj[key] = value` safely: a key named `__proto__` becomes an own data property instead
 * of replacing the prototype.
 */
export function setMember(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    obj[key] = value;
  }
}

/**
 * Deep-copy a typed value, replacing every leaf (non-container value) with `leaf(value)`.
 * Objects keep their member order; a `__proto__` key stays an own member.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mapJson } from "./value.ts";
 * const doubled = mapJson({ a: [1.5, 2n] }, (x) => typeof x === "number" ? x * 2 : x);
 * assert.ok(JSON.stringify(doubled, (_k, v) => typeof v === "bigint" ? String(v) : v) === '{"a":[3,"2"]}');
 * ```
 */
export function mapJson<T>(
  value: JsonValue,
  leaf: (v: Exclude<JsonValue, JsonArray | JsonObject>) => T,
): unknown {
  const walk = (v: JsonValue): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (isJsonObject(v)) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) setMember(out as JsonObject, k, walk(v[k]) as JsonValue);
      return out;
    }
    return leaf(v as Exclude<JsonValue, JsonArray | JsonObject>);
  };
  return walk(value);
}
