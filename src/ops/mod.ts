/**
 * The shared operations: one implementation per operation, called by every surface
 * (CLI, HTTP API, MCP tools, library).
 *
 * @module
 */
export * from "./verify_proof.ts";
export * from "./canonicalize_value.ts";
