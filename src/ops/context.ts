/**
 * Who calls an operation and with what: the per-process {@link OpHost} (environment, key,
 * store, scenario directory, the caller's trust), the per-call options, and {@link invoke},
 * the one door every surface goes through. The exposure rules live here and nowhere else:
 * which scenarios a caller may name, which substrates, and how paths are shown.
 *
 * @module
 */
import type { z } from "zod";
import { EmpiricError, IoError, type Problem, UsageError } from "../errors/errors.ts";
import type { ResolvedKey } from "../crypto/keys.ts";
import type { RunProgress } from "../run/execute.ts";
import type { RunOutput } from "../run/run.ts";
import type { RegistrationTrust } from "../attest/registration.ts";
import type { CatalogListing, CatalogMode, ScenarioCatalog } from "../scenario/catalog.ts";
import type { ResolvedScenario } from "../scenario/resolve.ts";
import { parseSubstrateSpec, type SubstrateSpec } from "../substrate/spec.ts";
import type { ProofStore } from "../store/types.ts";
import type { OpsEnvironment } from "./environment.ts";
import { loadModule } from "../lazy/load.ts";
import type { Operation } from "./operation.ts";

/**
 * The caller's trust: `local` (the CLI and stdio MCP: the user's own rights, any file path) or
 * `network` (the HTTP API and MCP over HTTP: listed scenario names only, no server paths, no
 * `cmd:` substrates unless the server allows them).
 */
export type Caller = "local" | "network";

/** What the process hosting the operations provides (one per CLI run or server). */
export interface OpHostOptions {
  caller: Caller;
  env: OpsEnvironment;
  /** The key records are verified and signed with (a run needs one). */
  key?: ResolvedKey;
  /**
   * The proof store: a directory, or a `postgres://` / `postgresql://` URL (opened, and
   * created, on first use).
   */
  store?: string;
  /** Directory searched for scenario files (default `scenarios`). */
  scenarioDir?: string;
  /** Network callers may name `cmd:` substrates (they start processes on this machine). */
  allowClientCmd?: boolean;
  /** Refuse every `write` operation. */
  readOnly?: boolean;
  /** Where diagnostics go (stderr, a log). */
  log?: (line: string) => void;
  /**
   * Create the store when it does not exist (default true): the directory, or the database's
   * tables. Read-only commands pass false: a missing store is `not_found`, and nothing is
   * created.
   */
  createStore?: boolean;
  /** Added to the message when the store cannot be opened (how to point at another one). */
  storeHint?: string;
}

/** The per-process side of every call. */
export interface OpHost {
  readonly caller: Caller;
  readonly env: OpsEnvironment;
  readonly key?: ResolvedKey;
  readonly scenarioDir: string;
  readonly storeLocation?: string;
  readonly allowClientCmd: boolean;
  readonly readOnly: boolean;
  readonly log: (line: string) => void;
  /** Monotonic time the host was created (ms). */
  readonly startedAt: number;
  /** The proof store, opened on first use (`io_error` when it cannot be). */
  store(): Promise<ProofStore>;
  /** Close the store if it was opened (its connections, for a database). */
  close(): Promise<void>;
}

/** Build the host (the store is opened lazily, so tools that need none work without one). */
export function createOpHost(options: OpHostOptions): OpHost {
  let opening: Promise<ProofStore> | undefined;
  return {
    caller: options.caller,
    env: options.env,
    key: options.key,
    scenarioDir: options.scenarioDir ?? "scenarios",
    storeLocation: options.store,
    allowClientCmd: options.allowClientCmd ?? false,
    readOnly: options.readOnly ?? false,
    log: options.log ?? (() => {}),
    startedAt: options.env.monotonic(),
    store() {
      if (options.store === undefined) {
        return Promise.reject(new UsageError("no proof store is configured (--store)"));
      }
      opening ??= loadModule<typeof import("../store/store.ts")>(
        "../store/store.ts",
        import.meta.url,
      ).then((m) =>
        m.openStore(options.store!, {
          create: options.createStore ?? true,
          env: (name) => options.env.env(name),
          readText: (path) => options.env.readText(path),
        })
      )
        .catch((e) => {
          opening = undefined;
          const hint = options.storeHint ? ` (${options.storeHint})` : "";
          if (e instanceof EmpiricError) {
            throw hint ? new EmpiricError(e.code, e.message + hint, { cause: e }) : e;
          }
          throw new IoError("io_error", (e as Error).message + hint, { cause: e });
        });
      return opening;
    },
    async close() {
      const pending = opening;
      opening = undefined;
      // A store still opening is closed once it is open.
      const s = await pending?.catch(() => undefined);
      await s?.close();
    },
  };
}

