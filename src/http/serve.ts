/**
 * `empiric http serve`: one server instance in this process, or with `--workers N` N child
 * processes of the same program listening on the same port with SO_REUSEPORT (the kernel
 * spreads connections over them; Linux only), supervised from here. Prints the "listening on"
 * line, and shuts down cleanly on SIGINT/SIGTERM: no new connections, in-flight requests
 * finish.
 *
 * Children are started as the same program with the same arguments and the environment
 * variable `EMPIRIC_HTTP_INSTANCE=1`; they read their configuration (including the key, which
 * therefore never appears in a command line or environment) as one JSON line on standard
 * input, answer `ready <port>` on standard output, and stop on a `shutdown` line, on end of
 * input (the supervisor is gone) or on SIGINT/SIGTERM.
 *
 * @module
 */
import { asEmpiricError, EmpiricError } from "../errors/errors.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { type Instance, type ServerConfig, startInstance } from "./instance.ts";
import { stderrLogger } from "./log.ts";

/** Environment variable that makes `http serve` run as a supervised child instance. */
export const INSTANCE_ENV = "EMPIRIC_HTTP_INSTANCE";

/** Options of {@link serveHttp}. */
export interface ServeOptions extends Omit<ServerConfig, "reusePort"> {
  /** Number of server processes on the port (1: this process serves). */
  workers: number;
  /** How long in-flight requests may take to finish after a signal (default 30 s). */
  shutdownGraceMs?: number;
}

/** Process facilities used by {@link serveHttp}. */
export interface ServeIO {
  /** Write text to standard error. */
  stderr(text: string): void;
  /** Call `f` on SIGINT/SIGTERM; returns a function that stops listening. */
  onInterrupt?(f: () => void): () => void;
}

/** Largest `--workers`. */
export const MAX_WORKERS = 64;

/** `http://host:port`, with IPv6 addresses in brackets. */
export function serverUrl(hostname: string, port: number): string {
  return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

const encoder = new TextEncoder();

/** The command line that runs this same program again, for a child instance. */
function childCommand(): { cmd: string; args: string[] } {
  if (Deno.build.standalone) return { cmd: Deno.execPath(), args: [...Deno.args] };
  const flags: string[] = [];
  for (const name of ["read", "write", "env", "net", "run", "sys"] as const) {
    if (Deno.permissions.querySync({ name }).state === "granted") flags.push(`--allow-${name}`);
  }
  return {
    cmd: Deno.execPath(),
    args: ["run", ...flags, "--unstable-net", Deno.mainModule, ...Deno.args],
  };
}

/** Wire form of a child's configuration (the key as base64). */
interface ChildConfig extends Omit<ServerConfig, "key"> {
  keyBase64: string;
  worker: number;
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Lines of a byte stream. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buf = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl);
      buf = buf.slice(nl + 1);
    }
  }
  if (buf.length > 0) yield buf;
}

interface Child {
  number: number;
  process: Deno.ChildProcess;
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  exited: Promise<Deno.CommandStatus>;
  stopping: boolean;
}

async function startChild(config: ServerConfig, number: number): Promise<
  { child: Child; port: number }
