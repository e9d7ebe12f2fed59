#!/usr/bin/env -S deno run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys
/**
 * The `empiric` command-line entry point. Everything lives in `src/`; this file only connects
 * the CLI to the process.
 *
 * @module
 */
import { main } from "./src/cli/main.ts";
import { denoHost } from "./src/cli/deno_host.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args, denoHost()));
}
