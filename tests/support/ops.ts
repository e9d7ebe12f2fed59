// Operation hosts for tests: the real environment and a temporary store, as a local caller
// (CLI, stdio MCP) or a network caller (HTTP, MCP over HTTP).
import { type Caller, createOpHost, invoke, type OpHost } from "../../src/ops/mod.ts";
import type { OpsEnvironment } from "../../src/ops/environment.ts";
import { runScenarioOp } from "../../src/ops/run_scenario.ts";
import type { CallOptions } from "../../src/ops/context.ts";
import type { RunOutput } from "../../src/ops/run_scenario.ts";
import { testEnv } from "./env.ts";

/** Options of {@link testHost}. */
export interface TestHostOptions {
  caller?: Caller;
  env?: OpsEnvironment;
  key?: Uint8Array<ArrayBuffer>;
  store?: string;
  scenarioDir?: string;
  allowClientCmd?: boolean;
  readOnly?: boolean;
}

/** An operation host over the real environment (local caller unless told otherwise). */
export async function testHost(options: TestHostOptions = {}): Promise<OpHost> {
  return createOpHost({
    caller: options.caller ?? "local",
    env: options.env ?? await testEnv(),
    key: options.key ? { bytes: options.key, source: "option" } : undefined,
    store: options.store,
    scenarioDir: options.scenarioDir,
    allowClientCmd: options.allowClientCmd,
    readOnly: options.readOnly,
  });
}

/** Run a scenario as the CLI does (local caller). */
export async function runLocal(
  input: { scenario: string; substrate?: string; after?: string[]; substrate_commit?: string },
  options: TestHostOptions & CallOptions = {},
) {
  const host = await testHost(options);
  try {
    return await invoke(runScenarioOp, input, host, options);
  } finally {
    await host.close();
  }
}

/** A run request in the shape tests write it (camelCase, as the CLI's options). */
export interface TestRunRequest {
  scenario: string;
  substrate?: string;
  substrateName?: string;
  substrateCommit?: string;
  after?: string[];
  /** Comparative scenarios: a baseline substrate (interleaved) or a stored proof. */
  baselineSubstrate?: string;
  baseline?: string;
}

/** What a test run needs: environment and key, optionally a store (a directory). */
export interface TestRunDeps extends CallOptions {
  env: OpsEnvironment;
  key: Uint8Array<ArrayBuffer>;
  store?: string;
  scenarioDir?: string;
  caller?: Caller;
  allowClientCmd?: boolean;
}

/**
 * Run a scenario through the registry (`invoke(runScenarioOp, …)`) and return its result with
 * the signed record and analysis (`output`), which tests inspect.
 */
export async function runScenarioForTest(req: TestRunRequest, deps: TestRunDeps) {
  const host = await testHost({
    caller: deps.caller,
    env: deps.env,
    key: deps.key,
    store: deps.store,
    scenarioDir: deps.scenarioDir,
    allowClientCmd: deps.allowClientCmd,
  });
  let output: RunOutput | undefined;
  try {
    const view = await invoke(
      runScenarioOp,
      {
        scenario: req.scenario,
        substrate: req.substrate,
        substrate_name: req.substrateName,
        substrate_commit: req.substrateCommit,
        after: req.after,
        baseline_substrate: req.baselineSubstrate,
        baseline: req.baseline,
      },
      host,
      { ...deps, onOutput: (o) => (output = o) },
    );
    return { ...view, output: output! };
  } finally {
    await host.close();
  }
}
