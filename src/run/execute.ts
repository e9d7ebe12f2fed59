/**
 * Drive a substrate through a corpus: warm-up items, then every item once, with the probe's
 * concurrency, timeout and retries. A failed call is recorded for its item and never stops the
 * run; cancellation (the signal) stops it between calls.
 *
 * @module
 */
import { getPointer } from "../json/pointer.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import type { Scenario } from "../scenario/types.ts";
import { type Substrate, SubstrateCallError } from "../substrate/types.ts";
import type { ItemOutcome } from "./metrics.ts";
import { EmpiricError } from "../errors/errors.ts";

/** A monotonic clock in milliseconds (injected: `performance.now` in production). */
export type MonotonicClock = () => number;

/** Progress of a run, reported as calls complete. */
export interface RunProgress {
  phase: "warmup" | "measure" | "analyze" | "done";
  done: number;
  total: number;
  failures: number;
  elapsed_ms: number;
}

/** Options of {@link executeProbe}. */
export interface ExecuteOptions {
  monotonic: MonotonicClock;
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
}

function itemId(item: JsonObject, index: number): string {
  const id = item.id;
  return typeof id === "string" ? id : typeof id === "bigint" ? id.toString() : `#${index + 1}`;
}

async function callOnce(
  substrate: Substrate,
  input: JsonValue,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<JsonValue> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  const onOuter = () => ctl.abort();
  outer?.addEventListener("abort", onOuter, { once: true });
  try {
    const result = substrate.call(input, ctl.signal);
    result.catch(() => undefined); // a late failure after a timeout is not unhandled
    // A substrate that ignores the signal still loses the race against the timeout.
    const timeout = new Promise<never>((_, reject) => {
      ctl.signal.addEventListener(
        "abort",
        () => reject(new SubstrateCallError("timeout", `no response within ${timeoutMs} ms`)),
        {
          once: true,
        },
      );
    });
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuter);
  }
}

/** Thrown when the run is cancelled through its signal. */
export class RunCancelled extends EmpiricError {
  constructor() {
    super("cancelled", "the run was cancelled before it finished; nothing was stored");
  }
}

/**
 * Run the probe over the items; returns one outcome per measured item, in corpus order.
 */
export async function executeProbe(
  scenario: Scenario,
  items: readonly JsonObject[],
  substrate: Substrate,
  options: ExecuteOptions,
): Promise<ItemOutcome[]> {
  const { probe } = scenario;
  const now = options.monotonic;
  const t0 = now();
  const warm = items.slice(0, Math.min(probe.warmup_items, items.length));
  const measured = items.slice(warm.length);
  const send = (item: JsonObject): JsonValue | undefined => getPointer(item, probe.send);

  for (let i = 0; i < warm.length; i++) {
    if (options.signal?.aborted) throw new RunCancelled();
    const input = send(warm[i]);
    if (input !== undefined) {
      await callOnce(substrate, input, probe.timeout_ms, options.signal).catch(() => undefined);
    }
    options.onProgress?.({
      phase: "warmup",
      done: i + 1,
      total: warm.length,
      failures: 0,
      elapsed_ms: now() - t0,
    });
  }

  const outcomes: ItemOutcome[] = new Array(measured.length);
  let next = 0;
  let done = 0;
  let failures = 0;
  const worker = async () => {
    while (next < measured.length) {
      if (options.signal?.aborted) return;
      const index = next++;
      const item = measured[index];
      const id = itemId(item, warm.length + index);
      const input = send(item);
      let outcome: ItemOutcome;
      if (input === undefined) {
        outcome = {
          ok: false,
          index,
          id,
          latency_ms: 0,
          attempts: 0,
          failure: { kind: "invalid_item", message: `the item has no ${probe.send}` },
        };
      } else {
        let attempts = 0;
        for (;;) {
          attempts++;
          const start = now();
          try {
            const result = await callOnce(substrate, input, probe.timeout_ms, options.signal);
            outcome = { ok: true, index, id, latency_ms: now() - start, result, attempts };
            break;
          } catch (e) {
            const failure = e instanceof SubstrateCallError
              ? { kind: e.kind, message: e.message }
              : { kind: "error", message: (e as Error)?.message ?? String(e) };
            outcome = { ok: false, index, id, latency_ms: now() - start, failure, attempts };
            if (attempts > probe.retries || options.signal?.aborted) break;
          }
        }
      }
      outcomes[index] = outcome;
      done++;
      if (!outcome.ok) failures++;
      options.onProgress?.({
        phase: "measure",
        done,
        total: measured.length,
        failures,
        elapsed_ms: now() - t0,
      });
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(probe.concurrency, Math.max(1, measured.length)) }, worker),
  );
  if (options.signal?.aborted) throw new RunCancelled();
  return outcomes;
}
