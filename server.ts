#!/usr/bin/env -S deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys
/**
 * The HTTP server entry point: `deno run ... server.ts [options]` is `empiric http serve
 * [options]` (same options, same behaviour; see docs/http.md). Useful as the entry of a
 * server-only binary (`deno compile ... server.ts`).
 *
 * @module
 */
import { runEntry } from "./src/cli/entry.ts";

if (import.meta.main) {
  Deno.exit(await runEntry(["http", "serve", ...Deno.args]));
}
