/**
 * Per-item metrics: one number per item and metric, from the item, the substrate's result and
 * the call's latency.
 *
 * @module
 */
import { canonicalize } from "../json/canonical.ts";
import { getPointer } from "../json/pointer.ts";
import { isInt, type JsonValue, toNumber } from "../json/value.ts";
import type { MetricSpec } from "../scenario/types.ts";

/** The outcome of one measured call. */
export type ItemOutcome =
  | { ok: true; index: number; id: string; latency_ms: number; result: JsonValue; attempts: number }
  | {
    ok: false;
    index: number;
    id: string;
    latency_ms: number;
    failure: { kind: string; message: string };
    attempts: number;
  };

/** A metric that cannot be computed for an item (counted as a failed item). */
export class MetricError extends Error {}

function asNumber(v: JsonValue | undefined, what: string): number {
  if (typeof v === "number" || isInt(v)) return toNumber(v as JsonValue);
  throw new MetricError(
    `${what} is ${v === undefined ? "missing" : `not a number (${canonicalize(v).slice(0, 40)})`}`,
  );
}

/**
 * The metric's value for one item, or `undefined` when the metric only applies to successful
 * calls and the call failed. `success` is 1 or 0 for every item.
 *
 * @example
 * ```ts
 * import { metricValue } from "./metrics.ts";
 * const o = { ok: true as const, index: 0, id: "a", latency_ms: 2.5, result: { answer: 4n }, attempts: 1 };
 * console.assert(metricValue({ kind: "exact_match", output: "/answer", reference: "/expected" }, { expected: 4n }, o) === 1);
 * console.assert(metricValue({ kind: "latency_ms" }, {}, o) === 2.5);
 * ```
 */
export function metricValue(
  spec: MetricSpec,
  item: JsonValue,
  outcome: ItemOutcome,
): number | undefined {
  if (spec.kind === "success") return outcome.ok ? 1 : 0;
  if (!outcome.ok) return undefined;
  switch (spec.kind) {
    case "latency_ms":
      return outcome.latency_ms;
    case "exact_match": {
      const out = getPointer(outcome.result, spec.output!);
      if (out === undefined) throw new MetricError(`the result has no ${spec.output}`);
      const ref = getPointer(item, spec.reference!);
      if (ref === undefined) throw new MetricError(`the item has no ${spec.reference}`);
      return canonicalize(out) === canonicalize(ref) ? 1 : 0;
    }
    case "abs_error": {
      const out = asNumber(getPointer(outcome.result, spec.output!), `result ${spec.output}`);
      const ref = asNumber(getPointer(item, spec.reference!), `item ${spec.reference}`);
      return Math.abs(out - ref);
    }
    case "reported":
      return asNumber(getPointer(outcome.result, spec.output!), `result ${spec.output}`);
  }
}
