/**
 * Checking, before work starts, that an output file can be written where asked: so that a run
 * does not measure for minutes and then fail to write its record.
 *
 * @module
 */
import { EmpiricError, IoError } from "../errors/errors.ts";

/**
 * Refuse an output path that exists (unless `force`), is a directory, or lies in a directory
 * that is missing or not writable (a probe file is created there and removed at once).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkOutputFile } from "./target.ts";
 * const dir = await Deno.makeTempDir();
 * await checkOutputFile(`${dir}/new.json`);
 * await Deno.writeTextFile(`${dir}/old.json`, "{}");
 * await assert.rejects(checkOutputFile(`${dir}/old.json`), /already exists.*--force/);
 * await checkOutputFile(`${dir}/old.json`, { force: true });
 * await assert.rejects(checkOutputFile(`${dir}/missing/x.json`), /cannot write/);
 * ```
 */
export async function checkOutputFile(
  path: string,
  options: { force?: boolean; option?: string } = {},
): Promise<void> {
  const option = options.option ?? "--out";
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw ioError(path, option, e);
  }
  if (info?.isDirectory) {
    throw new EmpiricError("usage_error", `${option} ${path} is a directory; name a file`);
  }
  if (info && !options.force) {
    throw new EmpiricError(
      "already_exists",
      `${option} ${path} already exists; give --force to replace it`,
    );
  }
  const slash = path.lastIndexOf("/");
  const dir = slash > 0 ? path.slice(0, slash) : slash === 0 ? "/" : ".";
  const probe = `${dir}/.empiric-write-check.${crypto.randomUUID()}`;
  try {
    (await Deno.open(probe, { write: true, createNew: true })).close();
  } catch (e) {
    throw ioError(path, option, e);
  }
  await Deno.remove(probe).catch(() => undefined);
}

function ioError(path: string, option: string, e: unknown): IoError {
  return new IoError("io_error", `${option} ${path}: cannot write there: ${(e as Error).message}`, {
    cause: e,
  });
}
