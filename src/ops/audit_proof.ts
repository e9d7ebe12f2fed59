/**
 * `audit_proof` (`empiric audit`, `POST /audit`, the MCP tool `audit_proof`): recompute a
 * proof's evidence and verdict from its bundle (src/run/audit.ts); and the bundle parts of a
 * stored proof as operations of their own (`GET /proofs/{id}/observations` and `/scenario`, the
 * MCP resources `empiric://proofs/{id}/observations` and `/scenario`).
 *
 * Inputs are texts, never server paths: a network client sends the record, observations and
 * scenario, or names a stored proof whose bundle the server reads from its store.
 *
 * @module
 */
import { z } from "zod";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import type { AuditResult } from "../run/audit.ts";
import { loadModule } from "../lazy/load.ts";
import { bundlePaths } from "../run/bundle_paths.ts";
import type { OpContext } from "./context.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, ProblemSchema, ProofId } from "./schemas.ts";

export { bundlePaths };

/** `audit_proof` input. */
export const AuditProofInput = z.strictObject({
  proof_json: z.string().optional().describe(
    "The whole record's JSON text (as stored); or give proof_id for a stored proof",
  ),
  proof_id: ProofId.optional().describe(
    "A proof in the server's store: its record, observations and scenario are read from there",
  ),
  observations_jsonl: z.string().optional().describe(
    "The observations file's exact text (<record>.observations.jsonl); default for a stored proof: the stored one",
  ),
  scenario_json: z.string().optional().describe(
    "The scenario file's text (<record>.scenario.json); default for a stored proof: the stored one",
  ),
  baseline_jsonl: z.string().optional().describe(
    "Comparative records: the baseline's observations file's exact text (<record>.baseline.observations.jsonl); default for a stored proof: the stored one",
  ),
}).register(COMPONENTS, { id: "AuditProofInput" });

const Check = z.enum(["pass", "fail", "skipped"]);
const Plain = z.unknown();

/** `audit_proof` output. */
export const AuditProofOutput = z.object({
  agrees: z.boolean().describe(
    "True when the record verifies, its hashes seal the observations and scenario, and every recomputed value equals the recorded one",
  ),
  proof_id: z.string().nullable(),
  verified: z.boolean().describe("The signature was checked under the server's key and verifies"),
  checks: z.object({
    record: Check,
    signature: Check,
    observations: Check,
    baseline: Check.describe(
      "Comparative records: the baseline's observations hash to the baseline dataset and pair as recorded; skipped for other records",
    ),
    scenario: Check,
    plan: Check,
    evidence: Check,
    verdict: Check,
    provenance: Check,
  }),
  recomputed: z.object({
    outcome: z.string(),
    observed_value: z.number(),
    measured: z.number().int(),
  }).nullable().describe("What the observations give under the pre-registered plan"),
  differences: z.array(z.object({
    pointer: z.string().describe("RFC 6901 JSON pointer into the record"),
    code: z.enum(["bundle_mismatch", "evidence_mismatch"]),
    message: z.string(),
    recorded: Plain,
    recomputed: Plain,
  })),
  problems: z.array(ProblemSchema),
  notes: z.array(z.string()),
}).register(COMPONENTS, { id: "AuditProofOutput" });

const enc = (s: string) => new TextEncoder().encode(s);

async function storedBundle(ctx: OpContext, proofId: string) {
  const bundle = await (await ctx.store()).getBundle(proofId);
  if (bundle === undefined) {
    throw new EmpiricError("not_found", `no proof record ${proofId} in the store`);
  }
  return bundle;
}

