/**
 * Input and output schemas of the six shared operations (plus health and version), used by the
 * HTTP API (validation and OpenAPI) and the MCP tools (input/output schemas), so both surfaces
 * accept and return exactly the same shapes.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** One problem found, with its stable code and location. */
export const ProblemSchema = z.object({
  code: z.string().describe("Stable error code (docs/cli.md, Error codes)"),
  message: z.string(),
  pointer: z.string().optional().describe("RFC 6901 JSON pointer of the offending value"),
  position: z.object({ offset: z.number().int(), line: z.number().int(), column: z.number().int() })
    .optional()
    .describe("Position in the source text"),
}).openapi("Problem");

const Check = z.enum(["pass", "fail", "skipped"]);

/** `verify_proof` / `POST /verify` input. */
export const VerifyProofInput = z.object({
  proof_json: z.string().min(1).describe(
    "The whole record's JSON text (as stored; need not be canonical)",
  ),
}).openapi("VerifyProofInput");

/** `verify_proof` / `POST /verify` output. */
export const VerifyProofOutput = z.object({
  verified: z.boolean().describe(
    "True when structure, proof_id and the HMAC signature all check out under the server's key",
  ),
  valid: z.boolean().describe("True when every check that ran passed"),
  proof_id: z.string().nullable().describe("The record's claimed identity.proof_id"),
  verdict: z.object({ outcome: z.string() }).passthrough().nullable().describe(
    "The record's verdict section",
  ),
  reason: z.string().nullable().describe("Code of the first failure, or null"),
  checks: z.object({ parse: Check, schema: Check, proof_id: Check, signature: Check }),
  demo_key: z.boolean().describe("True when the signature was checked with the public demo key"),
  problems: z.array(ProblemSchema),
}).openapi("VerifyProofOutput");

/** `canonicalize_value` input. */
export const CanonicalizeInput = z.object({
  value_json: z.string().describe(
    "JSON text of any value. Numbers written with '.', 'e' or 'E' are floats, others ints (rule R11): send text, not a parsed value.",
  ),
}).openapi("CanonicalizeInput");

/** `canonicalize_value` output. */
export const CanonicalizeOutput = z.object({
  canonical: z.string().describe("Canonical JSON text (ASCII, rules R1-R10)"),
  bytes: z.number().int().describe("Length of the canonical form in bytes"),
  sha256: hex64.describe("SHA-256 of the canonical bytes, lowercase hex"),
}).openapi("CanonicalizeOutput");

const Threshold = z.object({
  metric: z.string(),
  comparator: z.string(),
  value: z.number(),
  units: z.string(),
});

/** One scenario in `list_scenarios`. */
export const ScenarioSummarySchema = z.object({
  name: z.string(),
  title: z.string(),
  statement: z.string(),
  threshold: Threshold,
  default_substrate: z.string().nullable(),
  origin: z.enum(["builtin", "file"]),
  path: z.string(),
}).openapi("ScenarioSummary");

/** `list_scenarios` output. */
export const ListScenariosOutput = z.object({
  scenarios: z.array(ScenarioSummarySchema),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).describe(
    "Scenario files that failed to load",
  ),
}).openapi("ListScenariosOutput");

/** `get_scenario_claim` input. */
export const GetScenarioClaimInput = z.object({
  name: z.string().min(1).describe(
    "Scenario name (built-in or in the server's scenario directory)",
  ),
}).openapi("GetScenarioClaimInput");

/** `get_scenario_claim` output. */
export const ScenarioClaimOutput = z.object({
  name: z.string(),
  title: z.string(),
  claim: z.object({
    statement: z.string(),
    operationalization: z.string(),
    threshold: Threshold,
    h0: z.string(),
    h1: z.string(),
  }),
  datasets: z.array(z.record(z.string(), z.unknown())),
  analysis: z.record(z.string(), z.unknown()),
  probe: z.record(z.string(), z.unknown()),
  metrics: z.record(z.string(), z.unknown()),
  default_substrate: z.string().nullable(),
  config_hash: hex64,
  origin: z.enum(["builtin", "file"]),
  path: z.string(),
}).openapi("ScenarioClaim");

/** `read_proof_index` input. */
export const ReadProofIndexInput = z.object({
  scenario: z.string().optional().describe("Only proofs of this scenario"),
  substrate: z.string().optional().describe(
    "Only proofs on this substrate (as given to --substrate)",
  ),
  outcome: z.enum(["VALIDATED", "REFUTED", "INCONCLUSIVE"]).optional(),
  limit: z.number().int().min(1).max(1000).optional().describe("Page size, default 50"),
  offset: z.number().int().min(0).optional().describe("Entries to skip, default 0"),
}).openapi("ReadProofIndexInput");

/** One entry of the proof index. */
export const IndexEntrySchema = z.object({
  proof_id: hex64,
  scenario: z.string(),
  substrate: z.string(),
  outcome: z.string(),
  metric: z.string(),
  observed_value: z.number().nullable(),
  created_at: z.string(),
  path: z.string(),
}).openapi("IndexEntry");

/** `read_proof_index` output. */
export const ProofIndexOutput = z.object({
  entries: z.array(IndexEntrySchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  store: z.string(),
}).openapi("ProofIndexPage");

/** `run_scenario` input. */
export const RunScenarioInput = z.object({
  scenario: z.string().min(1).describe(
    "Scenario name (built-in or in the server's scenario directory)",
  ),
  substrate: z.string().optional().describe(
    "builtin:<name>, cmd:<command line> or an http(s):// URL; default: the scenario's default_substrate",
  ),
  substrate_name: z.string().optional(),
  substrate_commit: z.string().optional(),
  after: z.array(hex64).optional().describe("Earlier proof ids this run follows"),
}).openapi("RunScenarioInput");

/** `run_scenario` output. */
export const RunScenarioOutput = z.object({
  proof_id: hex64,
  scenario: z.string(),
  substrate: z.string(),
  outcome: z.enum(["VALIDATED", "REFUTED", "INCONCLUSIVE"]),
  observed_value: z.number(),
  reasoning: z.string(),
  path: z.string().nullable().describe("Where the record was stored"),
  measured: z.number().int(),
  failures: z.array(z.object({ id: z.string(), kind: z.string(), message: z.string() })),
}).openapi("RunScenarioOutput");

/** `GET /health` output. */
export const HealthOutput = z.object({
  status: z.literal("ok"),
  uptime_s: z.number(),
}).openapi("Health");

/** `GET /version` output. */
export const VersionOutput = z.object({
  empiric_version: z.string(),
  empiric_git_commit: z.string(),
  schema_version: z.string(),
  deno: z.string(),
}).openapi("Version");
