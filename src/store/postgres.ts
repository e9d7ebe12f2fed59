/**
 * The PostgreSQL proof store: records kept as their exact bytes (`bytea`, never `jsonb`, which
 * would lose the int/float distinction the signature depends on), bundle parts beside them, an
 * index table for filters, keyset pages and lineage, and numbered schema migrations. Any number
 * of processes on any number of machines share one database as one registry: every write is
 * one transaction keyed by proof_id (`ON CONFLICT DO NOTHING`), so concurrent writers neither
 * lose nor duplicate a row. The client is `postgres` from the npm registry, with its
 * connection pool.
 *
 * @module
 */
import postgres from "postgres";
import { EmpiricError, IoError, UsageError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { prettyJson } from "../json/pretty.ts";
import type { JsonValue } from "../json/value.ts";
import type { LineageLink } from "../record/lineage.ts";
import type { ProofRecord } from "../record/types.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import {
  decodeCursor,
  entryOf,
  type IndexFields,
  indexFieldsOf,
  type IndexRow,
  linkOf,
  pageOf,
  PROOF_ID,
  requireIndexFields,
  timeRange,
} from "./keys.ts";
import type { PgConfig } from "./pg_config.ts";
import { MIGRATION_LOCK, MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION } from "./pg_migrations.ts";
import {
  BUNDLE_PART_NAMES,
  type BundlePartName,
  type BundleParts,
  type IndexFilter,
  type ListFilter,
  type ListPage,
  type MigrationState,
  type ProofStore,
  type PutResult,
  type StoreConsistency,
  type StoredBundle,
} from "./types.ts";

type Sql = postgres.Sql<Record<string, never>>;

/**
 * The index columns as read (`created_ms` as a float8, which the client gives as a number).
 * ORDER BY names the table's column explicitly, not this output column of the same name: the
 * cast column has no index.
 */
const COLUMNS =
  "proof_id, scenario, substrate, outcome, metric, observed_value, created_at, created_ms::float8 AS created_ms";

/** SQLSTATE classes and client codes that mean the database cannot be used at all. */
function unavailable(e: unknown): boolean {
  const code = String((e as { code?: unknown }).code ?? "");
  return /^(08|28|3D|57P|53)/.test(code) ||
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|SASL_SIGNATURE_MISMATCH|AUTH_TYPE_NOT_IMPLEMENTED)$/
      .test(code) ||
    /certificate|self[- ]signed|SSL|TLS|handshake/i.test((e as Error).message ?? "");
}

function wholeNumber(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`not a page size or offset: ${n}`);
  return n;
}

/**
 * A PostgreSQL store of proof records.
 *
 * @example
 * ```ts ignore
 * const store = await PgStore.open(parsePgLocation("postgres://empiric@db/registry", host));
 * const { created } = await store.putBytes(recordBytes);
 * await store.close();
 * ```
 */
export class PgStore implements ProofStore {
  readonly kind = "postgres" as const;
  readonly location: string;
  readonly consistency: StoreConsistency = { indexed: 0, removedRows: 0, staleTemporaries: 0 };
  #sql: Sql;
  #migrated: number[] = [];

  private constructor(location: string, sql: Sql) {
    this.location = location;
    this.#sql = sql;
  }

  /**
   * Connect (the pool opens connections as needed) and check the schema: with `create`
   * (default) migrations are applied, else a database without the schema is `not_found` and
   * one at an older version is `store_unavailable` (run `empiric store migrate`).
   */
  static async open(config: PgConfig, options: { create?: boolean } = {}): Promise<PgStore> {
    const sql = postgres({
      host: config.host,
      port: config.port,
      path: config.socketPath,
      database: config.database,
      user: config.user,
      ...(config.password === undefined ? {} : { pass: config.password }),
      ssl: config.ssl as postgres.Options<Record<string, never>>["ssl"],
      max: config.poolMax,
      connect_timeout: config.connectTimeout,
      idle_timeout: 60,
      onnotice: () => {},
      connection: { application_name: config.applicationName },
    }) as unknown as Sql;
    const store = new PgStore(config.display, sql);
    try {
      if (options.create === false) await store.#checkSchema();
      else store.#migrated = await store.#migrate();
    } catch (e) {
      await sql.end({ timeout: 1 }).catch(() => {});
      throw store.#error(e, "open");
    }
    return store;
  }

