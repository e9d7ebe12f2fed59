/**
 * The embedded proof store: a directory of `<proof_id>.json` record files (with their bundle
 * parts beside them: `<proof_id>.observations.jsonl`, `<proof_id>.scenario.json`), each written
 * atomically and never replaced, with an SQLite index (`index.sqlite`, WAL mode) that stays
 * correct with several writers at once and can always be rebuilt from the files.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { EmpiricError, IoError } from "../errors/errors.ts";
import { createFileAtomic } from "../fs/atomic.ts";
import { prettyJson } from "../json/pretty.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/value.ts";
import type { ProofRecord } from "../record/types.ts";
import type { LineageLink } from "../record/lineage.ts";
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
import {
  BUNDLE_PART_NAMES,
  BUNDLE_PARTS,
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

const RECORD_FILE = /^([0-9a-f]{64})\.json$/;
const TEMPORARY_FILE = /^\..*\.[0-9a-f-]{36}\.tmp$/;

/**
 * A temporary file older than this is left over from a writer that was killed (a write takes
 * milliseconds): opening the store removes it.
 */
export const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/**
 * Version of the SQLite index layout (`PRAGMA user_version`). The index is a cache of the
 * files: an older layout is dropped and rebuilt from them on open.
 */
export const DIRECTORY_INDEX_VERSION = 2;

const COLUMNS =
  "proof_id, scenario, substrate, outcome, metric, observed_value, created_at, created_ms";

function filterSql(filter: IndexFilter): { where: string[]; args: (string | number)[] } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  for (const k of ["scenario", "substrate", "outcome"] as const) {
    if (filter[k] !== undefined) {
      where.push(`${k} = ?`);
      args.push(filter[k]!);
    }
  }
  const { after, before } = timeRange(filter);
  if (after !== undefined) {
    where.push("created_ms >= ?");
    args.push(after);
  }
  if (before !== undefined) {
    where.push("created_ms < ?");
    args.push(before);
  }
  return { where, args };
}

/**
 * A directory store of proof records.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DirectoryStore } from "./directory.ts";
 * const store = await DirectoryStore.open(await Deno.makeTempDir());
 * try {
 *   assert.equal(await store.count(), 0);
 *   assert.deepEqual(await store.list(), { entries: [], next_cursor: null });
 * } finally {
 *   await store.close();
 * }
 * ```
 */
export class DirectoryStore implements ProofStore {
  readonly kind = "directory" as const;
  readonly dir: string;
  #db: DatabaseSync;
  #consistency: StoreConsistency = { indexed: 0, removedRows: 0, staleTemporaries: 0 };
  #migrated: number[] = [];

  private constructor(dir: string, db: DatabaseSync) {
    this.dir = dir;
    this.#db = db;
  }

  /** The directory. */
  get location(): string {
    return this.dir;
  }

