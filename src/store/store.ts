/**
 * The embedded proof store: a directory of `<proof_id>.json` record files, each written
 * atomically (temporary file, then rename), with an SQLite index (`index.sqlite`, WAL mode)
 * that stays correct with several writers at once and can always be rebuilt from the files.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { IoError } from "../errors/errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { prettyJson } from "../json/pretty.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonValue } from "../json/value.ts";
import type { ProofRecord } from "../record/types.ts";
import { type LineageLink, resultEntityOf } from "../record/lineage.ts";

/** One row of the proof index. */
export interface IndexEntry {
  proof_id: string;
  scenario: string;
  substrate: string;
  outcome: string;
  metric: string;
  observed_value: number;
  created_at: string;
  path: string;
}

/**
 * The bundle parts a record can be stored with, and their file names beside
 * `<proof_id>.json` (docs/record.md, "The bundle").
 */
export const BUNDLE_PARTS = {
  /** Per-item observations, canonical JSON lines (dataset kind `observations`). */
  observations: ".observations.jsonl",
  /** The normalized scenario (its canonical form hashes to `pre_registration.config_hash`). */
  scenario: ".scenario.json",
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

/** Filters and paging of {@link ProofStore.list}. */
export interface ListFilter {
  scenario?: string;
  substrate?: string;
  outcome?: string;
  limit?: number;
  offset?: number;
}

const COMMAND = /^empiric run (\S+) --substrate (.+)$/;

const RECORD_FILE = /^([0-9a-f]{64})\.json$/;
const TEMPORARY_FILE = /^\..*\.[0-9a-f-]{36}\.tmp$/;

/**
 * A temporary file older than this is left over from a writer that was killed (a write takes
 * milliseconds): opening the store removes it.
 */
export const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/** What {@link ProofStore.catchUp} or {@link ProofStore.reindex} found and repaired. */
export interface StoreConsistency {
  /** Record files added to the index (none missing: 0 on catch-up). */
  indexed: number;
  /** Index rows dropped because their file was gone. */
  removedRows: number;
  /** Temporary files of killed writers removed. */
  staleTemporaries: number;
}

function whereClause(
  filter: Omit<ListFilter, "limit" | "offset">,
): { where: string; args: string[] } {
  const where: string[] = [];
  const args: string[] = [];
  for (const k of ["scenario", "substrate", "outcome"] as const) {
    if (filter[k] !== undefined) {
      where.push(`${k} = ?`);
      args.push(filter[k]!);
    }
  }
  return { where: where.length ? "WHERE " + where.join(" AND ") : "", args };
}

/** Index fields of a record (scenario and substrate come from `reproduction.command`). */
export function indexEntryOf(record: JsonValue, path: string): IndexEntry | undefined {
  if (!isJsonObject(record)) return undefined;
  const id = isJsonObject(record.identity) ? record.identity : {};
  const verdict = isJsonObject(record.verdict) ? record.verdict : {};
  const repro = isJsonObject(record.reproduction) ? record.reproduction : {};
  const m = typeof repro.command === "string" ? COMMAND.exec(repro.command) : null;
  if (typeof id.proof_id !== "string" || !m) return undefined;
  const threshold = isJsonObject(verdict.threshold) ? verdict.threshold : {};
  return {
    proof_id: id.proof_id,
    scenario: m[1],
    substrate: m[2],
    outcome: typeof verdict.outcome === "string" ? verdict.outcome : "",
    metric: typeof threshold.metric === "string" ? threshold.metric : "",
    observed_value: typeof verdict.observed_value === "number"
      ? verdict.observed_value
      : Number(verdict.observed_value ?? NaN),
    created_at: typeof id.created_at === "string" ? id.created_at : "",
    path,
  };
}

/**
 * A directory store of proof records.
 *
 * @example
 * ```ts ignore
 * const store = await ProofStore.open("./proofs");
 * const { path } = await store.put(record);
 * console.log(store.list({ outcome: "REFUTED" }));
 * store.close();
 * ```
 */
export class ProofStore {
  readonly dir: string;
  #db: DatabaseSync;

  private constructor(dir: string, db: DatabaseSync) {
    this.dir = dir;
    this.#db = db;
  }

  /**
   * Open the store in `dir`, creating it unless `create` is false (then a missing store is
   * `not_found`); rebuilds the index if it is missing, else catches it up with the files.
   */
  static async open(dir: string, options: { create?: boolean } = {}): Promise<ProofStore> {
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
    try {
      db = new DatabaseSync(dbPath, { timeout: 15_000 });
      db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
      db.exec(`CREATE TABLE IF NOT EXISTS proofs (
        proof_id TEXT PRIMARY KEY, scenario TEXT NOT NULL, substrate TEXT NOT NULL,
        outcome TEXT NOT NULL, metric TEXT NOT NULL, observed_value REAL,
        created_at TEXT NOT NULL, path TEXT NOT NULL)`);
      db.exec(
        "CREATE INDEX IF NOT EXISTS proofs_by_scenario ON proofs (scenario, substrate, created_at)",
      );
    } catch (e) {
      throw new IoError(
        "io_error",
        `cannot open the proof index ${dbPath}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    const store = new ProofStore(dir, db);
    if (fresh) await store.reindex();
    else await store.catchUp();
    return store;
  }

  /** What the last {@link catchUp} or {@link reindex} found out of step. */
  get consistency(): StoreConsistency {
    return this.#consistency;
  }

  #consistency: StoreConsistency = { indexed: 0, removedRows: 0, staleTemporaries: 0 };

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

  /**
   * Write a record atomically with its bundle parts (each written atomically before the
   * record, so a reader that sees the record sees its parts), and index it.
   */
  async put(
    record: ProofRecord,
    parts: BundleParts = {},
  ): Promise<{ path: string; entry: IndexEntry }> {
    const id = record.identity.proof_id;
    const path = this.pathOf(id);
    for (const name of BUNDLE_PART_NAMES) {
      const bytes = parts[name];
      if (bytes !== undefined) await writeFileAtomic(this.partPath(id, name), bytes);
    }
    await writeFileAtomic(path, prettyJson(record as unknown as JsonValue));
    const entry = indexEntryOf(record as unknown as JsonValue, path)!;
    this.#insert(entry);
    return { path, entry };
  }

  #insert(e: IndexEntry): void {
    this.#db.prepare(
      `INSERT OR REPLACE INTO proofs (proof_id, scenario, substrate, outcome, metric, observed_value, created_at, path)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      e.proof_id,
      e.scenario,
      e.substrate,
      e.outcome,
      e.metric,
      Number.isFinite(e.observed_value) ? e.observed_value : null,
      e.created_at,
      e.path,
    );
  }

  /** Read one record's text, or undefined if the store does not have it. */
  async getText(proofId: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{64}$/.test(proofId)) return undefined;
    try {
      return await Deno.readTextFile(this.pathOf(proofId));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw new IoError(
        "io_error",
        `cannot read ${this.pathOf(proofId)}: ${(e as Error).message}`,
        { cause: e },
      );
    }
  }

  /** A record with the parts stored beside it, or undefined if the store does not have it. */
  async getBundle(proofId: string): Promise<StoredBundle | undefined> {
    if (!/^[0-9a-f]{64}$/.test(proofId)) return undefined;
    const read = async (path: string): Promise<Uint8Array | undefined> => {
      try {
        return await Deno.readFile(path);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return undefined;
        throw new IoError("io_error", `cannot read ${path}: ${(e as Error).message}`, {
          cause: e,
        });
      }
    };
    const record = await read(this.pathOf(proofId));
    if (record === undefined) return undefined;
    const parts: BundleParts = {};
    for (const name of BUNDLE_PART_NAMES) {
      const bytes = await read(this.partPath(proofId, name));
      if (bytes !== undefined) parts[name] = bytes;
    }
    return { proof_id: proofId, record, parts };
  }

  /** Index entries, newest first. */
  list(filter: ListFilter = {}): IndexEntry[] {
    const { where, args } = whereClause(filter);
    const sql =
      `SELECT proof_id, scenario, substrate, outcome, metric, observed_value, created_at, path FROM proofs
      ${where} ORDER BY created_at DESC, proof_id LIMIT ? OFFSET ?`;
    return this.#db.prepare(sql).all(
      ...args,
      filter.limit ?? -1,
      filter.offset ?? 0,
    ) as unknown as IndexEntry[];
  }

  /** Number of entries matching a filter. */
  count(filter: Omit<ListFilter, "limit" | "offset"> = {}): number {
    const { where, args } = whereClause(filter);
    const row = this.#db.prepare(`SELECT COUNT(*) AS n FROM proofs ${where}`).get(...args) as {
      n: number;
    };
    return Number(row.n);
  }

  /**
   * The direct predecessor of a new run: the latest proof of the same scenario on the same
   * substrate (the chain before it is walked through the store, proof by proof).
   */
  predecessor(scenario: string, substrate: string): LineageLink | undefined {
    const row = this.#db.prepare(
      "SELECT proof_id FROM proofs WHERE scenario = ? AND substrate = ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
    ).get(scenario, substrate) as { proof_id: string } | undefined;
    return row ? this.link(row.proof_id) : undefined;
  }

  /** A link to a proof, with its result entity's node id when the store has the record. */
  link(proofId: string): LineageLink {
    try {
      const entity = resultEntityOf(parseJson(Deno.readFileSync(this.pathOf(proofId))));
      return entity ? { proof_id: proofId, entity } : { proof_id: proofId };
    } catch {
      return { proof_id: proofId };
    }
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

  async #readEntries(paths: string[]): Promise<IndexEntry[]> {
    const entries: IndexEntry[] = [];
    for (const path of paths) {
      try {
        const entry = indexEntryOf(parseJson(await Deno.readFile(path)), path);
        if (entry) entries.push(entry);
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
  close(): void {
    this.#db.close();
  }
}

export { writeFileAtomic };
