/**
 * Opening a proof store by its location: a directory path (records as files with an SQLite
 * index, {@link DirectoryStore}) or a `postgres://` / `postgresql://` URL (a PostgreSQL
 * database, {@link PgStore}). Both implement {@link ProofStore}; docs/store.md describes them.
 *
 * @module
 */
import { loadModule } from "../lazy/load.ts";
import { DirectoryStore } from "./directory.ts";
import { isDatabaseLocation, parsePgLocation } from "./pg_config.ts";
import type { ProofStore } from "./types.ts";

export { DIRECTORY_INDEX_VERSION, DirectoryStore, STALE_TEMPORARY_MS } from "./directory.ts";
export { createFileAtomic, writeFileAtomic } from "../fs/atomic.ts";
export { indexFieldsOf } from "./keys.ts";
export { isDatabaseLocation, redact } from "./pg_config.ts";
export type * from "./types.ts";
export { BUNDLE_PART_NAMES, BUNDLE_PARTS } from "./types.ts";

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * Create the store when it does not exist (default true): the directory, or the database's
   * tables (migrations applied). With false, a missing store is `not_found`.
   */
  create?: boolean;
  /** Environment variables (the `PG*` fallbacks of a database URL). */
  env?: (name: string) => string | undefined;
  /** Read a text file, undefined when missing (certificates named in a database URL). */
  readText?: (path: string) => Promise<string | undefined>;
}

/**
 * Open the store at a location.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "./store.ts";
 * const store = await openStore(await Deno.makeTempDir());
 * assert.equal(store.kind, "directory");
 * await store.close();
 * ```
 */
export async function openStore(
  location: string,
  options: OpenStoreOptions = {},
): Promise<ProofStore> {
  if (!isDatabaseLocation(location)) {
    return await DirectoryStore.open(location, { create: options.create });
  }
  const config = await parsePgLocation(location, {
    env: options.env ?? ((name) => Deno.env.get(name)),
    readText: options.readText ??
      ((path) =>
        Deno.readTextFile(path).catch((e) => {
          if (e instanceof Deno.errors.NotFound) return undefined;
          throw e;
        })),
  });
  // Loaded only for a database location: directory users never load the client.
  const { PgStore } = await loadModule<typeof import("./postgres.ts")>(
    "./postgres.ts",
    import.meta.url,
  );
  return await PgStore.open(config, { create: options.create });
}
