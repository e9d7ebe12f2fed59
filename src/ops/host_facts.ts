/**
 * Facts about the machine and the substrate's runtime for a record's environment, where they
 * can be known cheaply: the CPU model and core count, and the version of the interpreter a
 * `cmd:` substrate runs under. Each fact is best effort: an unknowable one is left out, never
 * guessed.
 *
 * @module
 */

/** Interpreters whose `--version` names the runtime a `cmd:` substrate runs on. */
const INTERPRETERS = /^(python[0-9.]*|pypy[0-9.]*|node|deno|bun|ruby|perl|php|java|dotnet)$/;

/**
 * The CPU model named in `/proc/cpuinfo` text (Linux), or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cpuModelFromCpuinfo } from "./host_facts.ts";
 * assert.equal(cpuModelFromCpuinfo("processor\t: 0\nmodel name\t: AMD EPYC 7B13\n"), "AMD EPYC 7B13");
 * assert.equal(cpuModelFromCpuinfo("processor\t: 0\n"), undefined);
 * ```
 */
export function cpuModelFromCpuinfo(text: string): string | undefined {
  const m = /^(?:model name|Model|Hardware|cpu model)\s*:\s*(.+)$/m.exec(text);
  return m ? m[1].trim() : undefined;
}

/**
 * The interpreter a command line starts, when it is one whose version can be asked
 * (`python3 serve.py` gives `python3`), else undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { interpreterOf } from "./host_facts.ts";
 * assert.equal(interpreterOf(["/usr/bin/python3", "serve.py"]), "/usr/bin/python3");
 * assert.equal(interpreterOf(["./serve.sh"]), undefined);
 * ```
 */
export function interpreterOf(argv: readonly string[]): string | undefined {
  const first = argv[0];
  if (first === undefined) return undefined;
  const base = first.replace(/^.*[\\/]/, "").replace(/\.exe$/i, "").toLowerCase();
  return INTERPRETERS.test(base) ? first : undefined;
}

/** The first non-empty line of a version banner, trimmed to 120 characters. */
export function firstLine(text: string): string | undefined {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "");
  return line === undefined ? undefined : line.slice(0, 120);
}
