/**
 * Per-item metrics: one number per item and metric, from the item and the substrate's answer.
 *
 * @module
 */
import { canonicalize } from "../json/canonical.ts";
import { getPointer } from "../json/pointer.ts";
import { isInt, type JsonValue, toNumber } from "../json/value.ts";
import type { MetricSpec } from "../scenario/types.ts";

/** A metric that cannot be computed for an answered item (the item counts as failed). */
export class MetricError extends Error {}

function asNumber(v: JsonValue | undefined, what: string): number {
  if (typeof v === "number" || isInt(v)) return toNumber(v as JsonValue);
  throw new MetricError(
    `${what} is ${v === undefined ? "missing" : `not a number (${canonicalize(v).slice(0, 40)})`}`,
  );
}

/**
 * The metric's value for one answered item (`result` is the substrate's answer, `latencyMs` the
 * item's latency). Throws {@link MetricError} when the answer or item lacks what it needs.
 *
 * @example
 * ```ts
 * import { metricValue } from "./metrics.ts";
 * import assert from "node:assert/strict";
 * const spec = { kind: "exact_match" as const, output: "/answer", reference: "/expected" };
 * assert.equal(metricValue(spec, { expected: 4n }, { answer: 4n }, 2.5), 1);
 * assert.equal(metricValue({ kind: "latency_ms" }, {}, {}, 2.5), 2.5);
 * ```
 */
export function metricValue(
  spec: MetricSpec,
  item: JsonValue,
  result: JsonValue,
  latencyMs: number,
): number {
  switch (spec.kind) {
    case "success":
      return 1;
    case "latency_ms":
      return latencyMs;
    case "exact_match": {
      const out = getPointer(result, spec.output!);
      if (out === undefined) throw new MetricError(`the result has no ${spec.output}`);
      const ref = getPointer(item, spec.reference!);
      if (ref === undefined) throw new MetricError(`the item has no ${spec.reference}`);
      return canonicalize(out) === canonicalize(ref) ? 1 : 0;
    }
    case "abs_error": {
      const out = asNumber(getPointer(result, spec.output!), `result ${spec.output}`);
      const ref = asNumber(getPointer(item, spec.reference!), `item ${spec.reference}`);
      return Math.abs(out - ref);
    }
    case "reported":
      return asNumber(getPointer(result, spec.output!), `result ${spec.output}`);
  }
}