/** Run an audit for a caller (local or network) under the host's key. */
export async function auditForCaller(
  input: z.infer<typeof AuditProofInput>,
  ctx: OpContext,
): Promise<AuditResult> {
  if ((input.proof_json === undefined) === (input.proof_id === undefined)) {
    throw new UsageError("give exactly one of proof_json (the record's text) and proof_id");
  }
  let record: Uint8Array | string;
  let observations: Uint8Array | undefined = input.observations_jsonl === undefined
    ? undefined
    : enc(input.observations_jsonl);
  let scenario: Uint8Array | undefined = input.scenario_json === undefined
    ? undefined
    : enc(input.scenario_json);
  let baseline: Uint8Array | undefined = input.baseline_jsonl === undefined
    ? undefined
    : enc(input.baseline_jsonl);
  if (input.proof_id !== undefined) {
    const b = await storedBundle(ctx, input.proof_id);
    record = b.record;
    observations ??= b.parts.observations;
    scenario ??= b.parts.scenario;
    baseline ??= b.parts.baseline;
    const missing = [observations ? "" : "observations", scenario ? "" : "scenario"].filter(
      Boolean,
    );
    if (missing.length > 0) {
      throw new EmpiricError(
        "not_found",
        `the store keeps no ${
          missing.join(" or ")
        } for ${input.proof_id} (recorded before bundles were kept); give them as text`,
      );
    }
  } else {
    record = input.proof_json!;
    if (observations === undefined || scenario === undefined) {
      throw new UsageError(
        "an audit needs the record's observations (observations_jsonl) and scenario (scenario_json)",
      );
    }
  }
  // Loaded on first use: the audit recomputes with the statistics, which every surface
  // would otherwise load at start-up with the registry.
  const { auditProof } = await loadModule<typeof import("../run/audit.ts")>(
    "../run/audit.ts",
    import.meta.url,
  );
  return await auditProof({
    record,
    observations: observations!,
    scenario: scenario!,
    ...(baseline !== undefined ? { baseline } : {}),
    key: ctx.key?.bytes,
  });
}

/** The `audit_proof` operation. */
export const auditProofOp = defineOperation({
  name: "audit_proof",
  title: "Audit a proof from its observations",
  description:
    "Re-check a proof record from its bundle: the record must verify (proof_id, verdict " +
    "consistency, and the signature under the server's key), its observations dataset's " +
    "content_hash must be the SHA-256 of the observations text and its config_hash the " +
    "scenario's; then every evidence entry, the verdict and the pillar entities of the " +
    "provenance are recomputed from the observations under the pre-registered plan. Returns " +
    "agrees, each check, the recomputed outcome, and every difference with its JSON pointer " +
    "in the record. Give proof_json with observations_jsonl and scenario_json (the files " +
    "<record>.observations.jsonl and <record>.scenario.json), or proof_id for a proof in the " +
    "server's store (its stored bundle). A comparative record (analysis.comparison) also " +
    "needs its baseline's observations (baseline_jsonl, the file " +
    "<record>.baseline.observations.jsonl), which must hash to its baseline dataset; both " +
    "sides are recomputed, paired as the record says. Over MCP a proof that does not agree comes back with " +
    "isError: true and the same object.",
  access: "read",
  exposure: [],
  input: AuditProofInput,
  output: AuditProofOutput,
  http: {
    method: "POST",
    path: "/audit",
    tags: ["proofs"],
    response: "The audit (agrees true or false, with every difference)",
    errors: [400, 404, 422],
    problem: (out) =>
      out.checks.record === "fail" && out.recomputed === null && out.proof_id === null
        ? (out.problems[0]?.code ?? "schema_invalid") as ErrorCode
        : undefined,
  },
  mcp: {
    tool: {
      errorText: (out) => {
        if (out.agrees) return undefined;
        const first = out.differences[0];
        const what = first
          ? `${first.pointer}: ${first.message}`
          : out.problems[0]?.message ?? "the audit failed";
        return `does not agree: ${auditReason(out as AuditResult)}: ${what}`;
      },
    },
  },
  run: (input, ctx) => auditForCaller(input, ctx),
});

/** `get_proof_part` input. */
const PartInput = z.strictObject({
  proof_id: ProofId.describe("The record's identity.proof_id"),
});