  /**
   * Open the store in `dir`, creating it unless `create` is false (then a missing store is
   * `not_found`); rebuilds the index if it is missing or of an older layout, else catches it
   * up with the files.
   */
  static async open(dir: string, options: { create?: boolean } = {}): Promise<DirectoryStore> {
    if (options.create === false) {
      const info = await Deno.stat(dir).catch(() => undefined);
      if (!info?.isDirectory) {
        throw new IoError(
          "not_found",
          `no proof store at ${dir} (a run creates it; --store or EMPIRIC_STORE picks another)`,
        );
      }
    }
    try {
      await Deno.mkdir(dir, { recursive: true });
    } catch (e) {
      throw new IoError(
        "io_error",
        `cannot create the proof store ${dir}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    const dbPath = `${dir}/index.sqlite`;
    const fresh = !(await Deno.stat(dbPath).then(() => true, () => false));
    let db: DatabaseSync;
    let rebuilt: number[] = [];
    try {
      db = new DatabaseSync(dbPath, { timeout: 15_000 });
      db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
      rebuilt = migrateIndex(db, dbPath);
    } catch (e) {
      if (e instanceof EmpiricError) throw e;
      throw new IoError(
        "io_error",
        `cannot open the proof index ${dbPath}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    const store = new DirectoryStore(dir, db);
    store.#migrated = rebuilt;
    if (fresh || rebuilt.length > 0) await store.reindex();
    else await store.catchUp();
    return store;
  }

  /** What the last {@link catchUp} or {@link reindex} found out of step. */
  get consistency(): StoreConsistency {
    return this.#consistency;
  }

  /** The index layout is brought up to date on open; this reports what that did. */
  migrate(): Promise<MigrationState> {
    const applied = this.#migrated;
    this.#migrated = [];
    return Promise.resolve({ version: DIRECTORY_INDEX_VERSION, applied });
  }

  /**
   * Bring the index up to the files: index record files the index lacks (a run killed between
   * its rename and its insert), drop rows whose file is gone, and remove temporary files left
   * by a writer killed mid-write (older than {@link STALE_TEMPORARY_MS}). Cheap when nothing is
   * missing: one directory listing and one query.
   */
  async catchUp(): Promise<StoreConsistency> {
    const { files, temporaries } = await this.#scan();
    const rows = new Set(
      (this.#db.prepare("SELECT proof_id FROM proofs").all() as { proof_id: string }[]).map((r) =>
        r.proof_id
      ),
    );
    const missing = [...files.keys()].filter((id) => !rows.has(id));
    const gone = [...rows].filter((id) => !files.has(id));
    let indexed = 0;
    let removedRows = 0;
    if (missing.length > 0 || gone.length > 0) {
      const entries = await this.#readEntries(missing.map((id) => files.get(id)!));
      this.#transaction(() => {
        for (const e of entries) this.#insert(e);
        removedRows = this.#deleteIfFileGone(gone);
      });
      indexed = entries.length;
    }
    const staleTemporaries = await this.#removeStale(temporaries);
    this.#consistency = { indexed, removedRows, staleTemporaries };
    return this.#consistency;
  }

  /** Path of a record file. */
  pathOf(proofId: string): string {
    return `${this.dir}/${proofId}.json`;
  }

  /** Path of a bundle part's file. */
  partPath(proofId: string, part: BundlePartName): string {
    return `${this.dir}/${proofId}${BUNDLE_PARTS[part]}`;
  }

  /** Write a record (pretty JSON) and its parts, and index it. */
  async put(record: ProofRecord, parts: BundleParts = {}): Promise<PutResult> {
    const bytes = new TextEncoder().encode(prettyJson(record as unknown as JsonValue));
    return await this.#store(bytes, requireIndexFields(record as unknown as JsonValue), parts);
  }

  /** Keep a record's exact bytes and its parts (parts first), and index it. */
  async putBytes(
    bytes: Uint8Array,
    parts: BundleParts = {},
    parsed?: JsonValue,
  ): Promise<PutResult> {
    return await this.#store(bytes, requireIndexFields(parsed ?? parseJson(bytes)), parts);
  }

