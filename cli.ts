#!/usr/bin/env -S deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys
/**
 * The `empiric` command-line entry point. Everything lives in `src/`; this file only connects
 * the CLI to the process.
 *
 * @module
 */
import { runEntry } from "./src/cli/entry.ts";

if (import.meta.main) {
  Deno.exit(await runEntry(Deno.args));
}