async function partOf(
  ctx: OpContext,
  proofId: string,
  part: "observations" | "scenario",
): Promise<string> {
  const b = await storedBundle(ctx, proofId);
  const bytes = b.parts[part];
  if (bytes === undefined) {
    throw new EmpiricError(
      "not_found",
      `the store keeps no ${part} for ${proofId} (recorded before bundles were kept)`,
    );
  }
  return new TextDecoder().decode(bytes);
}

/** The observations of a stored proof, byte for byte. */
export const getProofObservationsOp = defineOperation({
  name: "get_proof_observations",
  title: "Get a stored proof's observations",
  description:
    "The observations file kept beside a stored record (JSON Lines, one canonical object per " +
    "measured item in corpus order), exactly as stored: its SHA-256 is the content_hash of the " +
    "record's observations dataset. Pass it with the record to audit_proof to recompute the " +
    "evidence.",
  access: "read",
  exposure: [],
  input: PartInput,
  output: z.object({ proof_id: ProofId, observations_jsonl: z.string() }).register(COMPONENTS, {
    id: "ProofObservations",
  }),
  http: {
    method: "GET",
    path: "/proofs/{proof_id}/observations",
    tags: ["proofs"],
    response: "The observations file (JSON Lines)",
    errors: [400, 404],
    rawBody: (out) => out.observations_jsonl,
    rawContentType: () => "application/jsonl",
    rawContentTypes: ["application/jsonl"],
  },
  mcp: {
    resource: {
      name: "proof-observations",
      title: "Proof observations",
      description:
        "The observations kept beside a stored proof record (JSON Lines), exactly as stored",
      template: "empiric://proofs/{proof_id}/observations",
      mimeType: "application/jsonl",
      input: (vars) => ({ proof_id: vars.proof_id }),
      text: (out) => out.observations_jsonl,
    },
  },
  run: async (input, ctx) => ({
    proof_id: input.proof_id,
    observations_jsonl: await partOf(ctx, input.proof_id, "observations"),
  }),
});

/** The normalized scenario of a stored proof, byte for byte. */
export const getProofScenarioOp = defineOperation({
  name: "get_proof_scenario",
  title: "Get a stored proof's scenario",
  description:
    "The normalized scenario kept beside a stored record (canonical JSON), exactly as stored: " +
    "its SHA-256 is the record's pre_registration.config_hash.",
  access: "read",
  exposure: [],
  input: PartInput,
  output: z.object({ proof_id: ProofId, scenario_json: z.string() }).register(COMPONENTS, {
    id: "ProofScenario",
  }),
  http: {
    method: "GET",
    path: "/proofs/{proof_id}/scenario",
    tags: ["proofs"],
    response: "The normalized scenario (canonical JSON)",
    errors: [400, 404],
    rawBody: (out) => out.scenario_json,
    rawBodySchema: z.record(z.string(), z.unknown()).register(COMPONENTS, {
      id: "ScenarioFile",
      description: "The normalized scenario in canonical form (docs/scenarios.md)",
    }),
  },
  mcp: {
    resource: {
      name: "proof-scenario",
      title: "Proof scenario",
      description: "The normalized scenario kept beside a stored proof record, exactly as stored",
      template: "empiric://proofs/{proof_id}/scenario",
      input: (vars) => ({ proof_id: vars.proof_id }),
      text: (out) => out.scenario_json,
    },
  },
  run: async (input, ctx) => ({
    proof_id: input.proof_id,
    scenario_json: await partOf(ctx, input.proof_id, "scenario"),
  }),
});

/** The codes an audit reports, for surfaces that map a failed audit to one error. */
export function auditReason(r: AuditResult): ErrorCode | null {
  if (r.agrees) return null;
  return r.problems[0]?.code ?? r.differences[0]?.code ?? "evidence_mismatch";
}
