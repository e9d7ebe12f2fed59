/**
 * `run_scenario`: the one implementation behind `empiric run`, the `run_scenario` tool and
 * `POST /runs`. Resolves the scenario and substrate under the caller's rules, links the direct
 * predecessor in the store, runs, signs and stores; for local callers it can also write the
 * record to a file and announce the run to an OpenLineage collector and a CloudEvents sink.
 *
 * @module
 */
import { z } from "zod";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import type { Threshold } from "../record/types.ts";
import type { RunOutput } from "../run/run.ts";
import { analysisPlanText, thresholdOf } from "../run/analyze.ts";
import { resolveRelative } from "../scenario/load.ts";
import { splitCommandLine } from "../substrate/cmd.ts";
import type { SubstrateSpec } from "../substrate/spec.ts";
import { type RunSpanControl, traceScenarioRun } from "../telemetry/instrument.ts";
import type { OpContext } from "./context.ts";
import type { OpsEnvironment } from "./environment.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS, OutcomeSchema, ProofId, ScenarioNameSchema } from "./schemas.ts";
import { checkRegistration } from "../attest/registration.ts";
import { IMPORT_FORMATS } from "../run/import.ts";

/** `run_scenario` input. */
export const RunScenarioInput = z.strictObject({
  scenario: ScenarioNameSchema.describe(
    "Scenario name (as list_scenarios gives it; the local CLI also takes a file path)",
  ),
  substrate: z.string().optional().describe(
    "builtin:<name>, cmd:<command line> or an http(s):// URL; default: the scenario's default_substrate",
  ),
  substrate_name: z.string().min(1).max(200).optional().describe(
    "Name recorded for the substrate",
  ),
  substrate_commit: z.string().min(1).max(200).optional().describe(
    "Revision recorded for the substrate (default: detected with git)",
  ),
  after: z.array(ProofId).max(100).optional().describe("Earlier proof ids this run follows"),
  observations: z.string().optional().describe(
    "Judge these results instead of running a substrate: the text of a hyperfine --export-json, pytest-benchmark --benchmark-json, k6 --out json or JSON Lines file (docs/importers.md); needs observations_format",
  ),
  observations_format: z.enum(IMPORT_FORMATS).optional().describe(
    "The format of observations: hyperfine, pytest-benchmark, k6 or jsonl",
  ),
  observations_name: z.string().min(1).max(200).optional().describe(
    "The results file's name, recorded as the dataset's source (default: results)",
  ),
  select: z.string().min(1).max(1000).optional().describe(
    "With observations: the command (hyperfine), benchmark (pytest-benchmark) or metric (k6, default http_req_duration) to take when the file has several",
  ),
}).register(COMPONENTS, { id: "RunScenarioInput" });

/** `run_scenario` output. */
export const RunScenarioOutput = z.object({
  proof_id: ProofId,
  scenario: z.string(),
  substrate: z.string(),
  outcome: OutcomeSchema,
  observed_value: z.number(),
  reasoning: z.string(),
  path: z.string().nullable().describe(
    "Where the record was stored (relative to the store for network clients), or null",
  ),
  measured: z.number().int(),
  failures: z.array(z.object({ id: z.string(), kind: z.string(), message: z.string() })),
}).register(COMPONENTS, { id: "RunScenarioOutput" });

/** The result of `run_scenario`. */
export type RunScenarioView = z.infer<typeof RunScenarioOutput>;

/** What a run has fixed before its substrate is opened (OpenLineage START). */
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

async function substrateCommitOf(env: OpsEnvironment, s: SubstrateSpec): Promise<string> {
  if (s.kind === "builtin") return env.runtime().empiricCommit;
  if (s.kind === "cmd") {
    const argv = splitCommandLine(s.commandLine);
    for (const candidate of [argv[1], argv[0]]) {
      if (candidate && /[\\/.]/.test(candidate) && await env.exists(candidate)) {
        const c = await env.gitCommit(candidate);
        if (c) return c;
      }
    }
  }
  return "unknown";
}

function startInfo(
  resolved: Awaited<ReturnType<OpContext["scenarios"]["resolve"]>>,
  spec: string,
): RunStartInfo {
  const sc = resolved.scenario;
  const origin = resolved.origin.path;
  return {
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
        source: d.source ?? d.url ?? (origin.startsWith("builtin:") ? `builtin:${where}` : where),
      };
    }),
    analysis_plan: analysisPlanText(sc),
  };
}

