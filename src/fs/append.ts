/**
 * Appending to a file another program reads (a CI job summary): one write of the whole text,
 * with the file opened for appending, so that writers appending at the same time never
 * interleave inside each other's text.
 *
 * @module
 */
import { IoError } from "../errors/errors.ts";

/**
 * Append text to a file, creating it if needed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { appendText } from "./append.ts";
 * const path = await Deno.makeTempFile();
 * await appendText(path, "a\n");
 * await appendText(path, "b\n");
 * assert.equal(await Deno.readTextFile(path), "a\nb\n");
 * await Deno.remove(path);
 * ```
 */
export async function appendText(path: string, text: string): Promise<void> {
  try {
    const f = await Deno.open(path, { append: true, create: true });
    try {
      const bytes = new TextEncoder().encode(text);
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
    } finally {
      f.close();
    }
  } catch (e) {
    throw new IoError("io_error", `cannot append to ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}