> {
  const { cmd, args } = childCommand();
  const process = new Deno.Command(cmd, {
    args,
    env: { [INSTANCE_ENV]: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const stdin = process.stdin.getWriter();
  const child: Child = { number, process, stdin, exited: process.status, stopping: false };
  const { key, ...rest } = config;
  const wire: ChildConfig = { ...rest, keyBase64: toBase64(key), worker: number };
  await stdin.write(encoder.encode(JSON.stringify(wire) + "\n"));
  const out = lines(process.stdout);
  const first = await Promise.race([
    out.next().then((r) => r.done ? undefined : r.value),
    child.exited.then(() => undefined),
  ]);
  // Drain the rest of the child's standard output (nothing more is expected).
  (async () => {
    for await (const _ of out) { /* ignore */ }
  })().catch(() => undefined);
  const ready = first === undefined ? null : /^ready (\d+)$/.exec(first);
  if (!ready) {
    await stdin.close().catch(() => undefined);
    const status = await child.exited;
    let message = `worker ${number} did not start`;
    if (first?.startsWith("error ")) {
      const e = JSON.parse(first.slice(6)) as { code: string; message: string };
      throw new EmpiricError(e.code as ErrorCode, e.message);
    }
    message += ` (exit code ${status.code})`;
    if (Deno.build.standalone) {
      message += "; a compiled empiric needs --unstable-net (deno compile) for --workers";
    }
    throw new EmpiricError("worker_failed", message);
  }
  return { child, port: Number(ready[1]) };
}

async function stopChild(c: Child, graceMs: number): Promise<boolean> {
  c.stopping = true;
  await c.stdin.write(encoder.encode("shutdown\n")).catch(() => undefined);
  await c.stdin.close().catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clean = await Promise.race([
    c.exited.then(() => true),
    new Promise<boolean>((r) => timer = setTimeout(() => r(false), graceMs)),
  ]);
  clearTimeout(timer);
  if (!clean) {
    try {
      c.process.kill("SIGKILL");
    } catch { /* already gone */ }
    await c.exited;
  }
  return clean;
}

/**
 * Serve until SIGINT/SIGTERM, then shut down gracefully. Throws when the
 * server cannot start, or (after shutting down) when a worker died.
 */
export async function serveHttp(options: ServeOptions, io: ServeIO): Promise<void> {
  let workers = options.workers;
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new EmpiricError(
      "usage_error",
      `--workers must be a whole number from 1 to ${MAX_WORKERS}`,
    );
  }
  if (workers > 1 && Deno.build.os !== "linux") {
    io.stderr(
      `empiric: warning: --workers needs SO_REUSEPORT load balancing, which only Linux has; serving with 1 process on ${Deno.build.os}\n`,
    );
    workers = 1;
  }
  const { workers: _w, shutdownGraceMs = 30_000, ...rest } = options;

  let resolveStop!: (reason: string) => void;
  const stopRequested = new Promise<string>((r) => resolveStop = r);
  let signals = 0;
  const stopListening = io.onInterrupt?.(() => {
    signals++;
    if (signals === 1) resolveStop("signal");
    else {
      io.stderr("empiric: second signal: exiting without waiting for requests\n");
      Deno.exit(130);
    }
  });

  try {
    if (workers === 1) {
      const instance = await startInstance({ ...rest, reusePort: false }, 0);
      await runInstance(instance, 1, io, stopRequested, shutdownGraceMs);
      return;
    }
    await supervise({ ...rest, reusePort: true }, workers, io, stopRequested, shutdownGraceMs);
  } finally {
    stopListening?.();
  }
}

async function runInstance(
  instance: Instance,
  workers: number,
  io: ServeIO,
  stopRequested: Promise<string>,
  graceMs: number,
): Promise<void> {
  const log = instance.logger;
  const url = serverUrl(instance.addr.hostname, instance.addr.port);
  log.log({ msg: "listening", url, workers });
  log.flush();
  io.stderr(`listening on ${url}\n`);
  const reason = await stopRequested;
  const stopping = instance.shutdown();
  log.log({ msg: "shutting down", reason });
  log.flush();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clean = await Promise.race([
    stopping.then(() => true),
    new Promise<boolean>((r) => timer = setTimeout(() => r(false), graceMs)),
  ]);
  clearTimeout(timer);
  log.log(
    clean
      ? { msg: "stopped" }
      : { level: "warn", msg: `requests still running after ${graceMs} ms: stopping anyway` },
  );
  log.flush();
}

async function supervise(
  config: ServerConfig,
  workers: number,
  io: ServeIO,
  stopRequested: Promise<string>,
  graceMs: number,
): Promise<void> {
  const log = stderrLogger({ worker: "supervisor" });
  const children: Child[] = [];
  let died: string | undefined;
  let resolveDied!: (reason: string) => void;
  const childDied = new Promise<string>((r) => resolveDied = r);
  const watch = (c: Child) => {
    c.exited.then((s) => {
      if (c.stopping) return;
      if (s.success) {
        // It was signalled itself (e.g. Ctrl-C reaches the whole process group): stop all.
        resolveDied(`worker ${c.number} stopped`);
        return;
      }
      died ??= `worker ${c.number} exited unexpectedly (code ${s.code}${
        s.signal ? `, ${s.signal}` : ""
      })`;
      log.log({ level: "error", msg: died });
      resolveDied(died);
    });
  };
  let port = config.port;
  try {
    const first = await startChild(config, 1);
    children.push(first.child);
    watch(first.child);
    port = first.port;
    const rest = await Promise.allSettled(
      Array.from({ length: workers - 1 }, (_, i) => startChild({ ...config, port }, i + 2)),
    );
    for (const r of rest) {
      if (r.status === "fulfilled") {
        children.push(r.value.child);
        watch(r.value.child);
      }
    }
    const failed = rest.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (e) {
    await Promise.all(children.map((c) => stopChild(c, graceMs)));
    throw e;
  }
  const url = serverUrl(config.host.replace(/^\[(.*)\]$/, "$1"), port);
  log.log({ msg: "listening", url, workers, pids: children.map((c) => c.process.pid) });
  log.flush();
  io.stderr(`listening on ${url}\n`);
  const reason = await Promise.race([stopRequested, childDied]);
  log.log({ msg: "shutting down", reason });
  log.flush();
  const clean = await Promise.all(children.map((c) => stopChild(c, graceMs)));
  log.log(
    clean.every(Boolean)
      ? { msg: "stopped" }
      : { level: "warn", msg: `requests still running after ${graceMs} ms: workers killed` },
  );
  log.flush();
  if (died) throw new EmpiricError("worker_failed", died);
}

/**
 * Run as a supervised child instance: configuration from standard input, `ready <port>` on
 * standard output, stop on `shutdown`, end of input, SIGINT or SIGTERM.
 */
export async function runChildInstance(io: ServeIO): Promise<void> {
  const input = lines(Deno.stdin.readable);
  const first = await input.next();
  if (first.done) throw new EmpiricError("usage_error", `${INSTANCE_ENV}=1 but no configuration`);
  const { keyBase64, worker, ...config } = JSON.parse(first.value) as ChildConfig;
  let instance: Instance;
  try {
    instance = await startInstance({ ...config, key: fromBase64(keyBase64) }, worker);
  } catch (e) {
    const err = asEmpiricError(e);
    await Deno.stdout.write(
      encoder.encode(`error ${JSON.stringify({ code: err.code, message: err.message })}\n`),
    );
    return;
  }
  await Deno.stdout.write(encoder.encode(`ready ${instance.addr.port}\n`));
  let resolveStop!: (reason: string) => void;
  const stopRequested = new Promise<string>((r) => resolveStop = r);
  let signals = 0;
  const stopListening = io.onInterrupt?.(() => {
    if (++signals === 1) resolveStop("signal");
    else Deno.exit(130);
  });
  (async () => {
    for await (const line of input) if (line === "shutdown") break;
    resolveStop("supervisor");
  })().catch(() => resolveStop("supervisor"));
  const reason = await stopRequested;
  await instance.shutdown();
  instance.logger.log({ msg: "worker stopped", reason, worker });
  instance.logger.flush();
  stopListening?.();
}