  #error(e: unknown, what: string): Error {
    if (e instanceof EmpiricError) return e;
    const message = (e as Error).message ?? String(e);
    if (unavailable(e)) {
      return new EmpiricError(
        "store_unavailable",
        `cannot use the proof store ${this.location}: ${message}`,
        { cause: e },
      );
    }
    return new IoError("io_error", `proof store ${this.location} (${what}): ${message}`, {
      cause: e,
    });
  }

  async #run<T>(what: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw this.#error(e, what);
    }
  }

  async #version(sql: Sql | postgres.TransactionSql<Record<string, never>>): Promise<number> {
    const [t] = await sql`SELECT to_regclass('empiric_schema_migrations') IS NOT NULL AS present`;
    if (!t.present) return 0;
    const [v] =
      await sql`SELECT coalesce(max(version), 0)::int AS v FROM empiric_schema_migrations`;
    return Number(v.v);
  }

  async #checkSchema(): Promise<void> {
    const v = await this.#version(this.#sql);
    if (v === 0) {
      throw new EmpiricError(
        "not_found",
        `no proof store in ${this.location} (empiric store migrate --store … creates its tables; a run or http serve also does)`,
      );
    }
    this.#checkNewer(v);
    if (v < SCHEMA_VERSION) {
      throw new EmpiricError(
        "store_unavailable",
        `the proof store ${this.location} has schema version ${v}; this empiric needs ${SCHEMA_VERSION}: run empiric store migrate --store …`,
      );
    }
  }

  #checkNewer(v: number): void {
    if (v > SCHEMA_VERSION) {
      throw new EmpiricError(
        "store_unavailable",
        `the proof store ${this.location} has schema version ${v}, newer than this empiric knows (${SCHEMA_VERSION}): upgrade empiric`,
      );
    }
  }

  async #migrate(): Promise<number[]> {
    // The common case (already current) without a write transaction.
    const now = await this.#version(this.#sql);
    this.#checkNewer(now);
    if (now === SCHEMA_VERSION) return [];
    return await this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
      await tx.unsafe(MIGRATIONS_TABLE);
      const current = await this.#version(tx as never);
      this.#checkNewer(current);
      const applied: number[] = [];
      for (const m of MIGRATIONS) {
        if (m.version <= current) continue;
        for (const s of m.statements) await tx.unsafe(s);
        await tx`INSERT INTO empiric_schema_migrations (version, name, empiric_version)
                 VALUES (${m.version}, ${m.name}, ${EMPIRIC_VERSION})`;
        applied.push(m.version);
      }
      return applied;
    }) as number[];
  }

  /** Apply pending migrations (opening already did; this reports what it applied). */
  async migrate(): Promise<MigrationState> {
    const applied = [...this.#migrated, ...await this.#run("migrate", () => this.#migrate())];
    this.#migrated = [];
    return { version: SCHEMA_VERSION, applied };
  }

  /** Where a record is: `<location>/proofs/<proof_id>`. */
  pathOf(proofId: string): string {
    return `${this.location}/proofs/${proofId}`;
  }

  /** Store a record written as pretty JSON. */
  async put(record: ProofRecord, parts: BundleParts = {}): Promise<PutResult> {
    const bytes = new TextEncoder().encode(prettyJson(record as unknown as JsonValue));
    return await this.#store(bytes, requireIndexFields(record as unknown as JsonValue), parts);
  }

  /** Keep a record's exact bytes and its parts, in one transaction. */
  async putBytes(
    bytes: Uint8Array,
    parts: BundleParts = {},
    parsed?: JsonValue,
  ): Promise<PutResult> {
    return await this.#store(bytes, requireIndexFields(parsed ?? parseJson(bytes)), parts);
  }

  /**
   * One statement (so one round trip and one implicit transaction): the record, its index row
   * and its parts, each `ON CONFLICT DO NOTHING`; foreign keys are checked at the end of the
   * statement, when the record row exists.
   */
  #store(bytes: Uint8Array, f: IndexFields, parts: BundleParts): Promise<PutResult> {
    const params: unknown[] = [
      f.proof_id,
      bytes,
      f.scenario,
      f.substrate,
      f.outcome,
      f.metric,
      Number.isFinite(f.observed_value) ? f.observed_value : null,
      f.created_at,
      f.created_ms,
    ];
    const partCtes: string[] = [];
    for (const name of BUNDLE_PART_NAMES) {
      const part = parts[name];
      if (part === undefined) continue;
      params.push(name, part);
      partCtes.push(`p${partCtes.length} AS (
        INSERT INTO empiric_bundle_parts (proof_id, part, bytes)
        VALUES ($1, $${params.length - 1}, $${params.length})
        ON CONFLICT (proof_id, part) DO NOTHING RETURNING part)`);
    }
    const text = `WITH r AS (
        INSERT INTO empiric_records (proof_id, record) VALUES ($1, $2)
        ON CONFLICT (proof_id) DO NOTHING RETURNING proof_id),
      i AS (
        INSERT INTO empiric_proof_index
          (proof_id, scenario, substrate, outcome, metric, observed_value, created_at, created_ms)
        VALUES ($1, $3, $4, $5, $6, $7, $8, $9)
        ON CONFLICT (proof_id) DO NOTHING)${partCtes.map((c) => ",\n      " + c).join("")}
      SELECT (SELECT count(*) FROM r)::int AS created${
      partCtes.map((_, i) => `, (SELECT part FROM p${i}) AS p${i}`).join("")
    }`;
    return this.#run("store", async () => {
      const [row] = await this.#sql.unsafe(text, params as never[], { prepare: true });
      const partsAdded = partCtes.map((_, i) => row[`p${i}`] as BundlePartName | null)
        .filter((p): p is BundlePartName => p !== null);
      return {
        path: this.pathOf(f.proof_id),
        entry: entryOf(f, this.pathOf(f.proof_id)),
        created: Number(row.created) > 0,
        partsAdded,
      };
    });
  }

  /** One record's exact bytes. */
  getBytes(proofId: string): Promise<Uint8Array | undefined> {
    if (!PROOF_ID.test(proofId)) return Promise.resolve(undefined);
    return this.#run("read", async () => {
      const [row] = await this.#sql`SELECT record FROM empiric_records WHERE proof_id = ${proofId}`;
      return row ? new Uint8Array(row.record as Uint8Array) : undefined;
    });
  }

  /** One record's text. */
  async getText(proofId: string): Promise<string | undefined> {
    const bytes = await this.getBytes(proofId);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }

  /** A record with its parts. */
  getBundle(proofId: string): Promise<StoredBundle | undefined> {
    if (!PROOF_ID.test(proofId)) return Promise.resolve(undefined);
    return this.#run("read", async () => {
      const [row] = await this.#sql`SELECT record FROM empiric_records WHERE proof_id = ${proofId}`;
      if (!row) return undefined;
      const parts: BundleParts = {};
      for (
        const p of await this.#sql`
        SELECT part, bytes FROM empiric_bundle_parts WHERE proof_id = ${proofId}`
      ) {
        if ((BUNDLE_PART_NAMES as string[]).includes(p.part)) {
          parts[p.part as BundlePartName] = new Uint8Array(p.bytes as Uint8Array);
        }
      }
      return { proof_id: proofId, record: new Uint8Array(row.record as Uint8Array), parts };
    });
  }

  #where(filter: IndexFilter, params: (string | number)[]): string[] {
    const where: string[] = [];
    for (const k of ["scenario", "substrate", "outcome"] as const) {
      if (filter[k] !== undefined) {
        params.push(filter[k]!);
        where.push(`${k} = $${params.length}`);
      }
    }
    const { after, before } = timeRange(filter);
    if (after !== undefined) {
      params.push(after);
      where.push(`created_ms >= $${params.length}`);
    }
    if (before !== undefined) {
      params.push(before);
      where.push(`created_ms < $${params.length}`);
    }
    return where;
  }

  /** Index entries, newest first, keyset-paged. */
  async list(filter: ListFilter = {}): Promise<ListPage> {
    const params: (string | number)[] = [];
    const where = this.#where(filter, params);
    if (filter.cursor !== undefined) {
      const key = decodeCursor(filter.cursor);
      params.push(key.created_ms, key.proof_id);
      where.push(`(created_ms, proof_id) < ($${params.length - 1}, $${params.length})`);
    }
    // LIMIT and OFFSET are written as numbers, not parameters: with a parameter, the generic
    // plan of the prepared statement would not know the page is small and would sort the whole
    // index instead of reading its first entries.
    const limit = filter.limit;
    let tail = "";
    if (limit !== undefined) tail += ` LIMIT ${wholeNumber(limit) + 1}`;
    if (filter.offset) tail += ` OFFSET ${wholeNumber(filter.offset)}`;
    const text = `SELECT ${COLUMNS} FROM empiric_proof_index ${
      where.length ? "WHERE " + where.join(" AND ") : ""
    } ORDER BY empiric_proof_index.created_ms DESC, proof_id DESC${tail}`;
    return await this.#run("list", async () => {
      const rows = await this.#sql.unsafe(text, params, { prepare: true }) as unknown as IndexRow[];
      return pageOf(rows, limit, (id) => this.pathOf(id));
    });
  }

  /** Number of entries matching a filter. */
  async count(filter: IndexFilter = {}): Promise<number> {
    const params: (string | number)[] = [];
    const where = this.#where(filter, params);
    const text = `SELECT count(*)::float8 AS n FROM empiric_proof_index ${
      where.length ? "WHERE " + where.join(" AND ") : ""
    }`;
    return await this.#run("count", async () => {
      const [row] = await this.#sql.unsafe(text, params, { prepare: true });
      return Number(row.n);
    });
  }

  /** The latest proof of this scenario on this substrate (ties: the greater proof_id). */
  async predecessor(scenario: string, substrate: string): Promise<LineageLink | undefined> {
    const rows = await this.#run("read", () =>
      this.#sql`
      SELECT proof_id FROM empiric_proof_index WHERE scenario = ${scenario} AND substrate = ${substrate}
      ORDER BY created_ms DESC, proof_id DESC LIMIT 1`);
    return rows.length > 0 ? await this.link(rows[0].proof_id as string) : undefined;
  }

  /** A link to a proof, with its result entity's node id when the store has the record. */
  async link(proofId: string): Promise<LineageLink> {
    // An unreachable database is the caller's problem, not a link without an entity.
    return linkOf(proofId, await this.getBytes(proofId));
  }

  /**
   * Rebuild the index from the stored records (in batches, each row replaced from its
   * record's bytes); returns the number indexed.
   */
  reindex(): Promise<number> {
    return this.#run("reindex", async () => {
      let after = "";
      let n = 0;
      for (;;) {
        const batch = await this.#sql`
          SELECT proof_id, record FROM empiric_records WHERE proof_id > ${after}
          ORDER BY proof_id LIMIT 500`;
        if (batch.length === 0) return n;
        for (const r of batch) {
          let f: IndexFields | undefined;
          try {
            f = indexFieldsOf(parseJson(new Uint8Array(r.record as Uint8Array)));
          } catch {
            f = undefined;
          }
          if (!f || f.proof_id !== r.proof_id) continue;
          await this.#sql`
            INSERT INTO empiric_proof_index
              (proof_id, scenario, substrate, outcome, metric, observed_value, created_at, created_ms)
            VALUES (${f.proof_id}, ${f.scenario}, ${f.substrate}, ${f.outcome}, ${f.metric},
              ${Number.isFinite(f.observed_value) ? f.observed_value : null}, ${f.created_at},
              ${f.created_ms})
            ON CONFLICT (proof_id) DO UPDATE SET scenario = excluded.scenario,
              substrate = excluded.substrate, outcome = excluded.outcome, metric = excluded.metric,
              observed_value = excluded.observed_value, created_at = excluded.created_at,
              created_ms = excluded.created_ms`;
          n++;
        }
        after = batch.at(-1)!.proof_id as string;
      }
    });
  }

  /** Close the pool (waits up to 5 s for queries in flight). */
  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 }).catch(() => {});
  }
}