  async #store(bytes: Uint8Array, fields: IndexFields, parts: BundleParts): Promise<PutResult> {
    const id = fields.proof_id;
    const partsAdded: BundlePartName[] = [];
    for (const name of BUNDLE_PART_NAMES) {
      const part = parts[name];
      if (part !== undefined && await createFileAtomic(this.partPath(id, name), part)) {
        partsAdded.push(name);
      }
    }
    const path = this.pathOf(id);
    const created = await createFileAtomic(path, bytes);
    this.#insert(fields);
    return { path, entry: entryOf(fields, path), created, partsAdded };
  }

  #insert(e: IndexFields): void {
    this.#db.prepare(
      `INSERT OR REPLACE INTO proofs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      e.proof_id,
      e.scenario,
      e.substrate,
      e.outcome,
      e.metric,
      Number.isFinite(e.observed_value) ? e.observed_value : null,
      e.created_at,
      e.created_ms,
    );
  }

  /** Read one record's exact bytes, or undefined if the store does not have it. */
  async getBytes(proofId: string): Promise<Uint8Array | undefined> {
    if (!PROOF_ID.test(proofId)) return undefined;
    return await readIfExists(this.pathOf(proofId));
  }

  /** Read one record's text, or undefined if the store does not have it. */
  async getText(proofId: string): Promise<string | undefined> {
    const bytes = await this.getBytes(proofId);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }

  /** A record with the parts stored beside it. */
  async getBundle(proofId: string): Promise<StoredBundle | undefined> {
    const record = await this.getBytes(proofId);
    if (record === undefined) return undefined;
    const parts: BundleParts = {};
    for (const name of BUNDLE_PART_NAMES) {
      const bytes = await readIfExists(this.partPath(proofId, name));
      if (bytes !== undefined) parts[name] = bytes;
    }
    return { proof_id: proofId, record, parts };
  }

  /** Index entries, newest first, with the cursor of the next page. */
  async list(filter: ListFilter = {}): Promise<ListPage> {
    const { where, args } = filterSql(filter);
    if (filter.cursor !== undefined) {
      const key = decodeCursor(filter.cursor);
      // A row value: SQLite seeks the (created_ms, proof_id) index to it.
      where.push("(created_ms, proof_id) < (?, ?)");
      args.push(key.created_ms, key.proof_id);
    }
    const limit = filter.limit;
    const sql = `SELECT ${COLUMNS} FROM proofs ${
      where.length ? "WHERE " + where.join(" AND ") : ""
    } ORDER BY created_ms DESC, proof_id DESC LIMIT ? OFFSET ?`;
    const rows = this.#db.prepare(sql).all(
      ...args,
      limit === undefined ? -1 : limit + 1,
      filter.offset ?? 0,
    ) as unknown as IndexRow[];
    return await Promise.resolve(pageOf(rows, limit, (id) => this.pathOf(id)));
  }

  /** Number of entries matching a filter. */
  async count(filter: IndexFilter = {}): Promise<number> {
    const { where, args } = filterSql(filter);
    const row = this.#db.prepare(
      `SELECT COUNT(*) AS n FROM proofs ${where.length ? "WHERE " + where.join(" AND ") : ""}`,
    ).get(...args) as { n: number };
    return await Promise.resolve(Number(row.n));
  }

  /** The latest proof of this scenario on this substrate (ties: the greater proof_id). */
  async predecessor(scenario: string, substrate: string): Promise<LineageLink | undefined> {
    const row = this.#db.prepare(
      "SELECT proof_id FROM proofs WHERE scenario = ? AND substrate = ? ORDER BY created_ms DESC, proof_id DESC LIMIT 1",
    ).get(scenario, substrate) as { proof_id: string } | undefined;
    return row ? await this.link(row.proof_id) : undefined;
  }

  /** A link to a proof, with its result entity's node id when the store has the record. */
  async link(proofId: string): Promise<LineageLink> {
    return linkOf(proofId, await this.getBytes(proofId).catch(() => undefined));
  }

  /**
   * Rebuild the index from the record files; returns the number of records indexed. Safe
   * while other processes write: rows are only ever added or replaced, and a row is removed
   * only when its file is gone at that moment (inside the write transaction), so a record a
   * concurrent run stores while this runs is never lost from the index.
   */
  async reindex(): Promise<number> {
    const { files, temporaries } = await this.#scan();
    const entries = await this.#readEntries([...files.values()]);
    let removedRows = 0;
    this.#transaction(() => {
      const rows = (this.#db.prepare("SELECT proof_id FROM proofs").all() as {
        proof_id: string;
      }[]).map((r) => r.proof_id).filter((id) => !files.has(id));
      removedRows = this.#deleteIfFileGone(rows);
      for (const e of entries) this.#insert(e);
    });
    const staleTemporaries = await this.#removeStale(temporaries);
    this.#consistency = { indexed: entries.length, removedRows, staleTemporaries };
    return entries.length;
  }

  async #scan(): Promise<{ files: Map<string, string>; temporaries: string[] }> {
    const files = new Map<string, string>();
    const temporaries: string[] = [];
    for await (const e of Deno.readDir(this.dir)) {
      if (!e.isFile) continue;
      const m = RECORD_FILE.exec(e.name);
      if (m) files.set(m[1], `${this.dir}/${e.name}`);
      else if (TEMPORARY_FILE.test(e.name)) temporaries.push(`${this.dir}/${e.name}`);
    }
    return { files, temporaries };
  }

  async #readEntries(paths: string[]): Promise<IndexFields[]> {
    const entries: IndexFields[] = [];
    for (const path of paths) {
      try {
        const entry = indexFieldsOf(parseJson(await Deno.readFile(path)));
        if (entry && path.endsWith(`/${entry.proof_id}.json`)) entries.push(entry);
      } catch {
        // not a readable record: left out of the index; `schema validate` reports it
      }
    }
    return entries;
  }

  #deleteIfFileGone(ids: string[]): number {
    let n = 0;
    const del = this.#db.prepare("DELETE FROM proofs WHERE proof_id = ?");
    for (const id of ids) {
      let exists = true;
      try {
        Deno.statSync(this.pathOf(id));
      } catch {
        exists = false;
      }
      if (!exists) n += Number(del.run(id).changes);
    }
    return n;
  }

  async #removeStale(temporaries: string[]): Promise<number> {
    let n = 0;
    const now = Date.now();
    for (const path of temporaries) {
      try {
        const info = await Deno.stat(path);
        const age = now - (info.mtime?.getTime() ?? now);
        if (age > STALE_TEMPORARY_MS) {
          await Deno.remove(path);
          n++;
        }
      } catch {
        // already gone (its writer finished or another process removed it)
      }
    }
    return n;
  }

  #transaction(f: () => void): void {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      f();
      this.#db.exec("COMMIT");
    } catch (e) {
      this.#db.exec("ROLLBACK");
      throw e;
    }
  }

  /** Close the index. */
  close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
    return Promise.resolve();
  }
}

/**
 * Bring the SQLite index to {@link DIRECTORY_INDEX_VERSION}: an index of an older layout is
 * dropped (the caller rebuilds it from the files). Returns the versions applied.
 */
function migrateIndex(db: DatabaseSync, dbPath: string): number[] {
  const version = () =>
    Number((db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version);
  if (version() === DIRECTORY_INDEX_VERSION) return [];
  db.exec("BEGIN IMMEDIATE");
  try {
    const now = version();
    if (now > DIRECTORY_INDEX_VERSION) {
      throw new EmpiricError(
        "store_unavailable",
        `the proof index ${dbPath} has layout ${now}, newer than this empiric knows (${DIRECTORY_INDEX_VERSION}): upgrade empiric, or remove index.sqlite to rebuild it from the record files`,
      );
    }
    if (now === DIRECTORY_INDEX_VERSION) {
      db.exec("COMMIT");
      return [];
    }
    db.exec("DROP TABLE IF EXISTS proofs");
    db.exec(`CREATE TABLE proofs (
      proof_id TEXT PRIMARY KEY, scenario TEXT NOT NULL, substrate TEXT NOT NULL,
      outcome TEXT NOT NULL, metric TEXT NOT NULL, observed_value REAL,
      created_at TEXT NOT NULL, created_ms INTEGER NOT NULL)`);
    db.exec("CREATE INDEX proofs_newest ON proofs (created_ms, proof_id)");
    db.exec(
      "CREATE INDEX proofs_by_scenario ON proofs (scenario, substrate, created_ms, proof_id)",
    );
    db.exec("CREATE INDEX proofs_by_substrate ON proofs (substrate, created_ms, proof_id)");
    db.exec("CREATE INDEX proofs_by_outcome ON proofs (outcome, created_ms, proof_id)");
    db.exec(
      "CREATE INDEX proofs_by_scenario_outcome ON proofs (scenario, outcome, created_ms, proof_id)",
    );
    db.exec(`PRAGMA user_version = ${DIRECTORY_INDEX_VERSION}`);
    db.exec("COMMIT");
    return [DIRECTORY_INDEX_VERSION];
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}

async function readIfExists(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new IoError("io_error", `cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
}
