/**
 * The shared operations: one implementation per operation, called by every surface
 * (CLI, HTTP API, MCP tools, library).
 *
 * @module
 */
export * from "./verify_proof.ts";
export * from "./canonicalize_value.ts";
export * from "./environment.ts";
export * from "./scenarios.ts";
export * from "./proof_index.ts";
export * from "./run_scenario.ts";
export * from "./plan.ts";
