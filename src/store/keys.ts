/**
 * What both store back ends derive from a record the same way: its index entry, the numeric
 * creation time the index sorts by, and the opaque keyset cursor of a page.
 *
 * @module
 */
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { isJsonObject, type JsonValue } from "../json/value.ts";
import { parseJson } from "../json/parse.ts";
import { declaredScenarioName, parseReproductionCommand } from "../record/command.ts";
import { type LineageLink, resultEntityOf } from "../record/lineage.ts";
import type { IndexEntry, IndexFilter, ListPage } from "./types.ts";

/** A well-formed proof id (lowercase hex SHA-256). */
export const PROOF_ID = /^[0-9a-f]{64}$/;

/** An index entry without its path (the store adds it). */
export type IndexFields = Omit<IndexEntry, "path"> & { created_ms: number };

/**
 * Index fields of a record (scenario and substrate come from `reproduction.command`), or
 * undefined when the value is not a record the index can file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexFieldsOf } from "./keys.ts";
 * const f = indexFieldsOf({
 *   identity: { proof_id: "a".repeat(64), created_at: "2026-01-02T03:04:05Z" },
 *   verdict: { outcome: "VALIDATED", observed_value: 0.5, threshold: { metric: "p95" } },
 *   reproduction: { command: "empiric run latency --substrate builtin:echo" },
 * });
 * assert.equal(f?.scenario, "latency");
 * assert.equal(f?.created_ms, Date.UTC(2026, 0, 2, 3, 4, 5));
 * ```
 */
export function indexFieldsOf(record: JsonValue): IndexFields | undefined {
  if (!isJsonObject(record)) return undefined;
  const id = isJsonObject(record.identity) ? record.identity : {};
  const verdict = isJsonObject(record.verdict) ? record.verdict : {};
  const repro = isJsonObject(record.reproduction) ? record.reproduction : {};
  const parts = typeof repro.command === "string"
    ? parseReproductionCommand(repro.command)
    : undefined;
  if (typeof id.proof_id !== "string" || !PROOF_ID.test(id.proof_id) || !parts) return undefined;
  const threshold = isJsonObject(verdict.threshold) ? verdict.threshold : {};
  const created = typeof id.created_at === "string" ? id.created_at : "";
  return {
    proof_id: id.proof_id,
    scenario: declaredScenarioName(record) ?? parts.scenario,
    substrate: parts.substrate,
    outcome: typeof verdict.outcome === "string" ? verdict.outcome : "",
    metric: typeof threshold.metric === "string" ? threshold.metric : "",
    observed_value: typeof verdict.observed_value === "number"
      ? verdict.observed_value
      : Number(verdict.observed_value ?? NaN),
    created_at: created,
    created_ms: createdMs(created),
  };
}

/** Index fields of a record, or a `record_structure` error naming what is missing. */
export function requireIndexFields(record: JsonValue): IndexFields {
  const f = indexFieldsOf(record);
  if (!f) {
    throw new EmpiricError(
      "record_structure",
      "not a proof record the store can file: it needs identity.proof_id (64 hex digits) and reproduction.command of the form `empiric run <scenario> --substrate <substrate>`",
    );
  }
  return f;
}

/**
 * Milliseconds since the epoch of an RFC 3339 time (0 when it does not parse; such records
 * sort last).
 */
export function createdMs(text: string): number {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : 0;
}

/** The time filters of an index filter as milliseconds (`usage_error` when malformed). */
export function timeRange(filter: IndexFilter): { after?: number; before?: number } {
  const parse = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(v)
      ? Date.parse(v)
      : NaN;
    if (!Number.isFinite(ms)) {
      throw new UsageError(
        `${name} must be an RFC 3339 time such as 2026-01-31T00:00:00Z, got ${JSON.stringify(v)}`,
      );
    }
    return ms;
  };
  return {
    after: parse("created_after", filter.created_after),
    before: parse("created_before", filter.created_before),
  };
}

/** The position after which a page continues. */
export interface CursorKey {
  created_ms: number;
  proof_id: string;
}

/**
 * The opaque cursor of a position (base64url; clients pass it back unchanged).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeCursor, encodeCursor } from "./keys.ts";
 * const key = { created_ms: 1767225600000, proof_id: "b".repeat(64) };
 * assert.deepEqual(decodeCursor(encodeCursor(key)), key);
 * assert.throws(() => decodeCursor("nonsense"), /cursor/);
 * ```
 */
export function encodeCursor(key: CursorKey): string {
  const text = `v1.${key.created_ms}.${key.proof_id}`;
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Read a cursor made by {@link encodeCursor} (`usage_error` when it is not one). */
export function decodeCursor(cursor: string): CursorKey {
  let text = "";
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    // falls through to the error below
  }
  const m = /^v1\.(-?\d{1,16})\.([0-9a-f]{64})$/.exec(text);
  if (!m) {
    throw new UsageError(
      `cursor ${
        JSON.stringify(cursor.slice(0, 80))
      } is not a cursor this server gave (pass next_cursor of the previous page unchanged)`,
    );
  }
  return { created_ms: Number(m[1]), proof_id: m[2] };
}

/** An index row as both back ends read it (a missing observed value is null). */
export interface IndexRow extends Omit<IndexFields, "observed_value"> {
  observed_value: number | null;
}

/** The index entry of a row, at `path`. */
export function entryOf(r: IndexRow | IndexFields, path: string): IndexEntry {
  return {
    proof_id: r.proof_id,
    scenario: r.scenario,
    substrate: r.substrate,
    outcome: r.outcome,
    metric: r.metric,
    observed_value: r.observed_value === null ? NaN : Number(r.observed_value),
    created_at: r.created_at,
    path,
  };
}

/**
 * A page from the rows of a query that asked for `limit + 1` rows: the extra row only says
 * that there is a next page, whose cursor is the last entry's position.
 */
export function pageOf(
  rows: IndexRow[],
  limit: number | undefined,
  pathOf: (proofId: string) => string,
): ListPage {
  const more = limit !== undefined && rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return {
    entries: page.map((r) => entryOf(r, pathOf(r.proof_id))),
    next_cursor: more && last ? encodeCursor(last) : null,
  };
}

/** A lineage link to a proof from its stored bytes (with its result entity when readable). */
export function linkOf(proofId: string, bytes: Uint8Array | undefined): LineageLink {
  try {
    const entity = bytes ? resultEntityOf(parseJson(bytes)) : undefined;
    return entity ? { proof_id: proofId, entity } : { proof_id: proofId };
  } catch {
    return { proof_id: proofId };
  }
}
