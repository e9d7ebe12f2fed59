/**
 * `empiric canonicalize`.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { decodeUtf8 } from "../../json/parse.ts";
import { canonicalizeValueOp, createOpHost, invoke, type OpsEnvironment } from "../../ops/mod.ts";
import { readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";

/** The `canonicalize` command. */
export function canonicalizeCommand(
  host: CliHost,
  env: () => Promise<OpsEnvironment>,
): AnyCommand {
  return new Command("canonicalize")
    .summary("Write the canonical bytes (or SHA-256) of any JSON value")
    .description(
      "Write the canonical bytes of any JSON value (wire-format rules R1-R11): no trailing newline.\n" +
        "Reads PATH, or standard input when PATH is - or absent.",
    )
    .argument("[path]", "JSON file, or - for standard input")
    .option("--sha256", "print the SHA-256 of the canonical bytes (hex) instead of the bytes")
    .option("--json", "print {canonical, bytes, sha256} as JSON (the canonicalize_value result)")
    .action(async (path, opts) => {
      const ops = createOpHost({ caller: "local", env: await env() });
      const value_json = decodeUtf8(await readInput(host, path));
      const r = await invoke(canonicalizeValueOp, { value_json }, ops);
      if (opts.json) host.stdout(JSON.stringify(r) + "\n");
      else if (opts.sha256) host.stdout(r.sha256 + "\n");
      else host.stdout(r.canonical);
    });
}
