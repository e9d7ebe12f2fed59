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

/** A substrate ready to take calls. */
export interface Substrate {
  /** The `--substrate` argument as given (`builtin:echo`, `cmd:python3 s.py`, `http://...`). */
  readonly spec: string;
  /** Default name recorded in `data.substrate_name`. */
  readonly defaultName: string;
  /** Send one input; resolve with the result, or reject with a {@link SubstrateCallError}. */
  call(input: JsonValue, signal: AbortSignal): Promise<JsonValue>;
  /** Release processes and connections. */
  close(): Promise<void>;
}
