/**
 * Drive a substrate through a corpus, measuring each item honestly:
 *
 * 1. Every lane (one per unit of probe concurrency; a `cmd:` lane owns one process) is started and
 *    primed before anything is measured: the warm-up items are spread over the lanes, and a lane
 *    without one is primed with one call on the first item's input (its answer discarded).
 * 2. When the scenario measures latency, the harness's own overhead is calibrated on an
 *    in-process null substrate driven through the same code (recorded with the run).
 * 3. Each measured item's clock runs from its first attempt's start (in open-loop mode, from its
 *    scheduled start) to its final answer, across retries. Restarting a lane's process after a
 *    failure, and re-priming it, happen outside every item's clock (their time is subtracted when
 *    they fall inside a retried or scheduled item's window).
 * 4. Open-loop mode (`probe.arrival_rate`): item i is scheduled at i / rate seconds; a lane picks
 *    the next item when free and waits for its scheduled time, so queueing behind a slow substrate
 *    counts in the latency (no coordinated omission).
 *
 * A failed call is recorded for its item and never stops the run; cancellation (the signal) stops
 * it between calls.
 *
 * @module
 */
import { getPointer } from "../json/pointer.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import type { Scenario } from "../scenario/types.ts";
import { type Lane, type Substrate, SubstrateCallError } from "../substrate/types.ts";
import type { CallOutcome } from "./observation.ts";
import { measuresLatency } from "./observation.ts";
import { EmpiricError, ScenarioError } from "../errors/errors.ts";
import { Deadlines } from "./deadlines.ts";

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
  /** Calls of the null-substrate calibration (default 200; 0 to skip). */
  harnessCalls?: number;
}

/** Options of {@link executeArms}. */
export interface ArmsOptions extends ExecuteOptions {
  /**
   * The order in which the arms are called for measured item `index` (a permutation of the arm
   * indices). Default: in arm order.
   */
  order?: (index: number) => readonly number[];
}

/** The harness's own per-call overhead, measured on an in-process null substrate. */
export interface HarnessCalibration {
  calls: number;
  median_ms: number;
  max_ms: number;
}

/** What {@link executeArms} measured: one outcome list per arm. */
export interface ArmsResult {
  /** Per arm, one outcome per measured item, in corpus order. */
  outcomes: CallOutcome[][];
  harness?: HarnessCalibration;
  /** Per arm: lanes whose priming failed three times in a row. */
  unprimed: number[];
}

/** What {@link executeProbe} measured. */
export interface ExecuteResult {
  /** One outcome per measured item, in corpus order. */
  outcomes: CallOutcome[];
  /** Set when the scenario measures latency. */
  harness?: HarnessCalibration;
  /** Lanes whose priming failed three times in a row (they were measured unprimed). */
  unprimed: number;
}

function itemId(item: JsonObject, index: number): string {
  const id = item.id;
  return typeof id === "string" ? id : typeof id === "bigint" ? id.toString() : `#${index + 1}`;
}

/** A signal that never fires, for lanes that are stopped through `abort()` instead. */
const NEVER = new AbortController().signal;

/**
 * One call with a timeout. A lane with `abort()` (a `cmd:` lane) is stopped through it and its
 * own rejection is awaited directly; any other lane gets an aborted signal, and loses a race
 * against the timeout should it ignore the signal.
 */
async function callOnce(
  lane: Lane,
  input: JsonValue,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  deadlines: Deadlines,
): Promise<JsonValue> {
  if (lane.abort) {
    const cancel = deadlines.add(timeoutMs, () => lane.abort!());
    const onOuter = () => lane.abort!();
    outer?.addEventListener("abort", onOuter, { once: true });
    try {
      return await lane.call(input, NEVER);
    } finally {
      cancel();
      outer?.removeEventListener("abort", onOuter);
    }
  }
  const ctl = new AbortController();
  let rejectTimeout!: (e: unknown) => void;
  const timeout = new Promise<never>((_, reject) => (rejectTimeout = reject));
  const cancel = deadlines.add(timeoutMs, () => {
    ctl.abort();
    rejectTimeout(new SubstrateCallError("timeout", `no response within ${timeoutMs} ms`));
  });
  const onOuter = () => {
    ctl.abort();
    rejectTimeout(new SubstrateCallError("error", "the run was cancelled"));
  };
  outer?.addEventListener("abort", onOuter, { once: true });
  try {
    const result = lane.call(input, ctl.signal);
    result.catch(() => undefined); // a late failure after a timeout is not unhandled
    return await Promise.race([result, timeout]);
  } finally {
    cancel();
    outer?.removeEventListener("abort", onOuter);
  }
}

/** Thrown when the run is cancelled through its signal. */
export class RunCancelled extends EmpiricError {
  constructor() {
    super("cancelled", "the run was cancelled before it finished; nothing was stored");
  }
}

