/**
 * `verify_proof`: the shared implementation behind `POST /verify`, the MCP tool
 * `verify_proof`, `verifyProofImpl` and `empiric schema validate`.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation } from "./operation.ts";
import { verifyProofImpl } from "./verify_proof_impl.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { COMPONENTS, ProblemSchema } from "./schemas.ts";

export { loadVerifier, verifyProofImpl, type VerifyProofResult } from "./verify_proof_impl.ts";

const Check = z.enum(["pass", "fail", "skipped"]);

/** `verify_proof` input. */
export const VerifyProofInput = z.strictObject({
  proof_json: z.string().describe(
    "The whole record's JSON text (as stored; need not be canonical)",
  ),
}).register(COMPONENTS, { id: "VerifyProofInput" });

/** `verify_proof` output (also `POST /verify` and `empiric schema validate --json`). */
export const VerifyProofOutput = z.object({
  verified: z.boolean().describe(
    "True when structure, proof_id and the HMAC signature all check out under the server's key",
  ),
  valid: z.boolean().describe("True when every check that ran passed"),
  proof_id: z.string().nullable().describe("The record's claimed identity.proof_id"),
  verdict: z.looseObject({ outcome: z.string() }).nullable().describe(
    "The record's verdict section",
  ),
  reason: z.string().nullable().describe("Code of the first failure, or null"),
  checks: z.object({
    parse: Check,
    schema: Check,
    proof_id: Check,
    signature: Check,
    verdict: Check.describe(
      "The outcome follows from the deciding evidence, the threshold and the recorded decision rule (checked with or without a key; skipped for records without pillar entities)",
    ),
  }),
  notes: z.array(z.string()).describe(
    "Why a check was skipped although it could have run (a record made before pillar entities cannot have its verdict checked)",
  ),
  demo_key: z.boolean().describe("True when the signature was checked with the public demo key"),
  problems: z.array(ProblemSchema),
}).register(COMPONENTS, { id: "VerifyProofOutput" });

/** The `verify_proof` operation. */
export const verifyProof = defineOperation({
  name: "verify_proof",
  title: "Verify a proof record",
  description:
    "Verify an Empirical Proof Record given as its whole JSON text in proof_json (as stored; " +
    "need not be canonical). Checks, in order: the JSON parses (duplicate keys rejected), the " +
    "record's JSON Schema, that identity.proof_id matches the SHA-256 of the body, the " +
    "HMAC-SHA256 signature under the server's key, and (with or without a key) that the " +
    "verdict follows from the deciding evidence, the threshold and the recorded decision rule " +
    "(verdict_inconsistent otherwise). Returns verified (every check passed), " +
    "valid, the record's proof_id and verdict, each check as pass/fail/skipped, reason (the " +
    "first failure's code), demo_key (checked with the public demo key) and every problem with " +
    "its stable code and location. Over MCP a record that does not verify comes back with " +
    "isError: true and the same object; over HTTP a record that is not JSON gets 400 and one " +
    "that fails the schema 422, as problem+json carrying the same members. To verify a stored " +
    "record, read the resource empiric://proofs/<proof_id> (or GET /proofs/{proof_id}) and " +
    "pass its text.",
  access: "read",
  exposure: [],
  input: VerifyProofInput,
  output: VerifyProofOutput,
  http: {
    method: "POST",
    path: "/verify",
    tags: ["proofs"],
    response: "The verification result (verified true or false)",
    errors: [400, 422],
    problem: (out) =>
      out.checks.parse === "fail" || out.checks.schema === "fail"
        ? (out.reason ?? "schema_invalid") as ErrorCode
        : undefined,
  },
  mcp: {
    tool: {
      errorText: (out) => {
        if (out.verified) return undefined;
        const first = out.problems[0];
        const more = out.problems.length > 1
          ? ` (${out.problems.length} problems; see problems)`
          : "";
        return `not verified: ${out.reason ?? "unknown"}: ${
          first?.message ?? "the record does not verify"
        }${more}`;
      },
    },
  },
  run: async (input, ctx) => await verifyProofImpl(input.proof_json, { key: ctx.key?.bytes }),
});
