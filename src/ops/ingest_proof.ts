/**
 * `ingest_proof` (`POST /proofs`, `empiric push` on the client side): a record made elsewhere
 * (a CI job, a laptop) is verified under this server's key, its bundle parts are checked
 * against it, and it is stored with its exact bytes. Idempotent by proof_id: pushing the same
 * proof again changes nothing and says so.
 *
 * @module
 */
import { z } from "zod";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { checkBundleParts } from "../record/bundle.ts";
import type { BundleParts, ProofStore, PutResult } from "../store/types.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, OutcomeSchema, ProofId } from "./schemas.ts";
import { verifyProofImpl } from "./verify_proof.ts";

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
  parts: z.array(z.enum(["observations", "scenario"])).describe(
    "Bundle parts this call stored (a part already stored is kept)",
  ),
  path: z.string().describe(
    "Where the record is kept (relative to the store for network clients)",
  ),
}).register(COMPONENTS, { id: "IngestProofOutput" });

/** The result of `ingest_proof`. */
export type IngestProofResult = z.infer<typeof IngestProofOutput>;

/**
 * Verify a record's bytes under `key`, check its parts against it, and store it. The shared
 * path of `POST /proofs` and `empiric store copy`: a record that does not verify is refused
 * with the verification's code and problems, a demo-key record is refused unless
 * `allowDemoKey` (anyone can forge one: a server never stores them; a local copy of one's own
 * store may), and parts the record does not vouch for are `bundle_mismatch`.
 */
export async function verifyAndStore(
  store: ProofStore,
  bytes: Uint8Array,
  parts: BundleParts,
  key: Uint8Array<ArrayBuffer>,
  options: { allowDemoKey?: boolean } = {},
): Promise<PutResult> {
  const v = await verifyProofImpl(bytes, { key });
  if (v.demo_key && !options.allowDemoKey) {
    throw new EmpiricError(
      "forbidden",
      "this store's key is the public demo key, under which anyone can forge a record; it stores no records it did not make (give the server a key with --key-file or EMPIRIC_SIGN_KEY)",
    );
  }
  if (!v.verified) {
    const first = v.problems[0];
    throw new EmpiricError(
      first?.code ?? "signature_mismatch",
      `the record does not verify: ${first?.message ?? v.reason ?? "unknown reason"}`,
      { problems: v.problems, pointer: first?.pointer, position: first?.position },
    );
  }
  const value = parseJson(bytes);
  const problems = await checkBundleParts(value, parts);
  if (problems.length > 0) {
    throw new EmpiricError("bundle_mismatch", problems[0].message, {
      problems,
      pointer: problems[0].pointer,
    });
  }
  return await store.putBytes(bytes, parts, value);
}

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
    };
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
