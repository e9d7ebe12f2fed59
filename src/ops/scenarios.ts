/**
 * `list_scenarios` and `get_scenario_claim`: the scenarios a caller may name, and one
 * scenario's pre-registered claim and plan.
 *
 * @module
 */
import { z } from "zod";
import { toPlainJson } from "../json/plain.ts";

import type { ResolvedScenario } from "../scenario/resolve.ts";
import type { OpContext } from "./context.ts";
import { defineOperation } from "./operation.ts";
import { loadModule } from "../lazy/load.ts";
import { COMPONENTS, ScenarioNameSchema, ThresholdSchema } from "./schemas.ts";

/** One scenario in `list_scenarios`. */
export const ScenarioSummarySchema = z.object({
  name: z.string().describe("The name to pass to get_scenario_claim and run_scenario"),
  title: z.string(),
  statement: z.string(),
  threshold: ThresholdSchema,
  default_substrate: z.string().nullable(),
  origin: z.enum(["builtin", "file"]),
  path: z.string().describe(
    "The scenario file (relative to the scenario directory for network clients)",
  ),
}).register(COMPONENTS, { id: "ScenarioSummary" });

/** `list_scenarios` output. */
export const ListScenariosOutput = z.object({
  scenarios: z.array(ScenarioSummarySchema),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).describe(
    "Scenario files that failed to load, and names declared by more than one file",
  ),
}).register(COMPONENTS, { id: "ListScenariosOutput" });

/** One entry of `list_scenarios`. */
export type ScenarioSummary = z.infer<typeof ScenarioSummarySchema>;

/** `get_scenario_claim` input. */
export const GetScenarioClaimInput = z.strictObject({
  name: ScenarioNameSchema.describe(
    "Scenario name (as list_scenarios gives it; the local CLI also takes a file path)",
  ),
}).register(COMPONENTS, { id: "GetScenarioClaimInput" });

/** `get_scenario_claim` output. */
export const ScenarioClaimOutput = z.object({
  name: z.string(),
  title: z.string(),
  claim: z.object({
    statement: z.string(),
    operationalization: z.string(),
    threshold: ThresholdSchema,
    h0: z.string(),
    h1: z.string(),
  }),
  datasets: z.array(z.record(z.string(), z.unknown())),
  analysis: z.record(z.string(), z.unknown()),
  probe: z.record(z.string(), z.unknown()),
  metrics: z.record(z.string(), z.unknown()),
  default_substrate: z.string().nullable(),
  config_hash: z.string().regex(/^[0-9a-f]{64}$/),
  data_hash: z.string().regex(/^[0-9a-f]{64}$/).nullable().describe(
    "SHA-256 over the datasets' content hashes, as a run records it; null when a dataset cannot be read now (data_error says why)",
  ),
  data_error: z.string().optional().describe("why data_hash is null"),
  analysis_plan: z.string().describe(
    "the analysis plan text a run records in pre_registration.analysis_plan",
  ),
  origin: z.enum(["builtin", "file"]),
  path: z.string(),
}).register(COMPONENTS, { id: "ScenarioClaim" });

/** The result of `get_scenario_claim`. */
export type ScenarioClaim = z.infer<typeof ScenarioClaimOutput>;

function shown(r: ResolvedScenario, ctx: OpContext): string {
  return r.origin.kind === "builtin"
    ? r.origin.path
    : ctx.shownPath(r.origin.path, ctx.scenarioDir);
}

function summary(r: ResolvedScenario, ctx: OpContext): ScenarioSummary {
  const t = r.scenario.claim.threshold;
  return {
    name: r.scenario.name,
    title: r.scenario.title,
    statement: r.scenario.claim.statement,
    threshold: {
      metric: t.metric,
      comparator: t.comparator,
      value: Number(t.value),
      units: t.units,
    },
    default_substrate: r.scenario.default_substrate ?? null,
    origin: r.origin.kind,
    path: shown(r, ctx),
  };
}

