/**
 * `verify_proof`: the shared implementation behind `POST /verify`, the MCP tool
 * `verify_proof`, `verifyProofImpl` and `empiric schema validate`.
 *
 * @module
 */
import { toPlainJson } from "../json/plain.ts";
import type { Problem } from "../errors/errors.ts";
import { verifyRecord, type VerifyResult } from "../record/verify.ts";
import { traceVerify } from "../telemetry/instrument.ts";

/** The result object of `verify_proof` (JSON-ready: no bigints). */
export interface VerifyProofResult {
  verified: boolean;
  valid: boolean;
  proof_id: string | null;
  verdict: { outcome: string; [k: string]: unknown } | null;
  reason: string | null;
  checks: VerifyResult["checks"];
  demo_key: boolean;
  problems: Problem[];
}

/**
 * Verify one record given as JSON text (or UTF-8 bytes) under a key.
 *
 * @example
 * ```ts
 * import { verifyProofImpl } from "./verify_proof.ts";
 * const r = await verifyProofImpl("{}", { key: new TextEncoder().encode("k".repeat(32)) });
 * console.assert(r.verified === false && r.reason === "schema_invalid");
 * ```
 */
export async function verifyProofImpl(
  proofJson: string | Uint8Array,
  options: { key?: Uint8Array<ArrayBuffer> } = {},
): Promise<VerifyProofResult> {
  return await traceVerify(options.key !== undefined, async () => {
    const r = await verifyRecord(proofJson, options);
    return {
      ...r,
      verdict: r.verdict === null ? null : toPlainJson(r.verdict) as VerifyProofResult["verdict"],
    };
  });
}
