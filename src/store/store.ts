/**
 * The embedded proof store: a directory of `<proof_id>.json` record files, each written
 * atomically (temporary file, then rename), with an SQLite index (`index.sqlite`, WAL mode)
 * that stays correct with several writers at once and can always be rebuilt from the files.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { IoError } from "../errors/errors.ts";
import { prettyJson } from "../json/pretty.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonValue } from "../json/value.ts";
import type { ProofRecord } from "../record/types.ts";

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

/** Filters and paging of {@link ProofStore.list}. */
export interface ListFilter {
  scenario?: string;
  substrate?: string;
  outcome?: string;
  limit?: number;
  offset?: number;
}

const COMMAND = /^empiric run (\S+) --substrate (.+)$/;

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

  /** Open (creating if needed) the store in `dir`; rebuilds the index if it is missing. */
  static async open(dir: string): Promise<ProofStore> {
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
    return store;
  }

  /** Path of a record file. */
  pathOf(proofId: string): string {
    return `${this.dir}/${proofId}.json`;
  }

  /** Write a record atomically and index it. */
  async put(record: ProofRecord): Promise<{ path: string; entry: IndexEntry }> {
    const id = record.identity.proof_id;
    const path = this.pathOf(id);
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

  /** Index entries, newest first. */
  list(filter: ListFilter = {}): IndexEntry[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    for (const k of ["scenario", "substrate", "outcome"] as const) {
      if (filter[k] !== undefined) {
        where.push(`${k} = ?`);
        args.push(filter[k]!);
      }
    }
    const sql =
      `SELECT proof_id, scenario, substrate, outcome, metric, observed_value, created_at, path FROM proofs
      ${
        where.length
          ? "WHERE " + where.join(" AND ")
          : ""
      } ORDER BY created_at DESC, proof_id LIMIT ? OFFSET ?`;
    args.push(filter.limit ?? -1, filter.offset ?? 0);
    return this.#db.prepare(sql).all(...args) as unknown as IndexEntry[];
  }

  /** Number of entries matching a filter. */
  count(filter: Omit<ListFilter, "limit" | "offset"> = {}): number {
    return this.list(filter).length;
  }

  /** Earlier proofs of the same scenario on the same substrate, oldest first. */
  lineage(scenario: string, substrate: string): string[] {
    const rows = this.#db.prepare(
      "SELECT proof_id FROM proofs WHERE scenario = ? AND substrate = ? ORDER BY created_at, proof_id",
    ).all(scenario, substrate) as { proof_id: string }[];
    return rows.map((r) => r.proof_id);
  }

  /** Rebuild the index from the record files; returns the number of records indexed. */
  async reindex(): Promise<number> {
    const entries: IndexEntry[] = [];
    for await (const e of Deno.readDir(this.dir)) {
      if (!e.isFile || !/^[0-9a-f]{64}\.json$/.test(e.name)) continue;
      const path = `${this.dir}/${e.name}`;
      try {
        const entry = indexEntryOf(parseJson(await Deno.readFile(path)), path);
        if (entry) entries.push(entry);
      } catch {
        // not a readable record: left out of the index; `schema validate` reports it
      }
    }
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      this.#db.exec("DELETE FROM proofs");
      for (const e of entries) this.#insert(e);
      this.#db.exec("COMMIT");
    } catch (e) {
      this.#db.exec("ROLLBACK");
      throw e;
    }
    return entries.length;
  }

  /** Close the index. */
  close(): void {
    this.#db.close();
  }
}

/**
 * Write a text file atomically: a temporary file in the same directory, flushed, then renamed
 * over the target. Readers see the old file or the new one, never half of one.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const tmp = `${dir}/.${path.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
  try {
    const f = await Deno.open(tmp, { write: true, createNew: true });
    try {
      const bytes = new TextEncoder().encode(text);
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
    } finally {
      f.close();
    }
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => undefined);
    throw new IoError("io_error", `cannot write ${path}: ${(e as Error).message}`, { cause: e });
  }
}
