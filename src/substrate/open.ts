/**
 * Open a substrate from its `--substrate` specification.
 *
 * @module
 */
import { openBuiltinSubstrate } from "./builtin.ts";
import { openCmdSubstrate } from "./cmd.ts";
import { openHttpSubstrate } from "./http.ts";
import { parseSubstrateSpec } from "./spec.ts";
import type { Substrate } from "./types.ts";

/** Options for opening a substrate. */
export interface OpenOptions {
  env?: Record<string, string>;
  cwd?: string;
  fetch?: typeof fetch;
}

/**
 * `builtin:<name>`, `cmd:<command line>`, `http://…` or `https://…` (checked by
 * {@link parseSubstrateSpec}: a malformed one is a `usage_error`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openSubstrate } from "./open.ts";
 * const s = openSubstrate("builtin:calculator");
 * assert.equal(s.defaultName, "calculator");
 * ```
 */
export function openSubstrate(spec: string, options: OpenOptions = {}): Substrate {
  const s = parseSubstrateSpec(spec);
  switch (s.kind) {
    case "builtin":
      return openBuiltinSubstrate(s.name)!;
    case "cmd":
      return openCmdSubstrate(s.commandLine, { env: options.env, cwd: options.cwd });
    case "http":
      return openHttpSubstrate(s.url, options.fetch);
  }
}
