/**
 * `cmd:<command line>` substrates: long-running processes speaking JSON Lines. empiric writes one
 * input as one line of JSON to the process's stdin and reads one line of JSON from its stdout
 * (docs/scenarios.md, "The cmd: protocol"). With concurrency N, N lanes run side by side, each
 * owning one process; every process is started (and primed by the executor) before measuring. A
 * process that crashes, hangs past the timeout or answers garbage fails that call and is
 * restarted by its lane's `ready()`, outside any item's clock.
 *
 * Each call writes one line (not awaited: a dead process shows as a closed stdout) and reads the
 * answer straight from the stdout reader, the same work as a plain pipe driver (bench/run.ts
 * measures the difference).
 *
 * @module
 */
import { ScenarioError } from "../errors/errors.ts";
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/value.ts";
import { type Lane, type Substrate, SubstrateCallError } from "./types.ts";

/**
 * Split a command line into words: whitespace separates, single and double quotes group,
 * backslash escapes the next character outside single quotes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitCommandLine } from "./cmd.ts";
 * const w = splitCommandLine(`python3 "my file.py" --name 'a b'`);
 * assert.equal(w.length, 4);
 * assert.equal(w[1], "my file.py");
 * assert.equal(w[3], "a b");
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
const encoder = new TextEncoder();

class Worker {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #decoder = new TextDecoder();
  #buffer = "";
  #stderr = "";
  readonly exited: Promise<Deno.CommandStatus>;
  alive = true;
  /** Calls answered since the process started. */
  answered = 0;

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
    this.#reader = this.#child.stdout.getReader();
    this.#pumpStderr();
    this.exited = this.#child.status.then((st) => {
      this.alive = false;
      return st;
    });
  }

  async #pumpStderr(): Promise<void> {
    const dec = new TextDecoder();
    try {
      for await (const chunk of this.#child.stderr) {
        this.#stderr = (this.#stderr + dec.decode(chunk, { stream: true })).slice(-STDERR_TAIL);
      }
    } catch {
      // stream torn down on kill
    }
  }

  async #readLine(): Promise<string | null> {
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl !== -1) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        return line.endsWith("\r") ? line.slice(0, -1) : line;
      }
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await this.#reader.read();
      } catch {
        return null;
      }
      if (r.done) return null;
      this.#buffer += this.#decoder.decode(r.value, { stream: true });
    }
  }

  stderrTail(): string {
    return this.#stderr.trim().split("\n").slice(-3).join(" | ");
  }

  /** Set by {@link abort}: the call in flight was stopped on purpose. */
  #aborted = false;

  /** Kill the process for a timeout or a cancellation; the pending call then rejects. */
  abort(): void {
    this.#aborted = true;
    this.kill();
  }

  // No per-call abort listener: the executor calls `abort()` (EventTarget listeners cost about
  // 0.03 ms a call, measured against a plain pipe driver in bench/run.ts).
  async call(input: JsonValue, signal?: AbortSignal): Promise<JsonValue> {
    const onAbort = signal ? () => this.abort() : undefined;
    if (signal && onAbort) {
      if (signal.aborted) this.abort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
    try {
      this.#writer.write(encoder.encode(canonicalize(input) + "\n")).catch(() => {
        // the process is gone; reported below from its exit status
      });
      const line = await this.#readLine();
      if (this.#aborted) {
        throw new SubstrateCallError(
          "timeout",
          "no response within the timeout; process restarted",
        );
      }
      if (line === null) {
        this.alive = false;
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
        const v = parseJson(line);
        this.answered++;
        return v;
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
      if (signal && onAbort) signal.removeEventListener("abort", onAbort);
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
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000))),
      ]);
      clearTimeout(timer);
      if (!done) this.kill();
    }
    await this.exited.catch(() => undefined);
    await this.#reader.cancel().catch(() => undefined);
  }
}

/** Options of {@link openCmdSubstrate}. */
export interface CmdOptions {
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Open a `cmd:` substrate. No process starts until the run asks for its lanes (after the
 * datasets are read and checked); the first lane's process starts then, so a bad command fails
 * before anything is measured.
 */
export function openCmdSubstrate(commandLine: string, options: CmdOptions = {}): Substrate {
  const argv = splitCommandLine(commandLine);
  if (argv.length === 0) {
    throw new ScenarioError("substrate_unavailable", "cmd: needs a command line");
  }
  const all = new Set<Worker>();
  const spawn = () => {
    const w = new Worker(argv, options.env, options.cwd);
    all.add(w);
    return w;
  };
  const lane = (): Lane => {
    let worker: Worker | undefined = spawn();
    return {
      ready: () => {
        if (!worker?.alive) {
          if (worker) all.delete(worker);
          worker = spawn();
        }
        return Promise.resolve(worker.answered === 0);
      },
      // The executor stops a call through abort(), so the signal is not listened to.
      call: (input) => {
        if (!worker?.alive) {
          return Promise.reject(
            new SubstrateCallError("crash", "the process is not running (lane not ready)"),
          );
        }
        return worker.call(input);
      },
      abort: () => worker?.abort(),
    };
  };

  const program = argv[0].split(/[\\/]/).pop() ?? argv[0];
  return {
    spec: `cmd:${commandLine}`,
    defaultName: argv.length > 1 && /\.(py|js|ts|rb|sh|pl)$/.test(argv[1])
      ? argv[1].split(/[\\/]/).pop()!
      : program,
    lanes: (n) => {
      // Start the first process alone: a command that cannot start fails once, not n times.
      const first = lane();
      return [first, ...Array.from({ length: n - 1 }, lane)];
    },
    close: async () => {
      await Promise.all([...all].map((w) => w.close()));
    },
  };
}
