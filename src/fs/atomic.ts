/**
 * Writing files so that readers never see half of one.
 *
 * @module
 */
import { IoError } from "../errors/errors.ts";

/**
 * Write bytes to a new temporary file beside `path` (`.<name>.<uuid>.tmp`), flushed to disk;
 * returns its path. The caller renames or links it into place.
 */
export async function writeTemporaryFile(path: string, bytes: Uint8Array): Promise<string> {
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const tmp = `${dir}/.${path.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
  try {
    const f = await Deno.open(tmp, { write: true, createNew: true });
    try {
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
    } finally {
      f.close();
    }
  } catch (e) {
    await Deno.remove(tmp).catch(() => undefined);
    throw new IoError("io_error", `cannot write ${path}: ${(e as Error).message}`, { cause: e });
  }
  return tmp;
}

/**
 * Write a file atomically (text as UTF-8, or bytes as they are): a temporary file in the same
 * directory, flushed, then renamed over the target. Readers see the old file or the new one,
 * never half of one.
 */
export async function writeFileAtomic(path: string, text: string | Uint8Array): Promise<void> {
  const tmp = await writeTemporaryFile(
    path,
    typeof text === "string" ? new TextEncoder().encode(text) : text,
  );
  try {
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => undefined);
    throw new IoError("io_error", `cannot write ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Create a file atomically unless it exists: the bytes go to a temporary file in the same
 * directory, flushed, then hard-linked to the target, which fails when the target exists (so
 * of two writers exactly one creates it and the file is never replaced). Returns whether this
 * call created it. Where the file system has no hard links, an existence check and a rename
 * stand in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createFileAtomic } from "./atomic.ts";
 * const path = `${await Deno.makeTempDir()}/a.json`;
 * assert.equal(await createFileAtomic(path, new TextEncoder().encode("1")), true);
 * assert.equal(await createFileAtomic(path, new TextEncoder().encode("2")), false);
 * assert.equal(await Deno.readTextFile(path), "1");
 * ```
 */
export async function createFileAtomic(path: string, bytes: Uint8Array): Promise<boolean> {
  // Already there: nothing to write (the common case of a record pushed again).
  if (await Deno.lstat(path).then(() => true, () => false)) return false;
  const tmp = await writeTemporaryFile(path, bytes);
  try {
    await Deno.link(tmp, path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    if (await Deno.stat(path).then(() => true, () => false)) return false;
    try {
      await Deno.rename(tmp, path);
      return true;
    } catch (e2) {
      throw new IoError("io_error", `cannot write ${path}: ${(e2 as Error).message}`, {
        cause: e2,
      });
    }
  } finally {
    await Deno.remove(tmp).catch(() => undefined);
  }
}
