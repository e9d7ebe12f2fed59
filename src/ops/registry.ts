/**
 * The operation registry: every operation empiric offers, declared once each. The HTTP API
 * (routes and OpenAPI), the MCP server (tools and resources) and the CLI's `--json` output are
 * generated from this list; adding an operation is one entry here.
 *
 * @module
 */
import { canonicalizeValueOp } from "./canonicalize_value.ts";
import { ingestProofOp } from "./ingest_proof.ts";
import type { Operation } from "./operation.ts";
import { getProofOp, readProofIndexOp, reindexStoreOp } from "./proof_index.ts";
import { pushProofsOp } from "./push_proof.ts";
import { runScenarioOp } from "./run_scenario.ts";
import { getScenarioClaimOp, listScenariosOp } from "./scenarios.ts";
import { healthOp, versionOp } from "./service.ts";
import { copyStoreOp, migrateStoreOp } from "./store_admin.ts";
import { verifyProof } from "./verify_proof.ts";
import { verifyAttestationOperation } from "./verify_attestation.ts";
import { planOp } from "./plan.ts";
import { auditProofOp, getProofObservationsOp, getProofScenarioOp } from "./audit_proof.ts";
import { browseProofsOp, reportProofOp, reportRecordOp } from "./report.ts";

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
  reportProofOp,
  reportRecordOp,
  browseProofsOp,
  ingestProofOp,
  runScenarioOp,
  reindexStoreOp,
  migrateStoreOp,
  copyStoreOp,
  pushProofsOp,
  healthOp,
  versionOp,
] as unknown as readonly Operation[];

/** The operation of a name (`not_found` is the caller's to raise). */
export function operation(name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.name === name);
}

export {
  auditProofOp,
  browseProofsOp,
  canonicalizeValueOp,
  copyStoreOp,
  getProofObservationsOp,
  getProofOp,
  getProofScenarioOp,
  getScenarioClaimOp,
  healthOp,
  ingestProofOp,
  listScenariosOp,
  migrateStoreOp,
  planOp,
  pushProofsOp,
  readProofIndexOp,
  reindexStoreOp,
  reportProofOp,
  reportRecordOp,
  runScenarioOp,
  verifyAttestationOperation,
  verifyProof,
  versionOp,
};
