/**
 * `ingest_proof` (`POST /proofs`, `empiric push` on the client side): a record made elsewhere
 * (a CI job, a laptop) is verified under this server's key, its bundle parts are checked
 * against it, and it is stored with its exact bytes. Idempotent by proof_id: pushing the same
 * proof again changes nothing and says so.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors/errors.ts";
import { loadModule } from "../lazy/load.ts";
import type { BundleParts } from "../store/types.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, OutcomeSchema, ProofId } from "./schemas.ts";

/** `ingest_proof` input. */
export const IngestProofInput = z.strictObject({
  proof_json: z.string().describe(
    "The whole record's JSON text, as the record file holds it (kept byte for byte)",
  ),
  observations: z.string().optional().describe(
    "The record's observations file (<record>.observations.jsonl) as text; its SHA-256 must be " +
      "the content_hash of the record's observations dataset",
  ),
  scenario: z.string().optional().describe(
    "The normalized scenario (<record>.scenario.json) as text; its canonical form must hash to " +
      "pre_registration.config_hash",
  ),
  baseline: z.string().optional().describe(
    "A comparative record's baseline observations (<record>.baseline.observations.jsonl) as " +
      "text; its SHA-256 must be the content_hash of the record's baseline dataset",
  ),
}).register(COMPONENTS, { id: "IngestProofInput" });

/** `ingest_proof` output. */
export const IngestProofOutput = z.object({
  proof_id: ProofId,
  created: z.boolean().describe(
    "true when this call stored the record (201); false when the store already had it (200), " +
      "in which case the stored bytes are kept unchanged",
  ),
  scenario: z.string(),
  substrate: z.string(),
  outcome: OutcomeSchema,
  created_at: z.string(),
  parts: z.array(z.enum(["observations", "scenario", "baseline"])).describe(
    "Bundle parts this call stored (a part already stored is kept)",
  ),
  path: z.string().describe(
    "Where the record is kept (relative to the store for network clients)",
  ),
}).register(COMPONENTS, { id: "IngestProofOutput" });

/** The result of `ingest_proof`. */
export type IngestProofResult = z.infer<typeof IngestProofOutput>;

/** The `ingest_proof` operation (`POST /proofs`). */
export const ingestProofOp = defineOperation({
  name: "ingest_proof",
  title: "Store a record made elsewhere",
  description: "Verify an Empirical Proof Record (proof_json, its whole text) under this " +
    "server's key and store it byte for byte, with its observations and normalized scenario " +
    "when given (each checked against the hashes the record signs). Idempotent by proof_id: " +
    "201 with Location when the record is new, 200 when the store already had it (the stored " +
    "bytes are kept). A record that does not verify is refused with the verify_proof problem " +
    "(400 when it is not JSON, 422 otherwise); parts that do not match are bundle_mismatch " +
    "(422). Needs the bearer token, like POST /runs.",
  access: "write",
  exposure: ["no-server-paths"],
  input: IngestProofInput,
  output: IngestProofOutput,
  http: {
    method: "POST",
    path: "/proofs",
    tags: ["proofs"],
    status: {
      select: (out) => (out.created ? 201 : 200),
      statuses: {
        200: "The store already had this proof; nothing changed (Location: /proofs/{proof_id})",
        201: "The record verified and is stored (Location: /proofs/{proof_id})",
      },
    },
    headers: (out) => ({ location: `/proofs/${out.proof_id}` }),
    response: "The record is stored",
    errors: [400, 403, 422, 503],
  },
  run: async (input, ctx) => {
    if (!ctx.key) throw new UsageError("storing a pushed record needs the key to verify it with");
    const encoder = new TextEncoder();
    const parts: BundleParts = {
      ...(input.observations === undefined
        ? {}
        : { observations: encoder.encode(input.observations) }),
      ...(input.scenario === undefined ? {} : { scenario: encoder.encode(input.scenario) }),
      ...(input.baseline === undefined ? {} : { baseline: encoder.encode(input.baseline) }),
    };
    const { verifyAndStore } = await loadModule<typeof import("./ingest_proof_impl.ts")>(
      "./ingest_proof_impl.ts",
      import.meta.url,
    );
    const store = await ctx.store();
    const r = await verifyAndStore(store, encoder.encode(input.proof_json), parts, ctx.key.bytes);
    return {
      proof_id: r.entry.proof_id,
      created: r.created,
      scenario: r.entry.scenario,
      substrate: r.entry.substrate,
      outcome: r.entry.outcome as IngestProofResult["outcome"],
      created_at: r.entry.created_at,
      parts: r.partsAdded,
      path: ctx.shownPath(r.path, store.location),
    };
  },
});