/** Per-call options. */
export interface CallOptions {
  /** Cancels the call (a run stops; nothing is stored). */
  signal?: AbortSignal;
  /** Progress of a run. */
  onProgress?: (p: RunProgress) => void;
  /**
   * `run_scenario`, local callers: also write the record (pretty JSON) here, atomically. Checked
   * before the run starts: an existing file is refused unless `force`.
   */
  out?: string;
  /** `run_scenario`: `out` may replace an existing file. */
  force?: boolean;
  /** `run_scenario`, local callers: post the OpenLineage run lifecycle to this collector. */
  lineage?: { url: string; namespace?: string; apiKey?: string };
  /** `run_scenario`, local callers: post the signed record as a CloudEvent to this sink. */
  events?: { url: string; mode: "structured" | "binary"; source: string };
  /** Non-fatal problems after the result is made (a dead collector or sink). */
  warn?: (message: string) => void;
  /** `run_scenario`: the signed record and its analysis, once made. */
  onOutput?: (output: RunOutput) => void;
  /** `run_scenario`, local callers: a signed pre-registration to check before measuring. */
  registration?: { envelope: Uint8Array; trust: RegistrationTrust };
}

/** What an implementation sees: the host, the call, and the caller's rules applied. */
export interface OpContext extends OpHost, CallOptions {
  /** Scenarios as this caller may name them. */
  readonly scenarios: Catalog;
  /** Check a substrate specification under this caller's rules. */
  substrate(spec: string): SubstrateSpec;
  /** A server path as this caller may see it (relative for network callers). */
  shownPath(path: string, base?: string): string;
}

/** The scenarios a caller may name (src/scenario/catalog.ts, loaded on first use). */
export interface Catalog {
  readonly dir: string;
  readonly mode: CatalogMode;
  /** The scenarios listed, and the files that failed to load. */
  list(): Promise<CatalogListing>;
  /** Resolve a caller's name (`not_found` unless this caller may name it). */
  resolve(name: string): Promise<ResolvedScenario>;
}

/**
 * The scenario catalog a caller sees: listed names only for network callers. The catalog (and
 * the YAML parser and scenario schema behind it) loads on first use.
 */
export function scenarioCatalog(
  env: OpsEnvironment,
  scenarioDir: string,
  caller: Caller,
): Catalog {
  const mode: CatalogMode = caller === "network" ? "listed" : "paths";
  let catalog: Promise<ScenarioCatalog> | undefined;
  const load = () =>
    catalog ??= loadModule<typeof import("../scenario/catalog.ts")>(
      "../scenario/catalog.ts",
      import.meta.url,
    ).then((m) =>
      new m.ScenarioCatalog(scenarioDir, mode, {
        listDir: (p) => env.listDir(p),
        readRegularText: (p, max) => env.readRegularText(p, max),
        readText: (p) => env.readText(p),
        files: { readFile: (p) => env.readFile(p), fetch: (u) => env.fetchBytes(u) },
      })
    );
  return {
    dir: scenarioDir,
    mode,
    list: async () => (await load()).list(),
    resolve: async (name) => (await load()).resolve(name),
  };
}

function contextFor(host: OpHost, call: CallOptions): OpContext {
  const scenarios = scenarioCatalog(host.env, host.scenarioDir, host.caller);
  return {
    caller: host.caller,
    env: host.env,
    key: host.key,
    scenarioDir: host.scenarioDir,
    storeLocation: host.storeLocation,
    allowClientCmd: host.allowClientCmd,
    readOnly: host.readOnly,
    log: host.log,
    startedAt: host.startedAt,
    store: () => host.store(),
    close: () => host.close(),
    signal: call.signal,
    onProgress: call.onProgress,
    out: call.out,
    force: call.force,
    lineage: call.lineage,
    events: call.events,
    warn: call.warn,
    onOutput: call.onOutput,
    registration: call.registration,
    scenarios,
    substrate: (spec) => checkSubstrate(host, spec),
    shownPath: (path, base) => shownPath(host.caller, path, base),
  };
}