/** Priming attempts per lane before measuring; one per restart while measuring. */
const PRIMING_TRIES = 3;

/** A priming call answers from a process that is still starting: it gets at least this long. */
const PRIMING_TIMEOUT_MS = 10_000;

/**
 * Make a lane ready and primed. Returns undefined when primed (or nothing to prime), else the
 * last priming failure (the lane is then left started but unprimed).
 */
async function prepare(
  lane: Lane,
  primeInput: JsonValue | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  deadlines: Deadlines,
  tries = 1,
): Promise<string | undefined> {
  let last = "";
  for (let i = 0; i < tries; i++) {
    const fresh = await lane.ready();
    if (!fresh || primeInput === undefined) return undefined;
    try {
      await callOnce(lane, primeInput, Math.max(timeoutMs, PRIMING_TIMEOUT_MS), signal, deadlines);
      return undefined;
    } catch (e) {
      last = (e as Error)?.message ?? String(e);
      if (signal?.aborted) return last;
    }
  }
  await lane.ready();
  return last;
}

/** Median and maximum of per-call overhead through the executor's call path, on a null lane. */
async function calibrateHarness(
  now: MonotonicClock,
  calls: number,
  timeoutMs: number,
  deadlines: Deadlines,
): Promise<HarnessCalibration> {
  const lane: Lane = { ready: () => Promise.resolve(false), call: (x) => Promise.resolve(x) };
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = now();
    await callOnce(lane, null, timeoutMs, undefined, deadlines);
    times.push(now() - start);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  return { calls, median_ms: median, max_ms: times[times.length - 1] };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Run the probe over the items; returns one outcome per measured item, in corpus order.
 */
export async function executeProbe(
  scenario: Scenario,
  items: readonly JsonObject[],
  substrate: Substrate,
  options: ExecuteOptions,
): Promise<ExecuteResult> {
  const r = await executeArms(scenario, items, [substrate], options);
  return {
    outcomes: r.outcomes[0],
    ...(r.harness ? { harness: r.harness } : {}),
    unprimed: r.unprimed[0],
  };
}

/** Names of the arms in messages: the substrate alone, or candidate and baseline. */
const ARM_NAMES = ["candidate", "baseline"];

/**
 * Run the probe over the items on several substrates (arms) at once, item by item: each lane
 * owns one lane of every arm, takes the next item and calls each arm in `order(index)`, one
 * after the other, each measured exactly as a single substrate is (its own clock, retries,
 * restarts outside the clock). Warm-up items alternate the arms' order. Open-loop scenarios
 * (`probe.arrival_rate`) take one arm only.
 */
export async function executeArms(
  scenario: Scenario,
  items: readonly JsonObject[],
  substrates: readonly Substrate[],
  options: ArmsOptions,
): Promise<ArmsResult> {
  const { probe } = scenario;
  const now = options.monotonic;
  const signal = options.signal;
  const arms = substrates.length;
  if (arms < 1) throw new Error("executeArms needs at least one substrate");
  if (arms > 1 && probe.arrival_rate !== undefined) {
    throw new ScenarioError(
      "scenario_invalid",
      "an open-loop scenario (probe.arrival_rate) measures one substrate at a time; it cannot interleave a candidate and a baseline (compare against a stored baseline with --baseline instead)",
    );
  }
  const armName = (
    a: number,
  ) => (arms === 1 ? "the substrate" : `the ${ARM_NAMES[a] ?? `arm ${a}`}`);
  const order = options.order ?? (() => substrates.map((_, a) => a));
  const t0 = now();
  const warm = items.slice(0, Math.min(probe.warmup_items, items.length));
  const measured = items.slice(warm.length);
  const send = (item: JsonObject): JsonValue | undefined => getPointer(item, probe.send);
  const primeInput = items.map(send).find((x) => x !== undefined);
  const laneCount = Math.min(probe.concurrency, Math.max(1, measured.length));
  const lanes = substrates.map((sub) => sub.lanes(laneCount));
  const deadlines = new Deadlines(now);
  try {
    return await measure();
  } finally {
    deadlines.close();
  }

  async function measure(): Promise<ArmsResult> {
    // 1. Start, warm and prime every lane of every arm.
    let warmed = 0;
    const unprimed = substrates.map(() => 0);
    const primingError = substrates.map(() => "");
    await Promise.all(Array.from({ length: laneCount }, async (_, j) => {
      const own = warm.filter((_, i) => i % laneCount === j);
      for (const [w, item] of own.entries()) {
        const armOrder = substrates.map((_, a) => a);
        if (w % 2 === 1) armOrder.reverse();
        for (const a of armOrder) {
          if (signal?.aborted) return;
          const lane = lanes[a][j];
          await lane.ready();
          const input = send(item);
          if (input !== undefined) {
            await callOnce(lane, input, probe.timeout_ms, signal, deadlines).catch(() => undefined);
          }
        }
        warmed++;
        options.onProgress?.({
          phase: "warmup",
          done: warmed,
          total: warm.length,
          failures: 0,
          elapsed_ms: now() - t0,
        });
      }
      for (let a = 0; a < arms; a++) {
        const failed = await prepare(
          lanes[a][j],
          primeInput,
          probe.timeout_ms,
          signal,
          deadlines,
          PRIMING_TRIES,
        );
        if (failed !== undefined) {
          unprimed[a]++;
          primingError[a] = failed;
        }
      }
    }));
    if (signal?.aborted) throw new RunCancelled();
    for (let a = 0; a < arms; a++) {
      if (unprimed[a] === laneCount && measured.length > 0) {
        throw new ScenarioError(
          "substrate_unavailable",
          `${
            armName(a)
          } did not answer a priming call (the first item's input) on any of its ${laneCount} lanes in ${PRIMING_TRIES} tries each, so nothing was measured: ${
            primingError[a]
          }`,
        );
      }
    }

    // 2. The harness's own overhead.
    const harness = measuresLatency(scenario) && (options.harnessCalls ?? 200) > 0
      ? await calibrateHarness(now, options.harnessCalls ?? 200, probe.timeout_ms, deadlines)
      : undefined;

    // 3. Measure.
    const outcomes: CallOutcome[][] = substrates.map(() => new Array(measured.length));
    const rate = probe.arrival_rate;
    const tStart = now();
    let next = 0;
    let done = 0;
    let failures = 0;
    const runLane = async (j: number) => {
      // Per arm: set when a call failed, so the lane may need a restart (and priming) before its
      // next call.
      const laneFailed = substrates.map(() => false);
      while (next < measured.length) {
        if (signal?.aborted) return;
        const index = next++;
        const item = measured[index];
        const id = itemId(item, warm.length + index);
        const input = send(item);
        let scheduled: number | undefined;
        if (rate !== undefined) {
          scheduled = (index * 1000) / rate;
          const wait = tStart + scheduled - now();
          if (wait > 0) await sleep(wait);
        }
        for (const a of order(index)) {
          if (signal?.aborted) return;
          const lane = lanes[a][j];
          let outcome: CallOutcome;
          if (input === undefined) {
            outcome = {
              index,
              id,
              ok: false,
              attempts: 0,
              elapsed_ms: 0,
              failure: { kind: "invalid_item", message: `the item has no ${probe.send}` },
            };
          } else {
            let attempts = 0;
            const attemptFailures: string[] = [];
            let excluded = 0;
            let clockStart = scheduled === undefined ? undefined : tStart + scheduled;
            for (;;) {
              // After a failure, restart and prime outside the clock (only the part inside the
              // item's window counts as excluded time). A healthy lane needs nothing.
              if (laneFailed[a]) {
                const p0 = now();
                await prepare(lane, primeInput, probe.timeout_ms, signal, deadlines);
                const p1 = now();
                if (clockStart !== undefined) {
                  excluded += Math.max(0, p1 - Math.max(p0, clockStart));
                }
                laneFailed[a] = false;
              }
              attempts++;
              const start = now();
              clockStart ??= start;
              try {
                const result = await callOnce(lane, input, probe.timeout_ms, signal, deadlines);
                outcome = {
                  index,
                  id,
                  ok: true,
                  result,
                  attempts,
                  elapsed_ms: now() - clockStart - excluded,
                };
                break;
              } catch (e) {
                const failure = e instanceof SubstrateCallError
                  ? { kind: e.kind, message: e.message }
                  : { kind: "error", message: (e as Error)?.message ?? String(e) };
                laneFailed[a] = true;
                if (attempts > probe.retries || signal?.aborted) {
                  outcome = {
                    index,
                    id,
                    ok: false,
                    failure,
                    attempts,
                    elapsed_ms: now() - clockStart - excluded,
                  };
                  break;
                }
                attemptFailures.push(failure.kind);
              }
            }
            if (attemptFailures.length > 0) outcome.attempt_failures = attemptFailures;
          }
          if (scheduled !== undefined) outcome.scheduled_ms = scheduled;
          outcomes[a][index] = outcome;
          if (!outcome.ok) failures++;
        }
        done++;
        options.onProgress?.({
          phase: "measure",
          done,
          total: measured.length,
          failures,
          elapsed_ms: now() - t0,
        });
      }
    };
    await Promise.all(Array.from({ length: laneCount }, (_, j) => runLane(j)));
    if (signal?.aborted) throw new RunCancelled();
    return { outcomes, ...(harness ? { harness } : {}), unprimed };
  }
}
