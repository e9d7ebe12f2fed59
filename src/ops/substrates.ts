/**
 * The substrate specifications a caller may use, for completions and help: the built-ins,
 * `http(s)://` URLs, and `cmd:` only where the caller may start processes (the same rule
 * `invoke` applies).
 *
 * @module
 */
import { builtinSubstrates } from "../substrate/builtin.ts";
import type { OpHost } from "./context.ts";

/**
 * Substrate specifications (or their prefixes) this host's callers may name, starting with
 * `prefix`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { substrateSuggestions } from "./substrates.ts";
 * const network = { caller: "network", allowClientCmd: false } as const;
 * assert.ok(substrateSuggestions(network).includes("builtin:echo"));
 * assert.ok(!substrateSuggestions(network).includes("cmd:"));
 * assert.ok(substrateSuggestions({ caller: "local", allowClientCmd: false }).includes("cmd:"));
 * ```
 */
export function substrateSuggestions(
  host: Pick<OpHost, "caller" | "allowClientCmd">,
  prefix = "",
): string[] {
  const all = [
    ...builtinSubstrates().map((b) => `builtin:${b.name}`),
    "http://",
    "https://",
    ...(host.caller === "local" || host.allowClientCmd ? ["cmd:"] : []),
  ];
  return all.filter((s) => s.startsWith(prefix));
}
