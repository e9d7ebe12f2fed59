/**
 * The shared operations: one declaration per operation (src/ops/registry.ts lists them), called
 * by every surface (CLI, HTTP API, MCP server, library) through `invoke`.
 *
 * @module
 */
export * from "./operation.ts";
export * from "./context.ts";
export * from "./environment.ts";
export * from "./registry.ts";
export * from "./verify_proof.ts";
export * from "./canonicalize_value.ts";
export * from "./scenarios.ts";
export * from "./proof_index.ts";
export * from "./run_scenario.ts";
export * from "./ingest_proof.ts";
export * from "./store_admin.ts";
export * from "./push_proof.ts";
export * from "./store_location.ts";
export * from "./service.ts";
export * from "./substrates.ts";
export type { RegistrationTrust } from "../attest/registration.ts";
export type { RunProgress } from "../run/execute.ts";
export * from "./verify_attestation.ts";
export * from "./plan.ts";
export * from "./audit_proof.ts";
export * from "./report.ts";
export * from "./preload.ts";
