/**
 * `read_proof_index`: shared by `empiric proofs list`, `GET /proofs` and the MCP tool.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import type { IndexEntry, ListFilter, ProofStore } from "../store/store.ts";

/** The result of `read_proof_index`. */
export interface ProofIndexPage {
  entries: IndexEntry[];
  total: number;
  limit: number;
  offset: number;
  store: string;
}

const OUTCOMES = new Set(["VALIDATED", "REFUTED", "INCONCLUSIVE"]);

/** Read the proof index with filters and paging (default limit 50, at most 1000). */
export function readProofIndex(store: ProofStore, filter: ListFilter = {}): ProofIndexPage {
  const limit = filter.limit ?? 50;
  const offset = filter.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError("limit must be an integer from 1 to 1000");
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new UsageError("offset must be a non-negative integer");
  }
  const outcome = filter.outcome?.toUpperCase();
  if (outcome !== undefined && !OUTCOMES.has(outcome)) {
    throw new UsageError(
      `outcome must be one of VALIDATED, REFUTED, INCONCLUSIVE; got ${
        JSON.stringify(filter.outcome)
      }`,
    );
  }
  const where = { scenario: filter.scenario, substrate: filter.substrate, outcome };
  return {
    entries: store.list({ ...where, limit, offset }),
    total: store.count(where),
    limit,
    offset,
    store: store.dir,
  };
}
