/**
 * Float text exactly as Python's `repr(float)` writes it (wire-format rule R7).
 *
 * @module
 */
import { WireError } from "../errors/errors.ts";

const EXP_ONE_DIGIT = /e([+-])(\d)$/;

/**
 * Python `repr` of a finite double: shortest round-trip digits, fixed notation when the decimal
 * exponent e of the first digit satisfies -4 <= e < 16, otherwise `d.ddde±XX`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { floatRepr } from "./float.ts";
 * assert.equal(floatRepr(1), "1.0");
 * assert.equal(floatRepr(1e16), "1e+16");
 * assert.equal(floatRepr(0.00001), "1e-05");
 * assert.equal(floatRepr(-0), "-0.0");
 * ```
 */
export function floatRepr(x: number): string {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const ax = x < 0 ? -x : x;
  if (ax >= 1e-4 && ax < 1e16) {
    // JS writes fixed notation for 1e-7 <= |x| < 1e21 with the same shortest digits.
    const s = String(x);
    return Number.isInteger(x) ? s + ".0" : s;
  }
  if (!Number.isFinite(x)) {
    throw new WireError("non_finite_number", `${x} has no canonical form (rule R8)`);
  }
  // toExponential() without digits gives the shortest round-trip digits.
  const s = x.toExponential();
  return EXP_ONE_DIGIT.test(s) ? s.replace(EXP_ONE_DIGIT, "e$10$2") : s;
}
