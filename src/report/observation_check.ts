/**
 * A fast check that a parsed JSON value is an observation, written out by hand: exactly the
 * rules of `ObservationSchema` (src/run/observation.ts), which stays the reference (a
 * differential test compares the two on generated values, tests/report/observation_check_test.ts)
 * and still writes the message when a value fails.
 *
 * Benchmark (bench/report.ts, 100,000 latency observations, 14.5 MB): reading the file took
 * about 950 ms with the zod schema on every line and about 300 ms with this check (most of it
 * JSON.parse), on the 2-core development machine.
 *
 * @module
 */

const KEYS = new Set([
  "item",
  "id",
  "ok",
  "attempts",
  "attempt_failures",
  "failure",
  "latency_ms",
  "censored",
  "scheduled_ms",
  "metrics",
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isNonNegative = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;

/**
 * True when `v` is an observation (ObservationSchema accepts it unchanged).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isObservation } from "./observation_check.ts";
 * assert.equal(isObservation({ item: 0, id: "a", ok: true, attempts: 1, metrics: { x: 1 } }), true);
 * assert.equal(isObservation({ item: 0, id: "a", ok: true, attempts: 1, metrics: {}, extra: 1 }), false);
 * assert.equal(isObservation({ item: 0.5, id: "a", ok: true, attempts: 1, metrics: {} }), false);
 * ```
 */
export function isObservation(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const k in v) if (!KEYS.has(k)) return false;
  if (!isCount(v.item) || typeof v.id !== "string" || typeof v.ok !== "boolean") return false;
  if (!isCount(v.attempts)) return false;
  const af = v.attempt_failures;
  if (af !== undefined && !(Array.isArray(af) && af.every((s) => typeof s === "string"))) {
    return false;
  }
  const f = v.failure;
  if (f !== undefined) {
    if (!isObject(f) || typeof f.kind !== "string" || typeof f.message !== "string") return false;
    for (const k in f) if (k !== "kind" && k !== "message") return false;
  }
  if (v.latency_ms !== undefined && !isNonNegative(v.latency_ms)) return false;
  if (v.censored !== undefined && typeof v.censored !== "boolean") return false;
  if (v.scheduled_ms !== undefined && !isNonNegative(v.scheduled_ms)) return false;
  const m = v.metrics;
  if (!isObject(m)) return false;
  for (const k in m) {
    const x = m[k];
    if (x !== null && !(typeof x === "number" && Number.isFinite(x))) return false;
  }
  return true;
}
