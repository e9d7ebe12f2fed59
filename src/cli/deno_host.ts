/**
 * The real {@link CliHost} on Deno.
 *
 * @module
 */
import type { CliHost, DirEntry } from "./host.ts";

const encoder = new TextEncoder();

function writeAll(file: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
}

/** A host backed by the Deno runtime. */
export function denoHost(): CliHost {
  return {
    stdout: (text) => writeAll(Deno.stdout, encoder.encode(text)),
    stdoutBytes: (bytes) => writeAll(Deno.stdout, bytes),
    stderr: (text) => writeAll(Deno.stderr, encoder.encode(text)),
    env: (name) => Deno.env.get(name),
    readFile: (path) => Deno.readFile(path),
    readStdin: async () => new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer()),
    readDir: async function* (path): AsyncIterable<DirEntry> {
      for await (const e of Deno.readDir(path)) yield e;
    },
    stat: async (path) => {
      try {
        const s = await Deno.stat(path);
        return s.isDirectory ? "directory" : s.isFile ? "file" : "other";
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return "missing";
        throw e;
      }
    },
    isTerminal: (stream) => (stream === "stdout" ? Deno.stdout : Deno.stderr).isTerminal(),
    onInterrupt: (f) => {
      const sigs: ("SIGINT" | "SIGTERM")[] = Deno.build.os === "windows"
        ? ["SIGINT"]
        : ["SIGINT", "SIGTERM"];
      const handlers = sigs.map((s) => [s, () => f(s)] as const);
      for (const [s, h] of handlers) Deno.addSignalListener(s, h);
      return () => {
        for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
      };
    },
  };
}
