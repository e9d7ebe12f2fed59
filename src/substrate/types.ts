/**
 * The system under test, as empiric sees it: something that takes one JSON input and gives back
 * one JSON result.
 *
 * @module
 */
import type { JsonValue } from "../json/value.ts";

/** Why one call to a substrate failed. */
export type CallFailureKind = "timeout" | "crash" | "invalid_response" | "http_error" | "error";

/** A failed call; counted against the scenario's failure budget, never fatal to the run. */
export class SubstrateCallError extends Error {
  constructor(readonly kind: CallFailureKind, message: string) {
    super(message);
    this.name = "SubstrateCallError";
  }
}

/**
 * One lane: a sequence of calls, one at a time (a `cmd:` lane owns one process). With probe
 * concurrency N the executor drives N lanes side by side.
 */
export interface Lane {
  /**
   * Make the lane ready outside any item's clock: start its process, or restart it after a
   * failure killed it. Resolves true when the lane has not answered a call since it (re)started,
   * so the caller primes it with one call whose answer is discarded.
   */
  ready(): Promise<boolean>;
  /** Send one input; resolve with the result, or reject with a {@link SubstrateCallError}. */
  call(input: JsonValue, signal: AbortSignal): Promise<JsonValue>;
  /**
   * Stop the call in flight at once (a `cmd:` lane kills its process), for lanes that can do it
   * more cheaply than by listening to every call's signal. The executor calls it on a timeout or a
   * cancellation, and aborts the signal too.
   */
  abort?(): void;
}

/** A substrate ready to take calls. */
export interface Substrate {
  /** The `--substrate` argument as given (`builtin:echo`, `cmd:python3 s.py`, `http://...`). */
  readonly spec: string;
  /** Default name recorded in `data.substrate_name`. */
  readonly defaultName: string;
  /** n lanes for n calls in flight. Call once per run. */
  lanes(n: number): Lane[];
  /** Release processes and connections. */
  close(): Promise<void>;
}

/**
 * Lanes for a substrate without per-lane state (a built-in, an HTTP service): each lane reports
 * itself fresh until its first successful call.
 */
export function statelessLanes(
  n: number,
  call: (input: JsonValue, signal: AbortSignal) => Promise<JsonValue>,
): Lane[] {
  return Array.from({ length: n }, () => {
    let answered = false;
    return {
      ready: () => Promise.resolve(!answered),
      call: async (input: JsonValue, signal: AbortSignal) => {
        const r = await call(input, signal);
        answered = true;
        return r;
      },
    };
  });
}
