/**
 * Store administration, for local callers (`empiric store migrate`, `empiric store copy`):
 * bring a store's schema up to date, and move every record of one store into another (a
 * directory into PostgreSQL or back), verifying each on the way.
 *
 * @module
 */
import { z } from "zod";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import type { ProofStore } from "../store/types.ts";
import type { OpContext } from "./context.ts";
import { loadModule } from "../lazy/load.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, ProofId } from "./schemas.ts";

/** `migrate_store` output. */
export const MigrateStoreOutput = z.object({
  store: z.string().describe("The store (a database URL without its password, or a directory)"),
  kind: z.enum(["directory", "postgres"]),
  version: z.number().int().describe("Schema version now"),
  applied: z.array(z.number().int()).describe("Versions applied by this call"),
}).register(COMPONENTS, { id: "MigrateStoreOutput" });

/** The `migrate_store` operation (local: `empiric store migrate`). */
export const migrateStoreOp = defineOperation({
  name: "migrate_store",
  title: "Bring a store's schema up to date",
  description:
    "Apply the store's pending schema migrations (PostgreSQL: numbered migrations, recorded in empiric_schema_migrations; directory: the SQLite index is rebuilt when its layout is older). Safe with servers running: each migration is applied once, under a lock.",
  access: "write",
  exposure: [],
  input: z.strictObject({}),
  output: MigrateStoreOutput,
  run: async (_input, ctx) => {
    const store = await ctx.store();
    const m = await store.migrate();
    return { store: store.location, kind: store.kind, ...m };
  },
});

/** `copy_store` input. */
export const CopyStoreInput = z.strictObject({
  from: z.string().min(1).describe("The source store: a directory or a postgres:// URL"),
  to: z.string().min(1).describe("The target store (created when missing)"),
});

/** One record that was not copied. */
const CopyFailure = z.object({
  proof_id: ProofId,
  code: z.string(),
  message: z.string(),
});

/** `copy_store` output. */
export const CopyStoreOutput = z.object({
  from: z.string(),
  to: z.string(),
  records: z.number().int().describe("Records read from the source"),
  copied: z.number().int().describe("Records the target did not have, now stored"),
  already_there: z.number().int().describe("Records the target already had (kept)"),
  parts: z.number().int().describe("Bundle parts stored in the target"),
  failed: z.array(CopyFailure).describe("Records refused: they do not verify under the key"),
}).register(COMPONENTS, { id: "CopyStoreOutput" });

/** The result of `copy_store`. */
export type CopyStoreResult = z.infer<typeof CopyStoreOutput>;

async function openOther(ctx: OpContext, location: string, create: boolean): Promise<ProofStore> {
  const { openStore } = await loadModule<typeof import("../store/store.ts")>(
    "../store/store.ts",
    import.meta.url,
  );
  return await openStore(location, {
    create,
    env: (name) => ctx.env.env(name),
    readText: (path) => ctx.env.readText(path),
  });
}

const PAGE = 200;
const PARALLEL = 8;

/** The `copy_store` operation (local: `empiric store copy`). */
export const copyStoreOp = defineOperation({
  name: "copy_store",
  title: "Copy every record of one store into another",
  description:
    "Copy every record of the source store, with its bundle parts, into the target store (a directory into PostgreSQL or back). Each record is verified under the key and its parts checked against it before it is stored, byte for byte; records that do not verify are listed and left behind. The target keeps records it already has, so a copy can be repeated or resumed.",
  access: "write",
  exposure: [],
  input: CopyStoreInput,
  output: CopyStoreOutput,
  run: async (input, ctx) => {
    if (ctx.caller !== "local") {
      throw new EmpiricError("forbidden", "copy_store is for local callers only");
    }
    if (!ctx.key) throw new UsageError("a copy verifies every record: it needs the key");
    if (input.from === input.to) {
      throw new UsageError("--from and --to name the same store");
    }
    const { verifyAndStore } = await loadModule<typeof import("./ingest_proof_impl.ts")>(
      "./ingest_proof_impl.ts",
      import.meta.url,
    );
    const source = await openOther(ctx, input.from, false);
    let target: ProofStore | undefined;
    try {
      target = await openOther(ctx, input.to, true);
      const out: CopyStoreResult = {
        from: source.location,
        to: target.location,
        records: 0,
        copied: 0,
        already_there: 0,
        parts: 0,
        failed: [],
      };
      let cursor: string | undefined;
      do {
        ctx.signal?.throwIfAborted();
        const page = await source.list({ limit: PAGE, cursor });
        for (let i = 0; i < page.entries.length; i += PARALLEL) {
          await Promise.all(
            page.entries.slice(i, i + PARALLEL).map(async (e) => {
              const bundle = await source.getBundle(e.proof_id);
              if (!bundle) return; // removed while copying
              out.records++;
              try {
                const r = await verifyAndStore(
                  target!,
                  bundle.record,
                  bundle.parts,
                  ctx.key!.bytes,
                  {
                    allowDemoKey: true,
                  },
                );
                if (r.created) out.copied++;
                else out.already_there++;
                out.parts += r.partsAdded.length;
              } catch (err) {
                if (!(err instanceof EmpiricError) || err.code === "store_unavailable") throw err;
                out.failed.push({ proof_id: e.proof_id, code: err.code, message: err.message });
              }
            }),
          );
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      out.failed.sort((a, b) => (a.proof_id < b.proof_id ? -1 : 1));
      return out;
    } finally {
      await source.close();
      await target?.close();
    }
  },
});
