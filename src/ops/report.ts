/**
 * Reports of proof records (src/report/): `report_proof` (a stored record: `GET
 * /proofs/{proof_id}/report`, the MCP resource `empiric://proofs/{proof_id}/report`),
 * `report_record` (local callers: a record file, or a record a run just made) and `browse_proofs`
 * (`GET /ui`, the store's index as a page). Each gathers the report's inputs (observations and
 * scenario beside the record, earlier records of the same scenario and substrate from the store,
 * the verification under the host's key) and hands them to the pure builders.
 *
 * @module
 */
import { z } from "zod";
import { loadModule } from "../lazy/load.ts";
import { ObservationSchema } from "../run/observation.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, ProofId } from "./schemas.ts";

/** Report formats. */
export const REPORT_FORMATS = ["html", "md", "junit"] as const;

/** A report format. */
export type ReportFormat = typeof REPORT_FORMATS[number];

/** Media type of each format. */
export const REPORT_MEDIA_TYPES: Record<ReportFormat, string> = {
  html: "text/html; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  junit: "application/xml; charset=utf-8",
};

/**
 * Which verdicts a JUnit report marks failed (src/report/junit.ts, `JUNIT_FAIL_ON`; a test keeps
 * the two lists equal).
 */
export const JUNIT_FAIL_ON_CHOICES = ["not-validated", "refuted", "inconclusive", "none"] as const;

/** Earlier records a report reads from the store for its lineage (the newest ones). */
export const LINEAGE_LIMIT = 100;

/** Largest observations file a report reads (bytes). */
export const MAX_OBSERVATIONS_BYTES = 512 * 1024 * 1024;

const impl = () =>
  loadModule<typeof import("./report_impl.ts")>("./report_impl.ts", import.meta.url);

const FormatSchema = z.enum(REPORT_FORMATS).describe(
  "html (one self-contained page), md (Markdown for job summaries and pull-request comments) or junit (JUnit XML); default html",
);
const FailOnSchema = z.enum(JUNIT_FAIL_ON_CHOICES).describe(
  "junit: which verdicts are failures: not-validated (REFUTED and INCONCLUSIVE; the default), refuted, inconclusive or none",
);

/** The result of a report operation. */
export const ReportOutput = z.object({
  proof_id: ProofId,
  format: z.enum(REPORT_FORMATS),
  media_type: z.string().describe("The report's media type"),
  text: z.string().describe("The report"),
}).register(COMPONENTS, { id: "ReportOutput" });

/** A report operation's result. */
export type ReportResult = z.infer<typeof ReportOutput>;

/** `report_proof` input. */
export const ReportProofInput = z.strictObject({
  proof_id: ProofId.describe("The record's identity.proof_id"),
  format: FormatSchema.optional(),
  junit_fail_on: FailOnSchema.optional(),
}).register(COMPONENTS, { id: "ReportProofInput" });

/** The `report_proof` operation. */
export const reportProofOp = defineOperation({
  name: "report_proof",
  title: "Report on a stored record",
  description:
    "A report of one stored proof record, for people and CI: html (one self-contained page with " +
    "the claim, the verdict, each pillar's interval against the threshold, the distribution of " +
    "the observations, failed and wrong items, the lineage trend, the pre-registration hashes, " +
    "the reproduction command, the provenance graph and whether the record verifies under the " +
    "server's key), md (Markdown for job summaries and pull-request comments) or junit (JUnit " +
    "XML: a test case per pillar and one for the verdict). Observations are read from the file " +
    "kept beside the record, when there is one.",
  access: "read",
  exposure: [],
  input: ReportProofInput,
  output: ReportOutput,
  http: {
    method: "GET",
    path: "/proofs/{proof_id}/report",
    tags: ["proofs"],
    response: "The report (HTML by default)",
    errors: [400, 404],
    rawBody: (out) => out.text,
    rawContentType: (out) => out.media_type,
    rawContentTypes: Object.values(REPORT_MEDIA_TYPES),
  },
  mcp: {
    resource: {
      name: "proof-report",
      title: "Proof report (Markdown)",
      description:
        "A stored record's report in Markdown: verdict, claim, pillars with their intervals, quantiles of the observations, failed items and the change since the previous proof",
      template: "empiric://proofs/{proof_id}/report",
      mimeType: "text/markdown",
      input: (vars) => ({ proof_id: vars.proof_id, format: "md" as const }),
      complete: {
        proof_id: {
          operation: "read_proof_index",
          input: { limit: 1000 },
          values: (out) =>
            (out as { entries: { proof_id: string }[] }).entries.map((e) => e.proof_id),
        },
      },
      text: (out) => out.text,
    },
  },
  run: async (input, ctx) => (await impl()).reportProof(input, ctx),
});

