/**
 * The lifecycle of one run, posted to a lineage collector as it goes: START, RUNNING
 * heartbeats, then COMPLETE or FAIL.
 *
 * @module
 */
import { asEmpiricError } from "../../errors/errors.ts";
import type { ProofInput } from "../common.ts";
import {
  type LineageDataset,
  newRunId,
  type OpenLineageEvent,
  type ScenarioClaim,
  toOpenLineageCompleteEvent,
  toOpenLineageFailEvent,
  toOpenLineageRunningEvent,
  toOpenLineageStartEvent,
} from "./builders.ts";
import { type LineagePostOptions, postOpenLineageEvent } from "./transport.ts";

/** What a run knows before measurement begins (what `runScenarioOp` passes to `onStart`). */
export interface LineageRunStart {
  scenario: string;
  claim: ScenarioClaim;
  datasets: readonly LineageDataset[];
  analysis_plan: string;
}

/** Progress as the run pipeline reports it. */
export interface RunProgressLike {
  phase: string;
  done: number;
  total: number;
  failures: number;
}

/** Options of {@link OpenLineageRunEmitter}. */
export interface EmitterOptions extends LineagePostOptions {
  namespace?: string;
  /** Minimum time between RUNNING heartbeats within a phase (default 5000 ms). */
  heartbeatMs?: number;
  /** Called when a POST fails; the run goes on (default: ignore). */
  onError?: (error: Error) => void;
  /** Clock for heartbeats (default `performance.now`). */
  monotonic?: () => number;
}

/**
 * Posts one run's lifecycle to a collector as the run goes: {@link start} (START), then
 * {@link progress} (RUNNING heartbeats: one when a phase begins, then at most one per
 * `heartbeatMs`), then {@link complete} (COMPLETE with the proof) or {@link fail} (FAIL with
 * `empiric_error`). Events are posted in order, one at a time; a failed POST is reported to
 * `onError` and does not stop the run.
 */
export class OpenLineageRunEmitter {
  /** The run id, minted once with {@link newRunId}. */
  readonly runId: string = newRunId();
  #url: string;
  #options: EmitterOptions;
  #queue: Promise<void> = Promise.resolve();
  #scenario: string | undefined;
  #phase: string | undefined;
  #lastBeat = -Infinity;
  #ended = false;

  constructor(url: string, options: EmitterOptions = {}) {
    this.#url = url;
    this.#options = options;
  }

  /** The scenario name once START was sent (undefined before). */
  get scenario(): string | undefined {
    return this.#scenario;
  }

  /** True once START was queued. */
  get started(): boolean {
    return this.#scenario !== undefined;
  }

  #post(event: OpenLineageEvent): Promise<void> {
    this.#queue = this.#queue.then(async () => {
      try {
        await postOpenLineageEvent(this.#url, event, this.#options);
      } catch (e) {
        this.#options.onError?.(asEmpiricError(e));
      }
    });
    return this.#queue;
  }

  /** Send START (before measurement begins). */
  start(info: LineageRunStart): Promise<void> {
    this.#scenario = info.scenario;
    return this.#post(
      toOpenLineageStartEvent({
        runId: this.runId,
        scenario: info.scenario,
        claim: info.claim,
        datasets: info.datasets,
        analysisPlan: info.analysis_plan,
        namespace: this.#options.namespace,
      }),
    );
  }

  /** Report progress; sends a RUNNING heartbeat when one is due. Never blocks the run. */
  progress(p: RunProgressLike): void {
    if (!this.#scenario || this.#ended || p.phase === "done") return;
    const now = (this.#options.monotonic ?? (() => performance.now()))();
    const newPhase = p.phase !== this.#phase;
    if (!newPhase && now - this.#lastBeat < (this.#options.heartbeatMs ?? 5000)) return;
    this.#phase = p.phase;
    this.#lastBeat = now;
    const total = Math.max(0, p.total);
    void this.#post(
      toOpenLineageRunningEvent({
        runId: this.runId,
        scenario: this.#scenario,
        progress: {
          percent_complete: total > 0 ? p.done / total : 0,
          cycles_completed: p.done,
          cycles_total: total,
          message: `${p.phase}: ${p.done} of ${total}${
            p.failures > 0 ? ` (${p.failures} failed)` : ""
          }`,
          phase: p.phase,
          failures: p.failures,
        },
        namespace: this.#options.namespace,
      }),
    );
  }

  /** Send COMPLETE with the signed proof and wait until every event was posted. */
  async complete(proof: ProofInput): Promise<void> {
    if (this.#ended) return await this.#queue;
    this.#ended = true;
    const ev = await toOpenLineageCompleteEvent({
      runId: this.runId,
      proof,
      namespace: this.#options.namespace,
      jobName: this.#scenario,
    });
    await this.#post(ev);
  }

  /** Send FAIL with `empiric_error` (the error's stable code and message) and wait. */
  async fail(error: unknown): Promise<void> {
    if (this.#ended || !this.#scenario) return await this.#queue;
    this.#ended = true;
    const err = asEmpiricError(error);
    await this.#post(
      toOpenLineageFailEvent({
        runId: this.runId,
        scenario: this.#scenario,
        errorMessage: err.message,
        errorType: err.code,
        namespace: this.#options.namespace,
      }),
    );
  }

  /** Wait until every queued event was posted. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
