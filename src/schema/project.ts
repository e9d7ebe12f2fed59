/**
 * Project a typed value onto plain JSON values that a JSON Schema validator understands:
 * ints (`bigint`, `PyInt`) become numbers. The typed original stays available to the
 * `wireType` keyword, which checks that a value is an int in the wire model.
 *
 * @module
 */
import { type JsonValue, PyInt } from "../json/value.ts";

/**
 * Plain-JSON copy of a typed value (ints become numbers; ints beyond 2^53 lose precision,
 * which no schema check depends on).
 *
 * @example
 * ```ts
 * import { projectForSchema } from "./project.ts";
 * console.assert((projectForSchema({ n: 3n }) as { n: number }).n === 3);
 * ```
 */
export function projectForSchema(v: JsonValue): unknown {
  if (typeof v === "bigint") return Number(v);
  if (v === null || typeof v !== "object") return v;
  if (v instanceof PyInt) return Number(v.value);
  if (Array.isArray(v)) return v.map(projectForSchema);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = projectForSchema(v[k]);
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
