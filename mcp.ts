#!/usr/bin/env -S deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys
/**
 * The MCP entry point: the same as `empiric mcp serve` (stdio unless `--transport` says
 * otherwise; every argument is passed on). Standard output carries JSON-RPC only.
 *
 * @module
 */
import { runEntry } from "./src/cli/entry.ts";

if (import.meta.main) {
  Deno.exit(await runEntry(["mcp", "serve", ...Deno.args]));
}
