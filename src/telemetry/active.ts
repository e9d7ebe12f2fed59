/**
 * Which OpenTelemetry pipeline {@link ./otel.ts} `setupOtel` installed, if any, kept apart from
 * the SDK's set-up so that a surface can ask "is telemetry on?" without loading the SDK, the API
 * or the propagators (the MCP server asks before every request; `bench/startup.ts`).
 *
 * @module
 */
import type { Telemetry } from "./otel.ts";

let active: Telemetry | undefined;

/**
 * The pipeline installed by `setupOtel`, if any.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { activeTelemetry } from "./active.ts";
 * assert.equal(activeTelemetry(), undefined);
 * ```
 */
export function activeTelemetry(): Telemetry | undefined {
  return active;
}

/** Record the installed pipeline (`setupOtel`), or none (its `shutdown`). */
export function setActiveTelemetry(telemetry: Telemetry | undefined): void {
  active = telemetry;
}
