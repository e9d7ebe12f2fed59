/**
 * The `--substrate` specification, checked before anything is opened: `builtin:<name>`,
 * `cmd:<command line>`, or an `http://` / `https://` URL. A malformed specification is the
 * caller's mistake (`usage_error`), never a substrate that failed.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { builtinSubstrates } from "./builtin.ts";

/** A checked substrate specification. */
export type SubstrateSpec =
  | { kind: "builtin"; name: string; spec: string }
  | { kind: "cmd"; commandLine: string; spec: string }
  | { kind: "http"; url: string; spec: string };

const FORMS = "builtin:<name>, cmd:<command line>, or an http(s):// URL";

/**
 * Check a substrate specification.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSubstrateSpec } from "./spec.ts";
 * assert.deepEqual(parseSubstrateSpec("builtin:echo"), {
 *   kind: "builtin",
 *   name: "echo",
 *   spec: "builtin:echo",
 * });
 * assert.throws(() => parseSubstrateSpec("CMD:id"), { code: "usage_error" });
 * assert.throws(() => parseSubstrateSpec("file:///etc/passwd"), { code: "usage_error" });
 * ```
 */
export function parseSubstrateSpec(spec: string): SubstrateSpec {
  if (typeof spec !== "string" || spec.length === 0) {
    throw new UsageError(`the substrate is empty: use ${FORMS}`);
  }
  if (spec !== spec.trim()) {
    throw new UsageError(
      `the substrate ${JSON.stringify(spec)} starts or ends with white space: use ${FORMS}`,
    );
  }
  if (spec.startsWith("builtin:")) {
    const name = spec.slice("builtin:".length);
    const names = builtinSubstrates().map((b) => b.name);
    if (!names.includes(name)) {
      throw new UsageError(
        `no built-in substrate ${JSON.stringify(spec)} (built-ins: ${
          names.map((n) => `builtin:${n}`).join(", ")
        })`,
      );
    }
    return { kind: "builtin", name, spec };
  }
  if (spec.startsWith("cmd:")) {
    const commandLine = spec.slice("cmd:".length).trim();
    if (commandLine === "") throw new UsageError("cmd: needs a command line, e.g. cmd:./serve.sh");
    return { kind: "cmd", commandLine, spec };
  }
  if (/^https?:\/\//.test(spec)) {
    let url: URL;
    try {
      url = new URL(spec);
    } catch {
      throw new UsageError(`the substrate URL ${JSON.stringify(spec)} is not a valid URL`);
    }
    if (url.username || url.password) {
      throw new UsageError(
        `the substrate URL ${JSON.stringify(spec)} carries credentials: pass them another way`,
      );
    }
    return { kind: "http", url: spec, spec };
  }
  const lower = spec.toLowerCase();
  const hint = ["builtin:", "cmd:", "http://", "https://"].find((p) => lower.startsWith(p));
  throw new UsageError(
    `cannot tell what substrate ${JSON.stringify(spec)} is: use ${FORMS}${
      hint ? ` (prefixes are lower case: ${hint})` : ""
    }`,
  );
}
