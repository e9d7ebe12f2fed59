/**
 * Shared helpers of CLI commands: key options, reading inputs, reporting.
 *
 * @module
 */
import type { Problem } from "../errors/errors.ts";
import { IoError } from "../errors/errors.ts";
import { type ResolvedKey, resolveKey } from "../ops/keys.ts";
import type { CliHost } from "./host.ts";

/** Options shared by commands that take a key. */
export interface KeyOptions {
  key?: string;
  keyFile?: string;
}

/** Resolve `--key`, `--key-file` or `EMPIRIC_SIGN_KEY` (and the demo key if asked). */
export async function cliKey(
  host: CliHost,
  opts: KeyOptions,
  demoFallback = false,
): Promise<ResolvedKey | undefined> {
  return await resolveKey({
    key: opts.key,
    keyFile: opts.keyFile,
    envKey: host.env("EMPIRIC_SIGN_KEY"),
    readFile: (p) => host.readFile(p),
    demoFallback,
  });
}

/** Read a file, or standard input for `-`; a missing file is `not_found`. */
export async function readInput(host: CliHost, path: string | undefined): Promise<Uint8Array> {
  if (path === undefined || path === "-") return await host.readStdin();
  try {
    return await host.readFile(path);
  } catch (e) {
    const kind = await host.stat(path).catch(() => "missing" as const);
    if (kind === "missing") throw new IoError("not_found", `no such file: ${path}`, { cause: e });
    if (kind === "directory") throw new IoError("io_error", `${path} is a directory`, { cause: e });
    throw new IoError("io_error", `cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** One line per problem: `code: message` with the pointer and position when known. */
export function formatProblem(p: Problem): string {
  const where = p.position && p.position.line > 0
    ? ` [line ${p.position.line}, column ${p.position.column}]`
    : "";
  return `${p.code}: ${p.message}${
    p.pointer !== undefined && !p.message.startsWith(p.pointer || "/")
      ? ` (at ${p.pointer || "/"})`
      : ""
  }${where && !p.message.includes("(line ") ? where : ""}`;
}
