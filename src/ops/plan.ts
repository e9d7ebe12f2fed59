/**
 * `plan`: power and sample size for a scenario's claim under its pre-registered decision rule,
 * before anything is run (`empiric plan <scenario> [--assume VALUE] [--sd VALUE]`). Reads the
 * scenario and counts its corpus; never touches a substrate.
 *
 * @module
 */
import { z } from "zod";
import type { PlanReport } from "../run/plan.ts";
import type { OpContext } from "./context.ts";
import { defineOperation } from "./operation.ts";
import { loadModule } from "../lazy/load.ts";
import { COMPONENTS, ScenarioNameSchema } from "./schemas.ts";

/** Input of `plan`. */
export const PlanInput = z.strictObject({
  scenario: ScenarioNameSchema.describe(
    "Scenario name (as list_scenarios gives it; the local CLI also takes a file path)",
  ),
  assume: z.number().finite().optional().describe(
    "the assumed truth: a proportion for proportion claims, the fraction of items at or below the threshold for quantile and median claims, the mean for mean claims",
  ),
  sd: z.number().finite().positive().optional().describe(
    "mean claims: the assumed standard deviation",
  ),
}).register(COMPONENTS, { id: "PlanInput" });

/** Output of `plan`. */
export const PlanOutput = z.object({
  scenario: z.string(),
  pillar: z.string(),
  statistic: z.string(),
  method: z.string(),
  decision: z.enum(["interval", "point"]),
  comparator: z.string(),
  threshold: z.number(),
  units: z.string(),
  confidence: z.number(),
  one_sided_error: z.number(),
  corpus_items: z.number().int(),
  min_n: z.number().int(),
  smallest_decidable_n: z.number().int().nullable(),
  assumption: z.object({
    value: z.number(),
    sd: z.number().optional(),
    meaning: z.string(),
    source: z.enum(["given", "default"]),
  }),
  power_at_corpus: z.number().nullable(),
  n_for_power: z.object({ "0.8": z.number().int().nullable(), "0.9": z.number().int().nullable() }),
  exact_one_sided_error: z.number().nullable(),
  warnings: z.array(z.string()),
  comparison: z.enum(["ratio", "difference"]).optional().describe(
    "Comparative claims: the deciding statistic is the candidate's divided by (ratio) or minus (difference) the baseline's; power is not computed for them",
  ),
}).register(COMPONENTS, { id: "PlanOutput" });

/** The result of `plan`. */
export type PlanResult = z.infer<typeof PlanOutput>;

/**
 * Plan a scenario: resolve it, count the items its run will measure, and report decidability and
 * power (src/run/plan.ts).
 */
export async function planScenarioReport(
  input: z.infer<typeof PlanInput>,
  ctx: Pick<OpContext, "scenarios">,
): Promise<PlanResult> {
  const { loadDatasets } = await loadModule<typeof import("../scenario/load.ts")>(
    "../scenario/load.ts",
    import.meta.url,
  );
  const { planScenario } = await loadModule<typeof import("../run/plan.ts")>(
    "../run/plan.ts",
    import.meta.url,
  );
  const resolved = await ctx.scenarios.resolve(input.scenario);
  const s = resolved.scenario;
  const datasets = await loadDatasets(s, resolved.origin.path, resolved.files);
  const corpus = datasets.filter((d) => d.spec.kind === "corpus" || d.spec.kind === "synthetic")
    .reduce((n, d) => n + d.items.length, 0);
  const measured = Math.max(0, corpus - s.probe.warmup_items);
  const report: PlanReport = planScenario(s, measured, input.assume, input.sd);
  return PlanOutput.parse(report);
}

/** The `plan` operation: `empiric plan`, `POST /plan`, the MCP tool `plan_scenario`. */
export const planOp = defineOperation({
  name: "plan_scenario",
  title: "Plan a scenario's sample size",
  description:
    "Before running a scenario: for its claim's deciding pillar under the pre-registered rule, " +
    "the smallest number of items at which the claim can be decided at all, the power at the " +
    "corpus's size, and the number of items needed for 80% and 90% power, under an assumed " +
    "truth (assume: a proportion for proportion claims, the fraction of items at or below the " +
    "threshold for quantile and median claims, the mean for mean claims with sd). Without " +
    "assume a default on the claim's side is used. Warnings say when the plan cannot decide.",
  access: "read",
  exposure: ["scenario-listed"],
  scenarioField: "scenario",
  input: PlanInput,
  output: PlanOutput,
  http: {
    method: "POST",
    path: "/plan",
    tags: ["scenarios"],
    response: "The plan: decidability and power",
    errors: [404, 422],
  },
  mcp: { tool: {} },
  run: (input, ctx) => planScenarioReport(input, ctx),
});
