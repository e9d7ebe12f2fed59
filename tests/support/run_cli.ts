// Run the real CLI entry point (cli.ts) in a child process with the permission flags of the
// compiled binary, as `deno task empiric` does.
import { childEnv } from "./env.ts";

export const CLI_FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run",
  "--allow-sys",
];
const cli = new URL("../../cli.ts", import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `empiric <args>`; stdin text optional; env merged over a clean environment. */
export async function runCli(
  args: string[],
  options: { stdin?: string | Uint8Array; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliRun> {
  const env = childEnv(options.env);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, cli, ...args],
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env,
    clearEnv: true,
    cwd: options.cwd,
  }).spawn();
  // Write and read at once, so a large input cannot deadlock on full pipes.
  const feed = options.stdin === undefined ? Promise.resolve() : (async () => {
    const w = child.stdin.getWriter();
    await w.write(
      typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin,
    );
    await w.close();
  })();
  const [out] = await Promise.all([child.output(), feed]);
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
