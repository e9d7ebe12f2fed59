/**
 * `cmd:<command line>` substrates: long-running processes speaking JSON Lines. empiric writes one
 * input as one line of JSON to the process's stdin and reads one line of JSON from its stdout
 * (docs/scenarios.md, "The cmd: protocol"). With concurrency N, N processes run side by side.
 * A process that crashes, hangs past the timeout or answers garbage fails that call and is
 * restarted for the next one.
 *
 * @module
 */
import { ScenarioError } from "../errors/errors.ts";
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/value.ts";
import { type Substrate, SubstrateCallError } from "./types.ts";

/**
 * Split a command line into words: whitespace separates, single and double quotes group,
 * backslash escapes the next character outside single quotes.
 *
 * @example
 * ```ts
 * import { splitCommandLine } from "./cmd.ts";
 * const w = splitCommandLine(`python3 "my file.py" --name 'a b'`);
 * console.assert(w.length === 4 && w[1] === "my file.py" && w[3] === "a b");
 * ```
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) {
    throw new ScenarioError(
      "substrate_unavailable",
      `unterminated ${quote} in command line: ${line}`,
    );
  }
  if (inWord) words.push(cur);
  return words;
}

const STDERR_TAIL = 2048;

class Worker {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: string[] = [];
  #partial = "";
  #waiter: ((line: string | null) => void) | null = null;
  #closed = false;
  #stderr = "";
  readonly exited: Promise<Deno.CommandStatus>;
  alive = true;

  constructor(argv: string[], env: Record<string, string> | undefined, cwd: string | undefined) {
    try {
      this.#child = new Deno.Command(argv[0], {
        args: argv.slice(1),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        env,
        cwd,
      }).spawn();
    } catch (e) {
      throw new ScenarioError(
        "substrate_unavailable",
        `cannot start ${argv[0]}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    this.#writer = this.#child.stdin.getWriter();
    this.#pump(this.#child.stdout, (s) => this.#onStdout(s));
    this.#pump(this.#child.stderr, (s) => {
      this.#stderr = (this.#stderr + s).slice(-STDERR_TAIL);
    });
    this.exited = this.#child.status.then((st) => {
      this.alive = false;
      return st;
    });
  }

  async #pump(stream: ReadableStream<Uint8Array>, sink: (s: string) => void): Promise<void> {
    const dec = new TextDecoder();
    try {
      for await (const chunk of stream) sink(dec.decode(chunk, { stream: true }));
    } catch {
      // stream torn down on kill
    }
    if (stream === this.#child.stdout) {
      this.#closed = true;
      this.#waiter?.(null);
      this.#waiter = null;
    }
  }

  #onStdout(s: string): void {
    this.#partial += s;
    let nl: number;
    while ((nl = this.#partial.indexOf("\n")) !== -1) {
      const line = this.#partial.slice(0, nl).replace(/\r$/, "");
      this.#partial = this.#partial.slice(nl + 1);
      if (this.#waiter) {
        const w = this.#waiter;
        this.#waiter = null;
        w(line);
      } else this.#lines.push(line);
    }
  }

  #nextLine(): Promise<string | null> {
    if (this.#lines.length > 0) return Promise.resolve(this.#lines.shift()!);
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  stderrTail(): string {
    return this.#stderr.trim().split("\n").slice(-3).join(" | ");
  }

  async call(input: JsonValue, signal: AbortSignal): Promise<JsonValue> {
    const onAbort = () => this.kill();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      try {
        await this.#writer.write(new TextEncoder().encode(canonicalize(input) + "\n"));
      } catch {
        // the process is gone; reported below from its exit status
      }
      const line = await this.#nextLine();
      if (signal.aborted) {
        throw new SubstrateCallError(
          "timeout",
          "no response before the timeout; process restarted",
        );
      }
      if (line === null) {
        const st = await this.exited;
        const tail = this.stderrTail();
        throw new SubstrateCallError(
          "crash",
          `process exited (${
            st.signal ? `signal ${st.signal}` : `code ${st.code}`
          }) before answering${tail ? `; stderr: ${tail}` : ""}`,
        );
      }
      try {
        return parseJson(line);
      } catch (e) {
        this.kill(); // out of step with the protocol: start afresh
        throw new SubstrateCallError(
          "invalid_response",
          `answer is not one line of JSON (${(e as Error).message}): ${
            JSON.stringify(line.slice(0, 80))
          }`,
        );
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }

  async close(): Promise<void> {
    if (this.alive) {
      try {
        await this.#writer.close();
      } catch {
        // ignore
      }
      const done = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 2000)),
      ]);
      if (!done) this.kill();
    }
    await this.exited.catch(() => undefined);
  }
}

/** Options of {@link openCmdSubstrate}. */
export interface CmdOptions {
  /** Processes to run side by side (the scenario's probe concurrency). */
  concurrency: number;
  env?: Record<string, string>;
  cwd?: string;
}

/** Open a `cmd:` substrate; starts one process at once so that a bad command fails early. */
export function openCmdSubstrate(commandLine: string, options: CmdOptions): Substrate {
  const argv = splitCommandLine(commandLine);
  if (argv.length === 0) {
    throw new ScenarioError("substrate_unavailable", "cmd: needs a command line");
  }
  const idle: Worker[] = [new Worker(argv, options.env, options.cwd)];
  const all = new Set<Worker>(idle);
  let started = 1;
  const waiting: ((w: Worker) => void)[] = [];

  const acquire = (): Promise<Worker> => {
    while (idle.length > 0) {
      const w = idle.pop()!;
      if (w.alive) return Promise.resolve(w);
      all.delete(w);
      started--;
    }
    if (started < options.concurrency) {
      started++;
      const w = new Worker(argv, options.env, options.cwd);
      all.add(w);
      return Promise.resolve(w);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (w: Worker) => {
    if (!w.alive) {
      all.delete(w);
      started--;
      if (waiting.length > 0) {
        started++;
        try {
          const fresh = new Worker(argv, options.env, options.cwd);
          all.add(fresh);
          waiting.shift()!(fresh);
        } catch {
          started--;
        }
      }
      return;
    }
    const next = waiting.shift();
    if (next) next(w);
    else idle.push(w);
  };

  const program = argv[0].split(/[\\/]/).pop() ?? argv[0];
  return {
    spec: `cmd:${commandLine}`,
    defaultName: argv.length > 1 && /\.(py|js|ts|rb|sh|pl)$/.test(argv[1])
      ? argv[1].split(/[\\/]/).pop()!
      : program,
    call: async (input, signal) => {
      let w: Worker;
      try {
        w = await acquire();
      } catch (e) {
        throw new SubstrateCallError("crash", (e as Error).message);
      }
      try {
        return await w.call(input, signal);
      } finally {
        release(w);
      }
    },
    close: async () => {
      await Promise.all([...all].map((w) => w.close()));
    },
  };
}