/** `report_record` input. */
export const ReportRecordInput = z.strictObject({
  path: z.string().min(1).optional().describe(
    "A record file; its observations and scenario are read from beside it",
  ),
  record_json: z.string().optional().describe("A record's JSON text (instead of path)"),
  observations: z.array(ObservationSchema).optional().describe(
    "The run's observations (with record_json, from the run that made it)",
  ),
  baseline_observations: z.array(ObservationSchema).optional().describe(
    "A comparative run's baseline observations (with record_json and observations)",
  ),
  format: FormatSchema.optional(),
  junit_fail_on: FailOnSchema.optional(),
  attestation_json: z.string().optional().describe(
    "A DSSE attestation of the record to check with public_keys",
  ),
  public_keys: z.array(z.string().min(1)).max(64).optional().describe(
    "SubjectPublicKeyInfo PEM texts trusted to sign the attestation",
  ),
}).register(COMPONENTS, { id: "ReportRecordInput" });

/** The `report_record` operation (local callers: `empiric report FILE`, `empiric run --report`). */
export const reportRecordOp = defineOperation({
  name: "report_record",
  title: "Report on a record file",
  description:
    "A report (html, md or junit) of a record given as a file path or as JSON text, with its " +
    "observations (read from beside the file, or handed over by the run that made it), the " +
    "earlier records of its scenario and substrate in the store, and its verification under the " +
    "given key and, with attestation_json and public_keys, a public-key attestation. Local callers only.",
  access: "read",
  exposure: [],
  input: ReportRecordInput,
  output: ReportOutput,
  run: async (input, ctx) => (await impl()).reportRecord(input, ctx),
});

/** `browse_proofs` input: the filters of the page (empty values mean "any"). */
export const BrowseProofsInput = z.strictObject({
  scenario: z.string().max(4096).optional().describe("Only proofs of this scenario"),
  substrate: z.string().max(4096).optional().describe("Only proofs on this substrate"),
  outcome: z.enum(["", "VALIDATED", "REFUTED", "INCONCLUSIVE"]).optional().describe(
    "Only this verdict (empty: any)",
  ),
  limit: z.number().int().min(1).max(1000).optional().describe("Rows per page, default 50"),
  offset: z.number().int().min(0).optional().describe("Rows to skip, default 0"),
}).register(COMPONENTS, { id: "BrowseProofsInput" });

/** `browse_proofs` output. */
export const BrowseProofsOutput = z.object({
  html: z.string(),
}).register(COMPONENTS, { id: "BrowseProofsOutput" });

/** The `browse_proofs` operation: `GET /ui`. */
export const browseProofsOp = defineOperation({
  name: "browse_proofs",
  title: "Browse the proofs",
  description:
    "The store's proofs as a page for people: a table, newest first, filtered by scenario, " +
    "substrate and outcome, each row linking to its report and its record. No script and nothing " +
    "from any other host.",
  access: "read",
  exposure: [],
  input: BrowseProofsInput,
  output: BrowseProofsOutput,
  http: {
    method: "GET",
    path: "/ui",
    tags: ["proofs"],
    response: "The page",
    errors: [400],
    rawBody: (out) => out.html,
    rawContentType: () => REPORT_MEDIA_TYPES.html,
    rawContentTypes: [REPORT_MEDIA_TYPES.html],
  },
  run: async (input, ctx) => (await impl()).browseProofs(input, ctx),
});
