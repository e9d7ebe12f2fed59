/**
 * Writing files so that readers never see half of one.
 *
 * @module
 */
import { IoError } from "../errors/errors.ts";

/**
 * Write a file atomically (text as UTF-8, or bytes as they are): a temporary file in the same
 * directory, flushed, then renamed over the target. Readers see the old file or the new one,
 * never half of one.
 */
export async function writeFileAtomic(path: string, text: string | Uint8Array): Promise<void> {
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const tmp = `${dir}/.${path.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
  try {
    const f = await Deno.open(tmp, { write: true, createNew: true });
    try {
      const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
    } finally {
      f.close();
    }
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => undefined);
    throw new IoError("io_error", `cannot write ${path}: ${(e as Error).message}`, { cause: e });
  }
}
