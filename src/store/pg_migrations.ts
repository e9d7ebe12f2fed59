/**
 * The PostgreSQL store's schema, as numbered migrations. Each is applied once, in order, in
 * one transaction with the row that records it in `empiric_schema_migrations`; a migration
 * that has shipped is never edited (a change is a new migration). docs/store.md lists them.
 *
 * @module
 */

/** One schema migration. */
export interface Migration {
  version: number;
  name: string;
  /** Statements run in order inside the migration's transaction. */
  statements: readonly string[];
}

/** Every migration, in order (versions 1, 2, …). */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "records, bundle parts and the proof index",
    statements: [
      // The record's exact bytes (never re-serialized: jsonb would lose 1.0 versus 1).
      `CREATE TABLE empiric_records (
        proof_id text PRIMARY KEY CHECK (proof_id ~ '^[0-9a-f]{64}$'),
        record bytea NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now()
      )`,
      // Bundle parts (observations, scenario), each its exact bytes.
      `CREATE TABLE empiric_bundle_parts (
        proof_id text NOT NULL REFERENCES empiric_records (proof_id) ON DELETE CASCADE,
        part text NOT NULL CHECK (part IN ('observations', 'scenario')),
        bytes bytea NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (proof_id, part)
      )`,
      // The index: filters, keyset pages (created_ms, proof_id) and lineage.
      `CREATE TABLE empiric_proof_index (
        proof_id text PRIMARY KEY REFERENCES empiric_records (proof_id) ON DELETE CASCADE,
        scenario text NOT NULL,
        substrate text NOT NULL,
        outcome text NOT NULL,
        metric text NOT NULL,
        observed_value double precision,
        units text NOT NULL,
        created_at text NOT NULL,
        created_ms bigint NOT NULL
      )`,
      `CREATE INDEX empiric_proof_index_newest
        ON empiric_proof_index (created_ms DESC, proof_id DESC)`,
      `CREATE INDEX empiric_proof_index_by_scenario
        ON empiric_proof_index (scenario, substrate, created_ms DESC, proof_id DESC)`,
      `CREATE INDEX empiric_proof_index_by_substrate
        ON empiric_proof_index (substrate, created_ms DESC, proof_id DESC)`,
      `CREATE INDEX empiric_proof_index_by_outcome
        ON empiric_proof_index (outcome, created_ms DESC, proof_id DESC)`,
      `CREATE INDEX empiric_proof_index_by_scenario_outcome
        ON empiric_proof_index (scenario, outcome, created_ms DESC, proof_id DESC)`,
    ],
  },
  {
    version: 2,
    name: "the baseline bundle part (comparative claims)",
    statements: [
      `ALTER TABLE empiric_bundle_parts DROP CONSTRAINT empiric_bundle_parts_part_check`,
      `ALTER TABLE empiric_bundle_parts ADD CONSTRAINT empiric_bundle_parts_part_check
        CHECK (part IN ('observations', 'scenario', 'baseline'))`,
    ],
  },
];

/** The schema version this empiric writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** The table that records applied migrations. */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS empiric_schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  empiric_version text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Key of the transaction-level advisory lock every migrating process takes, so that servers
 * starting together apply each migration exactly once (the first applies, the others wait and
 * find it done).
 */
export const MIGRATION_LOCK = 0x656d7069726963n; // "empiric"
