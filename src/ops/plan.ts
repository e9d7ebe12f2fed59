/**
 * `plan`: power and sample size for a scenario's claim under its pre-registered decision rule,
 * before anything is run (`empiric plan <scenario> [--assume VALUE] [--sd VALUE]`). Reads the
 * scenario and counts its corpus; never touches a substrate.
 *
 * @module
 */
import { z } from "zod";
import { loadDatasets } from "../scenario/load.ts";
import { resolveScenario } from "../scenario/resolve.ts";
import { type PlanReport, planScenario } from "../run/plan.ts";
import type { OpsEnvironment } from "./environment.ts";
import { type Exposure, requireScenarioName, scenarioLookup } from "./scenarios.ts";

/** Input of `plan`. */
export const PlanInput = z.object({
  scenario: z.string().min(1).describe("scenario name, built-in name or file path"),
  assume: z.number().finite().optional().describe(
    "the assumed truth: a proportion for proportion claims, the fraction of items at or below the threshold for quantile and median claims, the mean for mean claims",
  ),
  sd: z.number().finite().positive().optional().describe(
    "mean claims: the assumed standard deviation",
  ),
}).strict();

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
});

/** The result of `plan`. */
export type PlanResult = z.infer<typeof PlanOutput>;

/**
 * Plan a scenario: resolve it, count the items its run will measure, and report decidability and
 * power (src/run/plan.ts).
 */
export async function planOp(
  input: z.infer<typeof PlanInput>,
  env: OpsEnvironment,
  scenarioDir = "scenarios",
  exposure: Exposure = {},
): Promise<PlanResult> {
  const req = PlanInput.parse(input);
  if (exposure.namesOnly) await requireScenarioName(env, req.scenario, scenarioDir);
  const lookup = scenarioLookup(env, scenarioDir);
  const resolved = await resolveScenario(req.scenario, lookup);
  const s = resolved.scenario;
  const datasets = await loadDatasets(s, resolved.origin.path, resolved.files);
  const corpus = datasets.filter((d) => d.spec.kind === "corpus" || d.spec.kind === "synthetic")
    .reduce((n, d) => n + d.items.length, 0);
  const measured = Math.max(0, corpus - s.probe.warmup_items);
  const report: PlanReport = planScenario(s, measured, req.assume, req.sd);
  return PlanOutput.parse(report);
}
