/**
 * `run_scenario`: the one implementation behind `empiric run`, the `run_scenario` tool and
 * `POST /runs`. Resolves the scenario and substrate under the caller's rules, links the direct
 * predecessor in the store, runs, signs and stores; for local callers it can also write the
 * record to a file and announce the run to an OpenLineage collector and a CloudEvents sink.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors/errors.ts";
import type { Threshold } from "../record/types.ts";
import type { RunOutput } from "../run/run.ts";
import { traceScenarioRun } from "../telemetry/instrument.ts";
import type { OpsEnvironment } from "./environment.ts";
import { defineOperation } from "./operation.ts";
import { loadModule } from "../lazy/load.ts";
import { COMPONENTS, OutcomeSchema, ProofId, ScenarioNameSchema } from "./schemas.ts";
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
  baseline_substrate: z.string().min(1).optional().describe(
    "Comparative scenarios (analysis.comparison): a second substrate measured in the same run as the baseline, interleaved item by item in the pre-registered order; same forms as substrate",
  ),
  baseline_substrate_name: z.string().min(1).max(200).optional().describe(
    "Name recorded for the baseline substrate",
  ),
  baseline_substrate_commit: z.string().min(1).max(200).optional().describe(
    "Revision recorded for the baseline substrate (default: detected with git)",
  ),
  baseline: z.string().min(1).max(4096).optional().describe(
    "Comparative scenarios: a stored proof whose observations are the baseline, by proof_id (the local CLI also takes a record file with its observations beside it); it must verify under the server's key and its observations must match their hash; it joins lineage_chain",
  ),
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
  baseline: z.object({
    substrate: z.string().nullable().describe("The baseline substrate (interleaved runs)"),
    proof_id: ProofId.nullable().describe("The baseline proof (stored-baseline runs)"),
    paired: z.boolean().describe("Both sides measured the same items in the same order"),
    measured: z.number().int(),
    failures: z.array(z.object({ id: z.string(), kind: z.string(), message: z.string() })),
  }).optional().describe("Comparative runs: the baseline side"),
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
    "earlier proof_ids this run follows. Comparative scenarios (analysis.comparison) also need a " +
    "baseline: baseline_substrate (measured in the same run, interleaved item by item) or " +
    "baseline (a stored proof_id whose observations are the baseline). observations with " +
    "observations_format judges results made elsewhere (hyperfine, pytest-benchmark, k6, JSON " +
    "Lines) instead of running a substrate. Built-in scenarios take seconds; over MCP send a " +
    "progressToken to get progress notifications, and cancel the request to stop a run " +
    "(nothing is stored). Each run writes a new record.",
  access: "write",
  exposure: ["scenario-listed", "substrate-checked", "no-server-paths"],
  scenarioField: "scenario",
  substrateField: ["substrate", "baseline_substrate"],
  proofRefFields: ["baseline"],
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
  // The run engine (statistics, substrates, exporters) loads when a run starts, not when the
  // operation is declared.
  run: (input, ctx) =>
    traceScenarioRun(async (span) =>
      (await loadModule<typeof import("./run_scenario_impl.ts")>(
        "./run_scenario_impl.ts",
        import.meta.url,
      )).runTraced(input, ctx, span)
    ),
});

export type { RunOutput };
