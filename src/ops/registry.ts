/**
 * The operation registry: every operation empiric offers, declared once each. The HTTP API
 * (routes and OpenAPI), the MCP server (tools and resources) and the CLI's `--json` output are
 * generated from this list; adding an operation is one entry here.
 *
 * @module
 */
import { canonicalizeValueOp } from "./canonicalize_value.ts";
import type { Operation } from "./operation.ts";
import { getProofOp, readProofIndexOp, reindexStoreOp } from "./proof_index.ts";
import { runScenarioOp } from "./run_scenario.ts";
import { getScenarioClaimOp, listScenariosOp } from "./scenarios.ts";
import { healthOp, versionOp } from "./service.ts";
import { verifyProof } from "./verify_proof.ts";
import { verifyAttestationOperation } from "./verify_attestation.ts";
import { planOp } from "./plan.ts";
import { auditProofOp, getProofObservationsOp, getProofScenarioOp } from "./audit_proof.ts";

/** Every operation, in documentation order. */
export const OPERATIONS: readonly Operation[] = [
  verifyProof,
  verifyAttestationOperation,
  auditProofOp,
  listScenariosOp,
  getScenarioClaimOp,
  planOp,
  canonicalizeValueOp,
  readProofIndexOp,
  getProofOp,
  getProofObservationsOp,
  getProofScenarioOp,
  runScenarioOp,
  reindexStoreOp,
  healthOp,
  versionOp,
] as unknown as readonly Operation[];

/** The operation of a name (`not_found` is the caller's to raise). */
export function operation(name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.name === name);
}

export {
  auditProofOp,
  canonicalizeValueOp,
  getProofObservationsOp,
  getProofOp,
  getProofScenarioOp,
  getScenarioClaimOp,
  healthOp,
  listScenariosOp,
  planOp,
  readProofIndexOp,
  reindexStoreOp,
  runScenarioOp,
  verifyAttestationOperation,
  verifyProof,
  versionOp,
};
