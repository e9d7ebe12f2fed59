/**
 * `verifyProofImpl`, the implementation of `verify_proof`, without the operation's zod schemas:
 * `empiric schema validate` calls it without loading zod (`bench/startup.ts`).
 *
 * @module
 */
import { toPlainJson } from "../json/plain.ts";
import type { Problem } from "../errors/errors.ts";
import type { VerifyResult } from "../record/verify.ts";
import { traceVerify } from "../telemetry/instrument.ts";
import { loadModule } from "../lazy/load.ts";

let verifier: Promise<typeof import("../record/verify.ts")> | undefined;

/** The result object of `verify_proof` (JSON-ready: no bigints). */
export interface VerifyProofResult {
  verified: boolean;
  valid: boolean;
  proof_id: string | null;
  verdict: { outcome: string; [k: string]: unknown } | null;
  reason: string | null;
  checks: VerifyResult["checks"];
  notes: string[];
  demo_key: boolean;
  problems: Problem[];
}

/**
 * The record verifier, loaded on first use so that declaring the operation (every surface's
 * start-up) costs nothing: the record schema's validator is heavy.
 */
export function loadVerifier(): Promise<typeof import("../record/verify.ts")> {
  verifier ??= loadModule("../record/verify.ts", import.meta.url);
  return verifier;
}

/**
 * Verify one record given as JSON text (or UTF-8 bytes) under a key.
 *
 * @example
 * ```ts
 * import { verifyProofImpl } from "./verify_proof_impl.ts";
 * import assert from "node:assert/strict";
 * const r = await verifyProofImpl("{}", { key: new TextEncoder().encode("k".repeat(32)) });
 * assert.equal(r.verified, false);
 * assert.equal(r.reason, "schema_invalid");
 * ```
 */
export async function verifyProofImpl(
  proofJson: string | Uint8Array,
  options: { key?: Uint8Array<ArrayBuffer> } = {},
): Promise<VerifyProofResult> {
  const { verifyRecord } = await loadVerifier();
  return await traceVerify(options.key !== undefined, async () => {
    const r = await verifyRecord(proofJson, options);
    return {
      ...r,
      verdict: r.verdict === null ? null : toPlainJson(r.verdict) as VerifyProofResult["verdict"],
    };
  });
}