/** The one rule for substrates named by a caller. */
function checkSubstrate(host: OpHost, spec: string): SubstrateSpec {
  const s = parseSubstrateSpec(spec);
  if (s.kind === "cmd" && host.caller === "network" && !host.allowClientCmd) {
    throw new EmpiricError(
      "forbidden",
      "this server does not run command lines named by clients (cmd: substrates); start it with --allow-cmd-substrates, or use a scenario whose default_substrate is set",
    );
  }
  return s;
}

/** Relative to `base` (or the file name) for network callers; unchanged for local ones. */
function shownPath(caller: Caller, path: string, base?: string): string {
  if (caller === "local") return path;
  if (base !== undefined && path.startsWith(base.replace(/\/$/, "") + "/")) {
    return path.slice(base.replace(/\/$/, "").length + 1);
  }
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Problems of a failed input validation: one per issue, with the member's JSON pointer. */
export function inputProblems(
  error: z.ZodError,
  describe: (member: string | undefined) => string = (m) => m ?? "the input",
): Problem[] {
  return error.issues.map((issue) => {
    const pointer = issue.path.length === 0
      ? ""
      : "/" + issue.path.map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join(
        "/",
      );
    const head = issue.path.length > 0 ? String(issue.path[0]) : undefined;
    const rest = issue.path.length > 1 ? pointer.slice(pointer.indexOf("/", 1)) : "";
    return {
      code: "usage_error",
      message: `${describe(head)}${rest ? ` (at ${rest})` : ""}: ${issue.message}`,
      pointer,
    };
  });
}

/** The input of an operation does not fit its schema (a `usage_error` with every problem). */
export class InputError extends UsageError {}

/** Options of {@link invoke}. */
export interface InvokeOptions extends CallOptions {
  /** How a surface names an input member in messages (e.g. "query parameter limit"). */
  describe?: (member: string | undefined) => string;
}

/**
 * Call an operation: refuse a write on a read-only host, validate the input (unknown members
 * refused), apply the exposure rules for the caller, then run the implementation.
 */
export async function invoke<I extends z.ZodObject, O extends z.ZodType>(
  op: Operation<I, O>,
  input: unknown,
  host: OpHost,
  options: InvokeOptions = {},
): Promise<z.infer<O>> {
  if (op.access === "write" && host.readOnly) {
    throw new EmpiricError("forbidden", `this server is read-only: ${op.name} is off`);
  }
  const parsed = op.input.safeParse(input ?? {});
  if (!parsed.success) {
    const problems = inputProblems(parsed.error, options.describe);
    throw new InputError(problems[0].message, { problems });
  }
  const { describe: _d, ...call } = options;
  const ctx = contextFor(host, call);
  const value = parsed.data as Record<string, unknown>;
  if (op.exposure.includes("substrate-checked") && op.substrateField) {
    const fields = typeof op.substrateField === "string" ? [op.substrateField] : op.substrateField;
    for (const field of fields) {
      const spec = value[field];
      if (typeof spec === "string") ctx.substrate(spec);
    }
  }
  if (op.exposure.includes("no-server-paths") && host.caller === "network") {
    for (const field of op.proofRefFields ?? []) {
      const ref = value[field];
      if (typeof ref === "string" && !/^[0-9a-f]{64}$/.test(ref)) {
        throw new EmpiricError(
          "forbidden",
          `${field} must name a stored proof by its proof_id (64 lowercase hex characters); network clients cannot name files on the server`,
        );
      }
    }
  }
  if (op.exposure.includes("scenario-listed") && op.scenarioField && host.caller === "network") {
    const name = value[op.scenarioField];
    if (typeof name === "string") await ctx.scenarios.resolve(name);
  }
  return await op.run(parsed.data as z.infer<I>, ctx);
}
