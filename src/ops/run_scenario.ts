/**
 * `run_scenario`: shared by `empiric run`, the `run_scenario` tool and `POST /runs`. Resolves the
 * scenario and substrate, collects the lineage from the store, runs, signs and stores.
 *
 * @module
 */
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import { type RunOutput, runScenario } from "../run/run.ts";
import type { RunProgress } from "../run/execute.ts";
import { resolveScenario } from "../scenario/resolve.ts";
import { openSubstrate } from "../substrate/open.ts";
import { splitCommandLine } from "../substrate/cmd.ts";
import type { ProofStore } from "../store/store.ts";
import type { OpsEnvironment } from "./environment.ts";
import { type Exposure, requireScenarioName, scenarioLookup } from "./scenarios.ts";
import { analysisPlanText, thresholdOf } from "../run/analyze.ts";
import { resolveRelative } from "../scenario/load.ts";
import type { Threshold } from "../record/types.ts";
import { type RunSpanControl, traceScenarioRun } from "../telemetry/instrument.ts";

/** What to run. */
export interface RunScenarioRequest {
  /** Scenario name, built-in name or file path. */
  scenario: string;
  /** `--substrate`; defaults to the scenario's `default_substrate`. */
  substrate?: string;
  substrateName?: string;
  substrateCommit?: string;
  /** Earlier proof ids this run follows. */
  after?: string[];
}

/** How to run it. */
export interface RunScenarioDeps {
  env: OpsEnvironment;
  key: Uint8Array<ArrayBuffer>;
  /** Where to store the record (none: not stored). */
  store?: ProofStore;
  scenarioDir?: string;
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
  /** What clients of a network surface may name (default: everything). */
  exposure?: Exposure;
  /**
   * Called once the scenario is resolved and before the substrate is opened or anything is
   * measured (OpenLineage START). A failure after this call means the run crashed.
   */
  onStart?: (info: RunStartInfo) => void | Promise<void>;
}

/** What a run has fixed before its substrate is opened (passed to `onStart`). */
export interface RunStartInfo {
  scenario: string;
  substrate: string;
  claim: {
    statement: string;
    operationalization: string;
    threshold: Threshold;
    h0: string;
    h1: string;
  };
  /** The scenario's datasets, named as the record will name them (not loaded yet). */
  datasets: { name: string; source: string; kind: string }[];
  analysis_plan: string;
}

/** The result of `run_scenario`. */
export interface RunScenarioResult {
  proof_id: string;
  scenario: string;
  substrate: string;
  outcome: string;
  observed_value: number;
  reasoning: string;
  /** Where the record was stored, or null. */
  path: string | null;
  measured: number;
  failures: { id: string; kind: string; message: string }[];
  output: RunOutput;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The value of SOURCE_DATE_EPOCH, validated. */
export function sourceDateEpoch(env: OpsEnvironment): number | undefined {
  const raw = env.env("SOURCE_DATE_EPOCH");
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d{1,12}$/.test(raw)) {
    throw new UsageError(
      `SOURCE_DATE_EPOCH must be a whole number of seconds, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

async function substrateIdentity(
  env: OpsEnvironment,
  spec: string,
): Promise<{ commit: string }> {
  if (spec.startsWith("builtin:")) return { commit: env.runtime().empiricCommit };
  if (spec.startsWith("cmd:")) {
    const argv = splitCommandLine(spec.slice(4));
    for (const candidate of [argv[1], argv[0]]) {
      if (candidate && /[\\/.]/.test(candidate) && await env.exists(candidate)) {
        const c = await env.gitCommit(candidate);
        if (c) return { commit: c };
      }
    }
  }
  return { commit: "unknown" };
}

/** Run a scenario; store the signed record when a store is given. */
export async function runScenarioOp(
  req: RunScenarioRequest,
  deps: RunScenarioDeps,
): Promise<RunScenarioResult> {
  return await traceScenarioRun(req.scenario, (span) => runScenarioTraced(req, deps, span));
}

async function runScenarioTraced(
  req: RunScenarioRequest,
  deps: RunScenarioDeps,
  span: RunSpanControl,
): Promise<RunScenarioResult> {
  assertSigningKey(deps.key);
  const exposure = deps.exposure ?? {};
  if (exposure.allowClientCmd === false && req.substrate?.startsWith("cmd:")) {
    throw new EmpiricError(
      "forbidden",
      "this server does not run command lines named by clients (cmd: substrates); start it with --allow-cmd-substrates, or use a scenario whose default_substrate is set",
    );
  }
  if (exposure.namesOnly) await requireScenarioName(deps.env, req.scenario, deps.scenarioDir);
  const resolved = await resolveScenario(req.scenario, scenarioLookup(deps.env, deps.scenarioDir));
  const spec = req.substrate ?? resolved.scenario.default_substrate;
  if (!spec) {
    throw new UsageError(
      `scenario ${resolved.scenario.name} has no default substrate: give --substrate (builtin:<name>, cmd:<command>, or an http(s):// URL)`,
    );
  }
  span.resolved(resolved.scenario.name, spec);
  for (const id of req.after ?? []) {
    if (!HEX64.test(id)) {
      throw new UsageError(
        `--after needs a proof_id (64 lowercase hex characters), got ${JSON.stringify(id)}`,
      );
    }
  }
  const epoch = sourceDateEpoch(deps.env);
  const lineage = [
    ...(deps.store?.lineage(resolved.scenario.name, spec) ?? []),
    ...(req.after ?? []),
  ];
  const commit = req.substrateCommit ?? (await substrateIdentity(deps.env, spec)).commit;
  if (deps.onStart) {
    const sc = resolved.scenario;
    const origin = resolved.origin.path;
    await deps.onStart({
      scenario: sc.name,
      substrate: spec,
      claim: {
        statement: sc.claim.statement,
        operationalization: sc.claim.operationalization,
        threshold: thresholdOf(sc),
        h0: sc.claim.h0,
        h1: sc.claim.h1,
      },
      datasets: sc.datasets.map((d) => {
        const where = d.url ?? resolveRelative(origin, d.path ?? "");
        return {
          name: d.name,
          kind: d.kind,
          source: d.source ?? d.url ??
            (origin.startsWith("builtin:") ? `builtin:${where}` : where),
        };
      }),
      analysis_plan: analysisPlanText(sc),
    });
  }
  const substrate = openSubstrate(spec);
  let output: RunOutput;
  try {
    output = await runScenario({
      resolved,
      substrateSpec: spec,
      substrate,
      substrateName: req.substrateName,
      substrateCommit: commit,
      key: deps.key,
      runtime: deps.env.runtime(),
      now: () => deps.env.now(),
      monotonic: () => deps.env.monotonic(),
      sourceDateEpoch: epoch,
      lineage,
      onProgress: deps.onProgress,
      signal: deps.signal,
    });
  } finally {
    await substrate.close();
  }
  let path: string | null = null;
  if (deps.store) path = (await deps.store.put(output.record)).path;
  const r = output.record;
  return {
    proof_id: r.identity.proof_id,
    scenario: resolved.scenario.name,
    substrate: spec,
    outcome: r.verdict.outcome,
    observed_value: r.verdict.observed_value,
    reasoning: r.verdict.reasoning,
    path,
    measured: output.analysis.measured,
    failures: output.analysis.failures,
    output,
  };
}

/** The JSON-ready view of a run result (what the CLI `--json`, HTTP and MCP return). */
export type RunScenarioView = Omit<RunScenarioResult, "output">;

/** Drop the typed record from a run result. */
export function runScenarioView(r: RunScenarioResult): RunScenarioView {
  const { output: _output, ...view } = r;
  return view;
}
