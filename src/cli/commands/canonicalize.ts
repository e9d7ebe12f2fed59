/**
 * `empiric canonicalize`.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { canonicalizeValue } from "../../ops/canonicalize_value.ts";
import { readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";

/** The `canonicalize` command. */
export function canonicalizeCommand(host: CliHost): AnyCommand {
  return new Command("canonicalize")
    .summary("Write the canonical bytes (or SHA-256) of any JSON value")
    .description(
      "Write the canonical bytes of any JSON value (wire-format rules R1-R11): no trailing newline.\n" +
        "Reads PATH, or standard input when PATH is - or absent.",
    )
    .argument("[path]", "JSON file, or - for standard input")
    .option("--sha256", "print the SHA-256 of the canonical bytes (hex) instead of the bytes")
    .option("--json", "print {canonical, bytes, sha256} as JSON")
    .action(async (path, opts) => {
      const r = await canonicalizeValue(await readInput(host, path));
      if (opts.json) host.stdout(JSON.stringify(r) + "\n");
      else if (opts.sha256) host.stdout(r.sha256 + "\n");
      else host.stdout(r.canonical);
    });
}