async function runTraced(
  input: z.infer<typeof RunScenarioInput>,
  ctx: OpContext,
  span: RunSpanControl,
): Promise<RunScenarioView> {
  if (!ctx.key) throw new UsageError("a run needs a signing key");
  assertSigningKey(ctx.key.bytes);
  const registration = ctx.registration;
  if (ctx.caller === "network" && (ctx.out || ctx.lineage || ctx.events || registration)) {
    throw new EmpiricError("forbidden", "network clients cannot direct a run's output");
  }
  const resolved = await ctx.scenarios.resolve(input.scenario);
  if (input.observations !== undefined || input.observations_format !== undefined) {
    return await importTraced(input, ctx, span, resolved);
  }
  if (input.select !== undefined || input.observations_name !== undefined) {
    throw new UsageError("select and observations_name apply only with observations");
  }
  const spec = input.substrate ?? resolved.scenario.default_substrate;
  if (!spec) {
    throw new UsageError(
      `scenario ${resolved.scenario.name} has no default substrate: give --substrate (builtin:<name>, cmd:<command>, or an http(s):// URL)`,
    );
  }
  const substrateSpec = ctx.substrate(spec);
  span.resolved(resolved.scenario.name, spec);
  const epoch = sourceDateEpoch(ctx.env);
  const store = ctx.storeLocation === undefined ? undefined : await ctx.store();
  const predecessor = store?.predecessor(resolved.scenario.name, spec);
  const links = [
    ...(predecessor ? [predecessor] : []),
    ...(input.after ?? []).map((id) => store?.link(id) ?? { proof_id: id }),
  ];
  const commit = input.substrate_commit ?? await substrateCommitOf(ctx.env, substrateSpec);

  const { OpenLineageRunEmitter } = ctx.lineage
    ? await import("../export/openlineage.ts")
    : { OpenLineageRunEmitter: undefined };
  const lineage = ctx.lineage && OpenLineageRunEmitter
    ? new OpenLineageRunEmitter(ctx.lineage.url, {
      namespace: ctx.lineage.namespace,
      apiKey: ctx.lineage.apiKey,
      onError: (err) => ctx.warn?.(`lineage: ${err.message}`),
    })
    : undefined;
  await lineage?.start(startInfo(resolved, spec));

  const { runScenario } = await import("../run/run.ts");
  const { openSubstrate } = await import("../substrate/open.ts");
  let output: RunOutput;
  try {
    const substrate = openSubstrate(spec);
    try {
      output = await runScenario({
        resolved,
        substrateSpec: spec,
        substrate,
        substrateName: input.substrate_name,
        substrateCommit: commit,
        key: ctx.key.bytes,
        runtime: ctx.env.runtime(),
        now: () => ctx.env.now(),
        monotonic: () => ctx.env.monotonic(),
        sourceDateEpoch: epoch,
        lineage: links,
        onProgress: lineage
          ? (p) => {
            ctx.onProgress?.(p);
            lineage.progress(p);
          }
          : ctx.onProgress,
        signal: ctx.signal,
        checkRegistration: registration
          ? (facts) => checkRegistration(registration.envelope, facts, registration.trust)
          : undefined,
      });
    } finally {
      await substrate.close();
    }
  } catch (e) {
    await lineage?.fail(e);
    throw e;
  }
  return await keep(output, ctx, store, lineage, resolved.scenario.name, spec);
}

/** `run --observations FILE --from FORMAT`: judge results made elsewhere. */
async function importTraced(
  input: z.infer<typeof RunScenarioInput>,
  ctx: OpContext,
  span: RunSpanControl,
  resolved: Awaited<ReturnType<OpContext["scenarios"]["resolve"]>>,
): Promise<RunScenarioView> {
  if (input.observations === undefined || input.observations_format === undefined) {
    throw new UsageError(
      "observations and observations_format go together (--observations FILE --from FORMAT)",
    );
  }
  if (input.substrate !== undefined) {
    throw new UsageError(
      "observations from a results file are judged without a substrate: leave out substrate",
    );
  }
  const format = input.observations_format;
  const spec = `import:${format}`;
  span.resolved(resolved.scenario.name, spec);
  const name = input.observations_name ?? "results";
  const bytes = new TextEncoder().encode(input.observations);
  const { importResults } = await import("../run/import.ts");
  const imported = importResults(format, bytes, name, input.select);
  const store = ctx.storeLocation === undefined ? undefined : await ctx.store();
  const predecessor = store?.predecessor(resolved.scenario.name, spec);
  const links = [
    ...(predecessor ? [predecessor] : []),
    ...(input.after ?? []).map((id) => store?.link(id) ?? { proof_id: id }),
  ];
  const registration = ctx.registration;
  const { runImported } = await import("../run/run.ts");
  const output = await runImported({
    resolved,
    substrateSpec: spec,
    substrateName: input.substrate_name,
    substrateCommit: input.substrate_commit ?? "unknown",
    key: ctx.key!.bytes,
    runtime: ctx.env.runtime(),
    now: () => ctx.env.now(),
    sourceDateEpoch: sourceDateEpoch(ctx.env),
    lineage: links,
    onProgress: ctx.onProgress,
    checkRegistration: registration
      ? (facts) => checkRegistration(registration.envelope, facts, registration.trust)
      : undefined,
    file: { name, bytes, format },
    imported,
  });
  return await keep(output, ctx, store, undefined, resolved.scenario.name, spec);
}

