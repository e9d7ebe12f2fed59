/**
 * What the operations load on first use (the record schema's validator, the audit and its
 * statistics), loaded now. The CLI and `mcp serve` over stdio leave them for their first use,
 * so that start-up does not pay for them (`bench/startup.ts`); a long-running server with
 * telemetry calls this before it listens. The first request then waits for nothing, and no
 * module (in particular the first CommonJS one, which sets up Deno's Node.js compatibility
 * layer) loads for the first time inside a request's trace context: when it did, later requests
 * continued the first one's trace (tests/telemetry/server_spans_test.ts).
 *
 * @module
 */
import { loadModule } from "../lazy/load.ts";
import { loadVerifier } from "./verify_proof_impl.ts";

/**
 * Load the modules the operations would load on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { preloadOperations } from "./preload.ts";
 * assert.equal(await preloadOperations(), undefined);
 * ```
 */
export async function preloadOperations(): Promise<void> {
  await Promise.all([
    loadVerifier(),
    loadModule<typeof import("../run/audit.ts")>("../run/audit.ts", import.meta.url),
  ]);
}
