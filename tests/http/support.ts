// Helpers of the HTTP tests: the real app over a temporary store (app.request), and the real
// `empiric http serve` in a child process on a loopback port.
import { createApp } from "../../src/http/app.ts";
import type { AuthConfig } from "../../src/http/auth.ts";
import { jsonLineLogger, type LogEntry } from "../../src/http/log.ts";
import type { OpHost } from "../../src/ops/mod.ts";
import type { OpsEnvironment } from "../../src/ops/environment.ts";
import type { ProofStore } from "../../src/store/types.ts";
import { testHost } from "../support/ops.ts";
import { CLI_FLAGS } from "../support/run_cli.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const RECORDS = `${ROOT}fixtures/records/`;

/** The key the record fixtures are signed with (35 bytes: also signs runs). */
export const FIXTURE_KEY_TEXT = "empiric-record-fixtures-test-key-v1";
export const FIXTURE_KEY = new TextEncoder().encode(FIXTURE_KEY_TEXT);

/** Members of a problem body that are not part of the verify_proof result. */
export const PROBLEM_MEMBERS = [
  "type",
  "title",
  "status",
  "detail",
  "instance",
  "code",
  "request_id",
];

export interface TestApp {
  app: ReturnType<typeof createApp>;
  /** The operations' host (a network caller). */
  host: OpHost;
  store: ProofStore;
  dir: string;
  logs: LogEntry[];
  /** `app.request` with a JSON body when `json` is given. */
  req(
    method: string,
    path: string,
    init?: { json?: unknown; body?: BodyInit; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** The operations the SPEC names: the OpenAPI document must describe them and /docs show them. */
export const API_OPERATIONS = [
  "POST /verify",
  "GET /scenarios",
  "GET /scenarios/{name}",
  "POST /canonicalize",
  "GET /proofs",
  "GET /proofs/{proof_id}",
  "GET /proofs/{proof_id}/observations",
  "GET /proofs/{proof_id}/scenario",
  "POST /audit",
  "GET /proofs/{proof_id}/report",
  "GET /ui",
  "POST /runs",
  "GET /health",
  "GET /version",
  "GET /openapi.json",
] as const;

/** The real app on a fresh temporary store; close() when done. */
export async function testApp(
  options: {
    auth?: Partial<AuthConfig>;
    key?: Uint8Array<ArrayBuffer>;
    maxBodyBytes?: number;
    bodyTimeoutMs?: number;
    allowCmdSubstrates?: boolean;
    scenarioDir?: string;
    env?: OpsEnvironment;
    /** The store (default: a fresh directory); a postgres:// URL for the database store. */
    store?: string;
  } = {},
): Promise<TestApp> {
  const dir = await Deno.makeTempDir({ prefix: "empiric-http-" });
  const host = await testHost({
    caller: "network",
    env: options.env,
    key: options.key ?? FIXTURE_KEY,
    store: options.store ?? `${dir}/store`,
    scenarioDir: options.scenarioDir ?? `${dir}/scenarios`,
    allowClientCmd: options.allowCmdSubstrates,
    readOnly: options.auth?.readOnly,
  });
  const store = await host.store();
  const logs: LogEntry[] = [];
  const decoder = new TextDecoder();
  const logger = jsonLineLogger((b) => {
    for (const line of decoder.decode(b).split("\n")) if (line) logs.push(JSON.parse(line));
  }, { batch: false });
  const app = createApp({
    host,
    auth: { listenHost: "127.0.0.1", ...options.auth },
    maxBodyBytes: options.maxBodyBytes,
    bodyTimeoutMs: options.bodyTimeoutMs,
    logger,
  });
  return {
    app,
    host,
    store,
    dir,
    logs,
    req: (method, path, init = {}) => {
      const headers: Record<string, string> = { ...init.headers };
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers["content-type"] ??= "application/json";
      }
      return Promise.resolve(
        app.request(`http://127.0.0.1:8787${path}`, { method, body, headers }),
      );
    },
    close: () => host.close(),
  };
}

/** Read a fixture record's text. */
export function fixture(name: string): Promise<string> {
  return Deno.readTextFile(`${RECORDS}${name}`);
}

/** A running `empiric http serve` child process. */
export interface RealServer {
  url: string;
  port: number;
  process: Deno.ChildProcess;
  /** Standard error so far (the "listening" line, JSON log lines). */
  stderr(): string;
  /** Parsed JSON log lines so far. */
  logs(): Record<string, unknown>[];
  /** Send a signal and wait for the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Wait for the process to exit by itself. */
  exit(): Promise<Deno.CommandStatus>;
  /** Wait until stderr matches (polling), or fail after `ms`. */
  waitFor(re: RegExp, ms?: number): Promise<void>;
}

/** A clean environment for child processes (plus `env`). */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { NO_COLOR: "1", ...env };
  for (const k of ["HOME", "PATH", "DENO_DIR", "TMPDIR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined && !(k in out)) out[k] = v;
  }
  return out;
}

/** Start `deno run <flags> <entry> <args>` and wait for "listening on http://…". */
export async function startServer(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; entry?: string; timeoutMs?: number } = {},
): Promise<RealServer> {
  const entry = options.entry ?? `${ROOT}cli.ts`;
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, entry, ...args],
    env: childEnv(options.env),
    clearEnv: true,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of process.stderr) err += decoder.decode(chunk, { stream: true });
  })();
  const drainOut = (async () => {
    for await (const _ of process.stdout) { /* unused */ }
  })();
  const status = process.status;
  let exited = false;
  status.then(() => exited = true);
  const waitFor = async (re: RegExp, ms = options.timeoutMs ?? 30_000) => {
    const deadline = Date.now() + ms;
    while (!re.test(err)) {
      if (exited) {
        await pump;
        if (re.test(err)) return;
        throw new Error(`server exited before ${re}: ${err}`);
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${re}: ${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  await waitFor(/listening on (http:\/\/\S+)\n/);
  const url = /listening on (http:\/\/\S+)\n/.exec(err)![1];
  return {
    url,
    port: Number(new URL(url).port),
    process,
    stderr: () => err,
    logs: () =>
      err.split("\n").filter((l) => l.startsWith("{")).map((l) =>
        JSON.parse(l) as Record<string, unknown>
      ),
    waitFor,
    async exit() {
      const s = await status;
      await pump;
      await drainOut;
      return s;
    },
    async stop(signal: Deno.Signal = "SIGTERM") {
      if (!exited) {
        try {
          process.kill(signal);
        } catch { /* already gone */ }
      }
      const s = await status;
      await pump;
      await drainOut;
      return s;
    },
  };
}

/** Run a command to completion without a server (e.g. a refusal to start). */
export async function runEntry(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; entry?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, options.entry ?? `${ROOT}cli.ts`, ...args],
    env: childEnv(options.env),
    clearEnv: true,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/** fetch on a fresh connection (so that SO_REUSEPORT can pick any worker), body consumed. */
export async function freshFetch(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const client = Deno.createHttpClient({});
  try {
    const res = await fetch(url, { ...init, client });
    return { status: res.status, headers: res.headers, text: await res.text() };
  } finally {
    client.close();
  }
}
