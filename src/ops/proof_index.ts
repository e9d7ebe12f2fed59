/**
 * `read_proof_index` (the store's index, filtered and paged) and `get_proof` (one stored record,
 * byte for byte).
 *
 * @module
 */
import { z } from "zod";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, OutcomeSchema, ProofId } from "./schemas.ts";

/** An RFC 3339 time with a time zone (`Z` or an offset). */
const RFC3339 = z.string().regex(
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i,
  "must be an RFC 3339 time such as 2026-01-31T00:00:00Z",
);

/** `read_proof_index` input. */
export const ReadProofIndexInput = z.strictObject({
  scenario: z.string().optional().describe("Only proofs of this scenario"),
  substrate: z.string().optional().describe(
    "Only proofs on this substrate (as given to --substrate)",
  ),
  outcome: OutcomeSchema.optional(),
  created_after: RFC3339.optional().describe(
    "Only proofs created at or after this time (RFC 3339, e.g. 2026-01-31T00:00:00Z)",
  ),
  created_before: RFC3339.optional().describe(
    "Only proofs created strictly before this time (RFC 3339)",
  ),
  limit: z.number().int().min(1).max(1000).optional().describe("Page size, default 50"),
  cursor: z.string().min(1).max(200).optional().describe(
    "Continue after the page that returned this next_cursor (keyset paging: as fast on the " +
      "thousandth page as on the first; pass it unchanged, with the same filters)",
  ),
  offset: z.number().int().min(0).optional().describe(
    "Entries to skip, default 0 (kept for compatibility: its cost grows with the offset; use cursor)",
  ),
}).register(COMPONENTS, { id: "ReadProofIndexInput" });

/** One entry of the proof index. */
export const IndexEntrySchema = z.object({
  proof_id: ProofId,
  scenario: z.string(),
  substrate: z.string(),
  outcome: z.string(),
  metric: z.string(),
  observed_value: z.number().nullable(),
  created_at: z.string(),
  path: z.string().describe(
    "Where the record is kept: its file (relative to the store for network clients), or " +
      "<store>/proofs/<proof_id> in a PostgreSQL store (proofs/<proof_id> for network clients)",
  ),
}).register(COMPONENTS, { id: "IndexEntry" });

/** `read_proof_index` output. */
export const ProofIndexOutput = z.object({
  entries: z.array(IndexEntrySchema),
  total: z.number().int().nullable().describe(
    "Entries matching the filters; null on a cursor page (counted on the first page only, so " +
      "that a page costs the same at any depth)",
  ),
  limit: z.number().int(),
  offset: z.number().int(),
  next_cursor: z.string().nullable().describe(
    "Pass as cursor to get the next page; null on the last page",
  ),
  store: z.string().describe(
    "The store: a directory or a database URL without its password (its last path segment only, for network clients)",
  ),
}).register(COMPONENTS, { id: "ProofIndexPage" });

/** The result of `read_proof_index`. */
export type ProofIndexPage = z.infer<typeof ProofIndexOutput>;

/** URI of a stored proof resource. */
export function proofUri(proofId: string): string {
  return `empiric://proofs/${proofId}`;
}

/** URI of the proof index resource (updated when proofs are added). */
export const PROOF_INDEX_URI = "empiric://proofs";

/** How many proof records the MCP resource listing names (newest first). */
export const PROOF_RESOURCE_LIST_LIMIT = 1000;

/** The `read_proof_index` operation. */
export const readProofIndexOp = defineOperation({
  name: "read_proof_index",
  title: "Read the proof index",
  description: "List the proof records in this server's store, newest first: proof_id, scenario, " +
    "substrate, outcome (VALIDATED, REFUTED or INCONCLUSIVE), deciding metric, observed value, " +
    "created_at and where the record is kept, with the total count (first page). Filter by scenario, " +
    "substrate, outcome and a time range (created_after inclusive, created_before exclusive); " +
    "page with limit (1-1000, default 50) and cursor (pass next_cursor back; offset also " +
    "works but slows with depth). Read a whole record as the resource " +
    "empiric://proofs/<proof_id> (GET /proofs/{proof_id} over HTTP).",
  access: "read",
  exposure: ["no-server-paths"],
  input: ReadProofIndexInput,
  output: ProofIndexOutput,
  http: {
    method: "GET",
    path: "/proofs",
    tags: ["proofs"],
    response: "One page of the index",
    errors: [400],
  },
  mcp: {
    tool: {},
    resource: {
      name: "proof-index",
      title: "Proof index",
      description:
        "The newest 50 entries of the proof index (as read_proof_index returns them); subscribe to it to be told when proofs are added",
      template: PROOF_INDEX_URI,
      fixed: true,
      input: () => ({}),
      text: (out) => JSON.stringify(out),
    },
  },
  run: async (input, ctx) => {
    const store = await ctx.store();
    const c = store.consistency;
    if (c.indexed > 0 || c.removedRows > 0) {
      ctx.warn?.(
        `the store's index and its files disagreed (${c.indexed} record files were not indexed, ${c.removedRows} rows named missing files); the index is repaired`,
      );
    }
    const limit = input.limit ?? 50;
    const offset = input.offset ?? 0;
    if (input.cursor !== undefined && offset > 0) {
      throw new UsageError("give cursor or offset, not both (cursor continues where a page ended)");
    }
    const where = {
      scenario: input.scenario,
      substrate: input.substrate,
      outcome: input.outcome,
      created_after: input.created_after,
      created_before: input.created_before,
    };
    // The count costs time in proportion to the matching entries: a cursor page skips it.
    const [page, total] = await Promise.all([
      store.list({ ...where, limit, offset, cursor: input.cursor }),
      input.cursor === undefined ? store.count(where) : Promise.resolve(null),
    ]);
    return {
      entries: page.entries.map((e) => ({
        ...e,
        observed_value: Number.isFinite(e.observed_value) ? e.observed_value : null,
        path: ctx.shownPath(e.path, store.location),
      })),
      total,
      limit,
      offset,
      next_cursor: page.next_cursor,
      store: ctx.shownPath(store.location),
    };
  },
});

