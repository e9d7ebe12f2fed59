/**
 * Open a substrate from its `--substrate` specification.
 *
 * @module
 */
import { ScenarioError } from "../errors/errors.ts";
import { builtinSubstrates, openBuiltinSubstrate } from "./builtin.ts";
import { openCmdSubstrate } from "./cmd.ts";
import { openHttpSubstrate } from "./http.ts";
import type { Substrate } from "./types.ts";

/** Options for opening a substrate. */
export interface OpenOptions {
  env?: Record<string, string>;
  cwd?: string;
  fetch?: typeof fetch;
}

/**
 * `builtin:<name>`, `cmd:<command line>`, `http://…` or `https://…`.
 *
 * @example
 * ```ts
 * import { openSubstrate } from "./open.ts";
 * const s = openSubstrate("builtin:calculator");
 * console.assert(s.defaultName === "calculator");
 * ```
 */
export function openSubstrate(spec: string, options: OpenOptions = {}): Substrate {
  if (spec.startsWith("builtin:")) {
    const s = openBuiltinSubstrate(spec.slice("builtin:".length));
    if (!s) {
      throw new ScenarioError(
        "substrate_unavailable",
        `no built-in substrate ${JSON.stringify(spec)} (built-ins: ${
          builtinSubstrates().map((b) => `builtin:${b.name}`).join(", ")
        })`,
      );
    }
    return s;
  }
  if (spec.startsWith("cmd:")) {
    return openCmdSubstrate(spec.slice(4).trim(), { env: options.env, cwd: options.cwd });
  }
  if (/^https?:\/\//.test(spec)) return openHttpSubstrate(spec, options.fetch);
  throw new ScenarioError(
    "substrate_unavailable",
    `cannot tell what substrate ${
      JSON.stringify(spec)
    } is: use builtin:<name>, cmd:<command line>, or an http(s):// URL`,
  );
}