/** The `list_scenarios` operation. */
export const listScenariosOp = defineOperation({
  name: "list_scenarios",
  title: "List scenarios",
  description:
    "List the scenarios this server can run: the YAML/JSON scenario files in its scenario " +
    "directory, under the names they declare, then the built-ins they do not shadow. Each entry " +
    "gives the name to pass to get_scenario_claim or run_scenario, a title, the claim's " +
    "statement and threshold (metric, comparator, value, units), the default substrate, and " +
    "where it came from. Files that fail to load, and names declared twice, are listed under " +
    "errors with the reason. No arguments.",
  access: "read",
  exposure: ["no-server-paths"],
  input: z.strictObject({}),
  output: ListScenariosOutput,
  http: {
    method: "GET",
    path: "/scenarios",
    tags: ["scenarios"],
    response: "The scenarios",
    errors: [],
  },
  mcp: { tool: {} },
  run: async (_input, ctx) => {
    const { scenarios, errors } = await ctx.scenarios.list();
    return {
      scenarios: scenarios.map((r) => summary(r, ctx)),
      errors: errors.map((e) => ({
        path: ctx.shownPath(e.path, ctx.scenarioDir),
        message: e.message,
      })),
    };
  },
});

/** The `get_scenario_claim` operation (also the resource `empiric://scenarios/{name}`). */
export const getScenarioClaimOp = defineOperation({
  name: "get_scenario_claim",
  title: "Read a scenario's claim",
  description:
    "Read one scenario's pre-registered claim before running it: the statement, how it is " +
    "operationalized, the threshold, H0 and H1, the datasets, the probe, the per-item metrics, " +
    "the analysis plan (statistics, intervals, confidence, seed, minimum n, decision rule), and " +
    "the pre-registration a run will record: config_hash (SHA-256 of the normalized scenario), " +
    "data_hash (of the datasets) and the analysis plan text. `name` is a name " +
    "from list_scenarios. The same object is the resource empiric://scenarios/<name>.",
  access: "read",
  exposure: ["scenario-listed", "no-server-paths"],
  scenarioField: "name",
  input: GetScenarioClaimInput,
  output: ScenarioClaimOutput,
  http: {
    method: "GET",
    path: "/scenarios/{name}",
    tags: ["scenarios"],
    response: "The scenario's claim",
    errors: [400, 404, 422],
  },
  mcp: {
    tool: {},
    resource: {
      name: "scenario",
      title: "Scenario",
      description:
        "A scenario's normalized claim, datasets, probe, metrics, analysis plan and config_hash (as get_scenario_claim returns it)",
      template: "empiric://scenarios/{name}",
      input: (vars) => ({ name: vars.name }),
      complete: {
        name: {
          operation: "list_scenarios",
          input: {},
          values: (out) =>
            (out as z.infer<typeof ListScenariosOutput>).scenarios.map((s) => s.name),
        },
      },
      text: (out) => JSON.stringify(out),
      list: {
        operation: "list_scenarios",
        input: {},
        entries: (out) =>
          (out as z.infer<typeof ListScenariosOutput>).scenarios.map((s) => ({
            uri: scenarioUri(s.name),
            name: s.name,
            title: s.title,
            description: s.statement,
          })),
      },
    },
  },
  run: async (input, ctx) => {
    const { configHash, dataHash, loadDatasets, scenarioValue } = await loadModule<
      typeof import("../scenario/load.ts")
    >("../scenario/load.ts", import.meta.url);
    const { analysisPlanText } = await loadModule<typeof import("../run/analyze.ts")>(
      "../run/analyze.ts",
      import.meta.url,
    );
    const r = await ctx.scenarios.resolve(input.name);
    const v = toPlainJson(scenarioValue(r.scenario)) as Record<string, unknown>;
    let data: { data_hash: string | null; data_error?: string };
    try {
      data = { data_hash: await dataHash(await loadDatasets(r.scenario, r.origin.path, r.files)) };
    } catch (e) {
      data = { data_hash: null, data_error: (e as Error).message };
    }
    return {
      name: r.scenario.name,
      title: r.scenario.title,
      claim: v.claim as ScenarioClaim["claim"],
      datasets: v.datasets as ScenarioClaim["datasets"],
      analysis: v.analysis as ScenarioClaim["analysis"],
      probe: v.probe as ScenarioClaim["probe"],
      metrics: v.metrics as ScenarioClaim["metrics"],
      default_substrate: r.scenario.default_substrate ?? null,
      config_hash: await configHash(r.scenario),
      ...data,
      analysis_plan: analysisPlanText(r.scenario),
      origin: r.origin.kind,
      path: shown(r, ctx),
    };
  },
});

/** URI of a scenario resource. */
export function scenarioUri(name: string): string {
  return `empiric://scenarios/${encodeURIComponent(name)}`;
}
