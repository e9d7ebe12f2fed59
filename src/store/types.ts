/**
 * The proof store interface: what every back end (a directory with an SQLite index, a
 * PostgreSQL database) offers, so that the operations never know which one they talk to. A
 * record is kept as its exact bytes with optional bundle parts beside it (the observations and
 * the normalized scenario); an index serves filters, keyset pages and lineage.
 *
 * @module
 */
import type { JsonValue } from "../json/value.ts";
import type { LineageLink } from "../record/lineage.ts";
import type { ProofRecord } from "../record/types.ts";

/** One row of the proof index. */
export interface IndexEntry {
  proof_id: string;
  scenario: string;
  substrate: string;
  outcome: string;
  metric: string;
  observed_value: number;
  /** The threshold's units (`ms`, `fraction`, …), as the claim gives them. */
  units: string;
  created_at: string;
  /** Where the record is (a file path, or `<store location>/proofs/<proof_id>`). */
  path: string;
}

/** Filters of {@link ProofStore.list} and {@link ProofStore.count}. */
export interface IndexFilter {
  scenario?: string;
  substrate?: string;
  outcome?: string;
  /** Only records created at or after this instant (RFC 3339). */
  created_after?: string;
  /** Only records created strictly before this instant (RFC 3339). */
  created_before?: string;
}

/** Filters and paging of {@link ProofStore.list}. */
export interface ListFilter extends IndexFilter {
  /** Page size (every matching entry when absent). */
  limit?: number;
  /** Entries to skip (compatibility; costs time proportional to it). */
  offset?: number;
  /** Continue after this cursor (from {@link ListPage.next_cursor}); keyset paging. */
  cursor?: string;
}

/** One page of the index, newest first (`created_at` descending, then `proof_id` descending). */
export interface ListPage {
  entries: IndexEntry[];
  /** Cursor of the page after this one, or null when this page is the last. */
  next_cursor: string | null;
}

/**
 * The bundle parts a record can be stored with, and their file names beside
 * `<proof_id>.json` in a directory store.
 */
export const BUNDLE_PARTS = {
  /** Per-item observations, canonical JSON lines (dataset kind `observations`). */
  observations: ".observations.jsonl",
  /** The normalized scenario (its canonical form hashes to `pre_registration.config_hash`). */
  scenario: ".scenario.json",
  /** Comparative claims: the baseline's observations (dataset kind `baseline`). */
  baseline: ".baseline.observations.jsonl",
} as const;

/** Name of a bundle part. */
export type BundlePartName = keyof typeof BUNDLE_PARTS;

/** Every bundle part name, in a fixed order. */
export const BUNDLE_PART_NAMES = Object.keys(BUNDLE_PARTS) as BundlePartName[];

/** Bundle parts, each as its exact bytes. */
export type BundleParts = Partial<Record<BundlePartName, Uint8Array>>;

/** A stored record with its parts. */
export interface StoredBundle {
  proof_id: string;
  /** The record exactly as stored. */
  record: Uint8Array;
  parts: BundleParts;
}

/** What {@link ProofStore.put} did. */
export interface PutResult {
  entry: IndexEntry;
  path: string;
  /** False when a record of this proof_id was already stored (it is kept as it was). */
  created: boolean;
  /** Parts stored by this call (a part already stored is kept and not listed). */
  partsAdded: BundlePartName[];
}

/** What a catch-up or reindex found and repaired (always zero for PostgreSQL). */
export interface StoreConsistency {
  /** Record files added to the index (none missing: 0 on catch-up). */
  indexed: number;
  /** Index rows dropped because their file was gone. */
  removedRows: number;
  /** Temporary files of killed writers removed. */
  staleTemporaries: number;
}

/** Schema state of a store's index. */
export interface MigrationState {
  /** Schema version now. */
  version: number;
  /** Versions applied by this call (empty when it was current). */
  applied: number[];
}

/**
 * A store of proof records: a directory (`<proof_id>.json` files, SQLite index) or a
 * PostgreSQL database. Every method is safe with other processes writing the same store.
 */
export interface ProofStore {
  /** `directory` or `postgres`. */
  readonly kind: "directory" | "postgres";
  /** The store as shown to people: a directory path, or a URL without its password. */
  readonly location: string;
  /** What opening the store found out of step and repaired. */
  readonly consistency: StoreConsistency;
  /** Where a record of this id is (or would be) kept. */
  pathOf(proofId: string): string;
  /** Store a record (written as pretty JSON) with optional parts; see {@link putBytes}. */
  put(record: ProofRecord, parts?: BundleParts): Promise<PutResult>;
  /**
   * Store a record's exact bytes (the caller has checked it is a record) with optional bundle
   * parts, parts first. Idempotent by proof_id: a record already stored is kept byte for byte
   * (`created` false), and only parts it lacks are added. `parsed`, when the caller has it, is
   * the typed parse of `bytes` (saves parsing them again).
   */
  putBytes(bytes: Uint8Array, parts?: BundleParts, parsed?: JsonValue): Promise<PutResult>;
  /** One record's exact bytes, or undefined. */
  getBytes(proofId: string): Promise<Uint8Array | undefined>;
  /** One record's text (its bytes as UTF-8), or undefined. */
  getText(proofId: string): Promise<string | undefined>;
  /** Up to `limit` stored proof ids that start with `prefix` (lowercase hex), in order. */
  idsWithPrefix(prefix: string, limit: number): Promise<string[]>;
  /** A record with its parts, or undefined. */
  getBundle(proofId: string): Promise<StoredBundle | undefined>;
  /** Index entries, newest first. */
  list(filter?: ListFilter): Promise<ListPage>;
  /** Number of entries matching a filter. */
  count(filter?: IndexFilter): Promise<number>;
  /**
   * The direct predecessor of a new run: the latest proof of the same scenario on the same
   * substrate (ties in `created_at` broken by the greater proof_id, so every process and
   * back end picks the same one).
   */
  predecessor(scenario: string, substrate: string): Promise<LineageLink | undefined>;
  /** A link to a proof, with its result entity's node id when the store has the record. */
  link(proofId: string): Promise<LineageLink>;
  /** Rebuild the index from the stored records; returns the number indexed. */
  reindex(): Promise<number>;
  /** Bring the index schema to this version of empiric (see docs/store.md, Migrations). */
  migrate(): Promise<MigrationState>;
  /** Release the index (and connections). */
  close(): Promise<void>;
}
