/**
 * Observations: one object per measured corpus item (warm-up items excluded), in corpus order. The
 * analysis (`analyze.ts`) is a pure function of the normalized scenario and these objects, so
 * anyone holding both can recompute every number that decides a verdict (docs/statistics.md,
 * "Observations").
 *
 * Fields:
 *
 * - `item` (int): 0-based index in the measured corpus; `id`: the item's `id`, or `#<n>`.
 * - `ok`: the substrate answered and every metric could be computed from the answer.
 * - `attempts` (int): calls made for the item (1 + retries used; 0 when the item had nothing to
 *   send). `attempt_failures`: the failure kinds of the attempts before the last, when retried.
 * - `failure`: `{kind, message}` of the final attempt when `ok` is false. Kinds: `timeout`,
 *   `crash`, `invalid_response`, `http_error`, `error`, `invalid_item`.
 * - `latency_ms` and `censored` (only when the scenario has a `latency_ms` metric): milliseconds
 *   from the first attempt's start (in open-loop mode, from the item's scheduled start) to the
 *   final answer, with restarts of the substrate excluded. For a failed item `censored` is true and
 *   `latency_ms` is a lower bound: max(elapsed, timeout_ms).
 * - `scheduled_ms` (open-loop mode only): the item's scheduled start, ms after measuring began.
 * - `metrics`: metric name → value (a float), or null when not measured (every metric but
 *   `success` of a failed item). `success` is 1 or 0 for every item.
 *
 * @module
 */
import { z } from "zod";
import type { JsonObject, JsonValue } from "../json/value.ts";
import type { Scenario } from "../scenario/types.ts";
import { MetricError, metricValue } from "./metrics.ts";

/** Why an item failed. */
export const FAILURE_KINDS = [
  "timeout",
  "crash",
  "invalid_response",
  "http_error",
  "error",
  "invalid_item",
] as const;

/** The zod schema of one observation. */
export const ObservationSchema = z.object({
  item: z.number().int().nonnegative(),
  id: z.string(),
  ok: z.boolean(),
  attempts: z.number().int().nonnegative(),
  attempt_failures: z.array(z.string()).optional(),
  failure: z.object({ kind: z.string(), message: z.string() }).strict().optional(),
  latency_ms: z.number().nonnegative().optional(),
  censored: z.boolean().optional(),
  scheduled_ms: z.number().nonnegative().optional(),
  metrics: z.record(z.string(), z.number().nullable()),
}).strict();

/** One measured corpus item. */
export type Observation = z.infer<typeof ObservationSchema>;

/** What the executor reports for one measured item. */
export interface CallOutcome {
  /** 0-based index in the measured corpus. */
  index: number;
  id: string;
  ok: boolean;
  result?: JsonValue;
  failure?: { kind: string; message: string };
  attempts: number;
  attempt_failures?: string[];
  /** First attempt's start (or scheduled start) to the final answer or failure, restarts excluded. */
  elapsed_ms: number;
  scheduled_ms?: number;
}

/** True when the scenario measures latency (and observations carry timing). */
export function measuresLatency(s: Scenario): boolean {
  return Object.values(s.metrics).some((m) => m.kind === "latency_ms");
}

/**
 * Turn the executor's outcomes into observations: compute every metric from the item and the
 * answer; an answer lacking what a metric needs makes the item failed (`invalid_response`).
 *
 * @example
 * ```ts
 * import { buildObservations } from "./observation.ts";
 * import assert from "node:assert/strict";
 * const scenario = {
 *   probe: { timeout_ms: 500 },
 *   metrics: { lat: { kind: "latency_ms" }, ok: { kind: "success" } },
 * } as never;
 * const [a, b] = buildObservations(scenario, [{}, {}], [
 *   { index: 0, id: "a", ok: true, result: {}, attempts: 1, elapsed_ms: 3 },
 *   { index: 1, id: "b", ok: false, failure: { kind: "timeout", message: "t" }, attempts: 1, elapsed_ms: 501 },
 * ]);
 * assert.deepEqual(a.metrics, { lat: 3, ok: 1 });
 * assert.deepEqual([b.latency_ms, b.censored, b.metrics.lat, b.metrics.ok], [501, true, null, 0]);
 * ```
 */
export function buildObservations(
  scenario: Scenario,
  measuredItems: readonly JsonObject[],
  outcomes: readonly CallOutcome[],
): Observation[] {
  const timing = measuresLatency(scenario);
  return outcomes.map((o) => {
    let ok = o.ok;
    let failure = o.failure;
    const metrics: Record<string, number | null> = {};
    if (ok) {
      for (const [name, spec] of Object.entries(scenario.metrics)) {
        try {
          metrics[name] = metricValue(spec, measuredItems[o.index], o.result ?? null, o.elapsed_ms);
        } catch (e) {
          if (!(e instanceof MetricError)) throw e;
          ok = false;
          failure = { kind: "invalid_response", message: `metric ${name}: ${e.message}` };
          break;
        }
      }
    }
    if (!ok) {
      for (const [name, spec] of Object.entries(scenario.metrics)) {
        metrics[name] = spec.kind === "success" ? 0 : null;
      }
    }
    const obs: Observation = { item: o.index, id: o.id, ok, attempts: o.attempts, metrics };
    if (o.attempt_failures && o.attempt_failures.length > 0) {
      obs.attempt_failures = o.attempt_failures;
    }
    if (!ok) obs.failure = failure ?? { kind: "error", message: "failed" };
    if (timing) {
      obs.latency_ms = ok ? o.elapsed_ms : Math.max(o.elapsed_ms, scenario.probe.timeout_ms);
      obs.censored = !ok;
    }
    if (o.scheduled_ms !== undefined) obs.scheduled_ms = o.scheduled_ms;
    // Keep the documented key order: item, id, ok, attempts, ..., metrics last.
    const { metrics: m, ...rest } = obs;
    return { ...rest, metrics: m };
  });
}