/** Write the record (and its bundle) where asked, store it, and announce it. */
async function keep(
  output: RunOutput,
  ctx: OpContext,
  store: Awaited<ReturnType<OpContext["store"]>> | undefined,
  lineage: { complete(record: RunOutput["record"]): Promise<void> } | undefined,
  scenario: string,
  spec: string,
): Promise<RunScenarioView> {
  const record = output.record;
  // Where the caller asked for the record, before the store: nothing is stored when the
  // record cannot be written where asked.
  // The bundle parts go first, so whoever sees a record sees the files it seals.
  if (ctx.out) {
    const { writeFileAtomic } = await import("../fs/atomic.ts");
    const { prettyJson } = await import("../json/pretty.ts");
    const { bundlePaths } = await import("../run/bundle.ts");
    const paths = bundlePaths(ctx.out);
    await writeFileAtomic(paths.observations, output.bundle.observations);
    await writeFileAtomic(paths.scenario, output.bundle.scenario);
    await writeFileAtomic(ctx.out, prettyJson(record as unknown as never));
  }
  const path = store ? (await store.put(record, output.bundle)).path : null;
  ctx.onOutput?.(output);
  await lineage?.complete(record);
  if (ctx.events) {
    try {
      const { wrap } = await import("../export/cloudevents.ts");
      const { sendCloudEvent } = await import("../export/sink.ts");
      const event = await wrap(record, { source: ctx.events.source });
      await sendCloudEvent(ctx.events.url, event, { mode: ctx.events.mode });
    } catch (e) {
      ctx.warn?.(`events: ${(e as Error).message}`);
    }
  }
  return {
    proof_id: record.identity.proof_id,
    scenario,
    substrate: spec,
    outcome: record.verdict.outcome,
    observed_value: record.verdict.observed_value,
    reasoning: record.verdict.reasoning,
    path: path === null ? null : ctx.shownPath(path, store!.dir),
    measured: output.analysis.measured,
    failures: output.analysis.failures,
  };
}

/** The `run_scenario` operation. */
export const runScenarioOp = defineOperation({
  name: "run_scenario",
  title: "Run a scenario",
  description:
    "Test a scenario's claim: send every corpus item to the substrate (the system under test), " +
    "compute the pre-registered statistics, decide the verdict, then sign the proof record and " +
    "store it. Returns outcome (VALIDATED, REFUTED or INCONCLUSIVE), the observed value, the " +
    "reasoning, proof_id, the stored path, the number of measured items and the failed calls. " +
    "substrate: builtin:echo, builtin:calculator, builtin:keyword-sentiment, cmd:<command line> " +
    "(a JSON Lines process started on the server's machine; network clients only where the " +
    "server allows it) or an http(s):// URL; default: the scenario's default_substrate. after: " +
    "earlier proof_ids this run follows. Built-in scenarios take seconds; over MCP send a " +
    "progressToken to get progress notifications, and cancel the request to stop a run " +
    "(nothing is stored). Each run writes a new record.",
  access: "write",
  exposure: ["scenario-listed", "substrate-checked", "no-server-paths"],
  scenarioField: "scenario",
  substrateField: "substrate",
  input: RunScenarioInput,
  output: RunScenarioOutput,
  http: {
    method: "POST",
    path: "/runs",
    tags: ["runs"],
    status: 201,
    headers: (out) => ({ location: `/proofs/${out.proof_id}` }),
    response: "The run's result; the record is stored (Location: /proofs/{proof_id})",
    errors: [400, 403, 404, 422, 502],
  },
  mcp: { tool: { openWorld: true } },
  run: (input, ctx) => traceScenarioRun((span) => runTraced(input, ctx, span)),
});

export type { RunOutput };