/** `get_proof` input. */
export const GetProofInput = z.strictObject({
  proof_id: ProofId.describe("The record's identity.proof_id"),
}).register(COMPONENTS, { id: "GetProofInput" });

/** `get_proof` output: the stored file's exact text. */
export const GetProofOutput = z.object({
  proof_id: ProofId,
  record_json: z.string().describe("The record file exactly as stored"),
}).register(COMPONENTS, { id: "GetProofOutput" });

/** The stored record, byte for byte (documented shape of `GET /proofs/{proof_id}`). */
const StoredRecord = z.record(z.string(), z.unknown()).register(COMPONENTS, {
  id: "ProofRecordFile",
  description:
    "The record file exactly as stored (not re-serialized); its JSON Schema is src/schema/proof-record.schema.json in the repository",
});

/** The `get_proof` operation: the resource `empiric://proofs/{proof_id}`, `GET /proofs/{id}`. */
export const getProofOp = defineOperation({
  name: "get_proof",
  title: "Get one stored record",
  description:
    "The record file exactly as stored, byte for byte, so that its signature can be checked by any port.",
  access: "read",
  exposure: [],
  input: GetProofInput,
  output: GetProofOutput,
  http: {
    method: "GET",
    path: "/proofs/{proof_id}",
    tags: ["proofs"],
    response: "The record file",
    errors: [400, 404],
    rawBody: (out) => out.record_json,
    rawBodySchema: StoredRecord,
  },
  mcp: {
    resource: {
      name: "proof",
      title: "Proof record",
      description:
        "A signed Empirical Proof Record from the server's store, exactly as stored (pass the text to verify_proof to check it)",
      template: "empiric://proofs/{proof_id}",
      input: (vars) => ({ proof_id: vars.proof_id }),
      complete: {
        proof_id: {
          operation: "read_proof_index",
          input: { limit: PROOF_RESOURCE_LIST_LIMIT },
          values: (out) => (out as ProofIndexPage).entries.map((e) => e.proof_id),
        },
      },
      text: (out) => out.record_json,
      list: {
        operation: "read_proof_index",
        input: { limit: PROOF_RESOURCE_LIST_LIMIT },
        entries: (out) =>
          (out as ProofIndexPage).entries.map((e) => ({
            uri: proofUri(e.proof_id),
            name: e.proof_id,
            title: `${e.outcome} ${e.scenario} on ${e.substrate}`,
            description: `${e.metric} = ${e.observed_value}; created ${e.created_at}`,
          })),
      },
    },
  },
  run: async (input, ctx) => {
    const text = await (await ctx.store()).getText(input.proof_id);
    if (text === undefined) {
      throw new EmpiricError("not_found", `no proof record ${input.proof_id} in the store`);
    }
    return { proof_id: input.proof_id, record_json: text };
  },
});

/** `reindex_store` output. */
export const ReindexOutput = z.object({
  indexed: z.number().int().describe("Records in the index after the rebuild"),
  removed_rows: z.number().int().describe(
    "Rows dropped because their file was gone (directory stores)",
  ),
  stale_temporaries: z.number().int().describe("Left-over temporary files removed"),
  store: z.string(),
}).register(COMPONENTS, { id: "ReindexOutput" });

/** The `reindex_store` operation (local: `empiric proofs reindex`). */
export const reindexStoreOp = defineOperation({
  name: "reindex_store",
  title: "Rebuild the proof index",
  description:
    "Rebuild the store's index from its records (the files of a directory store, the records table of a PostgreSQL store). Safe while runs write to the store: no stored record is ever left out of the index.",
  access: "write",
  exposure: ["no-server-paths"],
  input: z.strictObject({}),
  output: ReindexOutput,
  run: async (_input, ctx) => {
    const store = await ctx.store();
    const indexed = await store.reindex();
    const c = store.consistency;
    return {
      indexed,
      removed_rows: c.removedRows,
      stale_temporaries: c.staleTemporaries,
      store: ctx.shownPath(store.location),
    };
  },
});
