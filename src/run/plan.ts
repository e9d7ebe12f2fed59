/**
 * Planning a run before it happens: for the deciding pillar under the pre-registered rule, the
 * smallest n at which the claim can be decided at all, the power at the corpus's size under an
 * assumed truth, and the n needed for 80% and 90% power. `empiric run` prints the warnings.
 *
 * @module
 */
import {
  comparisonMethodProblem,
  type IntervalMethod,
  MIN_BOOTSTRAP_N,
  nForPower,
  orderStatisticMinimumN,
  powerAt,
  type PowerQuestion,
  smallestDecidableN,
  structuralRefusal,
  wilsonExactError,
} from "../stats/mod.ts";
import type { Scenario } from "../scenario/types.ts";
import type { Comparator } from "../record/types.ts";
import { pillarStatistic, shortNumber } from "./analyze.ts";

/** What a plan reports. */
export interface PlanReport {
  scenario: string;
  pillar: string;
  statistic: string;
  method: string;
  decision: "interval" | "point";
  comparator: string;
  threshold: number;
  units: string;
  confidence: number;
  one_sided_error: number;
  /** Items the run will measure: the corpus minus its warm-up items. */
  corpus_items: number;
  min_n: number;
  /** The smallest n at which VALIDATED is possible at all (null: never). */
  smallest_decidable_n: number | null;
  assumption: { value: number; sd?: number; meaning: string; source: "given" | "default" };
  /** P(VALIDATED) at corpus_items under the assumption (null when it needs --sd). */
  power_at_corpus: number | null;
  /** The smallest n with 80% and 90% power (null: none up to 1,000,000, or needs --sd). */
  n_for_power: { "0.8": number | null; "0.9": number | null };
  /** Wilson's exact one-sided error at corpus_items (Wilson pillars only). */
  exact_one_sided_error: number | null;
  warnings: string[];
  /** Comparative claims: ratio or difference (power is not computed for them). */
  comparison?: "ratio" | "difference";
}

const upper = (c: string) => c === "<" || c === "<=";

/** The default assumption: halfway to perfect for proportions and quantiles, 10% inside for means. */
function defaultAssumption(s: Scenario): { value: number; meaning: string; sd?: number } {
  const t = s.claim.threshold;
  const spec = s.analysis.pillars.find((p) => p.name === t.metric)!;
  const v = Number(t.value);
  const st = pillarStatistic(spec);
  if (st.kind === "proportion") {
    return {
      value: upper(t.comparator) ? v / 2 : v + (1 - v) / 2,
      meaning: "the true proportion (default: halfway between the threshold and perfect)",
    };
  }
  if (st.kind === "quantile" || st.kind === "median") {
    const p = st.kind === "median" ? 0.5 : st.p;
    return {
      value: upper(t.comparator) ? p + (1 - p) / 2 : p / 2,
      meaning:
        "the true fraction of items at or below the threshold (default: halfway between the quantile's level and all of them)",
    };
  }
  const range = s.metrics[spec.metric].range;
  return {
    value: upper(t.comparator) ? v - 0.1 * Math.abs(v) : v + 0.1 * Math.abs(v),
    meaning: "the true mean (default: 10% inside the threshold)",
    ...(range ? { sd: (range[1] - range[0]) / 2 } : {}),
  };
}

function meaningOf(s: Scenario): string {
  const t = s.claim.threshold;
  const spec = s.analysis.pillars.find((p) => p.name === t.metric)!;
  const st = pillarStatistic(spec);
  return st.kind === "proportion"
    ? "the true proportion"
    : st.kind === "mean"
    ? "the true mean"
    : "the true fraction of items at or below the threshold";
}

/** The decidability warnings alone (cheap; `empiric run` prints them before measuring). */
export function decidabilityWarnings(s: Scenario, corpusItems: number): string[] {
  return planScenario(s, corpusItems, undefined, undefined, false).warnings;
}

/**
 * Plan the deciding pillar of a scenario whose run will measure `corpusItems` items. `assume` is
 * the assumed truth (see {@link PlanReport.assumption}); `sd` the assumed standard deviation for
 * mean claims. With `searchPower` false only the cheap parts are computed.
 *
 * @example
 * ```ts ignore
 * const report = planScenario(scenario, 190, 0.99);
 * ```
 */
export function planScenario(
  s: Scenario,
  corpusItems: number,
  assume?: number,
  sd?: number,
  searchPower = true,
): PlanReport {
  if (s.analysis.comparison) return planComparison(s, corpusItems);
  const t = s.claim.threshold as typeof s.claim.threshold & {
    comparator: Exclude<Comparator, "within">;
  };
  const a = s.analysis;
  const spec = a.pillars.find((p) => p.name === t.metric)!;
  const statistic = pillarStatistic(spec);
  const threshold = Number(t.value);
  const beta = (1 - a.confidence) / 2;
  const def = defaultAssumption(s);
  const assumption = assume === undefined ? { ...def, source: "default" as const } : {
    value: assume,
    meaning: meaningOf(s),
    source: "given" as const,
    ...(sd ?? def.sd) !== undefined ? { sd: sd ?? def.sd } : {},
  };
  if (assume === undefined && sd !== undefined) assumption.sd = sd;
  const q: PowerQuestion = {
    statistic,
    method: spec.interval as IntervalMethod,
    decision: a.decision,
    comparator: t.comparator,
    threshold,
    confidence: a.confidence,
    assume: assumption.value,
    ...(assumption.sd !== undefined ? { sd: assumption.sd } : {}),
    ...(s.metrics[spec.metric].range ? { range: s.metrics[spec.metric].range } : {}),
  };
  const warnings: string[] = [];
  const structural = structuralRefusal(statistic, spec.interval as IntervalMethod);
  const claimText = `${t.metric} ${t.comparator} ${shortNumber(threshold)} ${t.units}`.trimEnd();
  if (structural && a.decision === "interval") {
    warnings.push(`pillar ${spec.name}: ${structural}; every run will be INCONCLUSIVE`);
  }
  if (a.decision === "interval" && spec.interval === "none") {
    warnings.push(
      `pillar ${spec.name} has no interval (interval: none) but the decision rule is interval: every run will be INCONCLUSIVE`,
    );
  }
  if (a.decision === "point") {
    warnings.push(
      "decision: point has no error control: a claim exactly at its threshold is VALIDATED about half the time",
    );
  }
  const smallest = structural && a.decision === "interval" ? null : smallestDecidableN(q);
  if (smallest !== null) {
    if (a.min_n < smallest) {
      warnings.push(
        `min_n ${a.min_n} is below ${smallest}, the smallest n at which ${claimText} can be decided by the ${spec.interval} interval at ${
          `${shortNumber(a.confidence * 100)}%`.replace(".0%", "%")
        }`,
      );
    }
    if (corpusItems < smallest) {
      warnings.push(
        `the corpus gives ${corpusItems} measured items, fewer than the ${smallest} needed to decide ${claimText}: every run will be INCONCLUSIVE`,
      );
    }
  }
  let exactError: number | null = null;
  if (statistic.kind === "proportion" && spec.interval === "wilson" && corpusItems > 0) {
    exactError = wilsonExactError(corpusItems, threshold, t.comparator, a.confidence);
    if (exactError > beta * (1 + 1e-9)) {
      warnings.push(
        `the Wilson rule's exact one-sided error at n=${corpusItems} is ${
          shortNumber(exactError * 100)
        }%, above ${shortNumber(beta * 100)}%: it will be refused; use clopper_pearson`,
      );
    }
  }
  const blocked = smallest === null;
  const powerAtCorpus = !searchPower || blocked || corpusItems < 1
    ? (blocked ? 0 : null)
    : powerAt(q, corpusItems);
  if (searchPower && !blocked && powerAtCorpus === null) {
    warnings.push("power for a mean needs the assumed standard deviation (--sd)");
  }
  return {
    scenario: s.name,
    pillar: spec.name,
    statistic: spec.statistic === "quantile" ? `quantile_${spec.p}` : spec.statistic,
    method: spec.interval,
    decision: a.decision,
    comparator: t.comparator,
    threshold,
    units: t.units,
    confidence: a.confidence,
    one_sided_error: Number(beta.toPrecision(12)),
    corpus_items: corpusItems,
    min_n: a.min_n,
    smallest_decidable_n: smallest,
    assumption,
    power_at_corpus: powerAtCorpus,
    n_for_power: searchPower && !blocked
      ? { "0.8": nForPower(q, 0.8), "0.9": nForPower(q, 0.9) }
      : { "0.8": null, "0.9": null },
    exact_one_sided_error: exactError,
    warnings,
  };
}

/**
 * The plan of a comparative claim: the smallest n per side at which the method can decide at
 * all (the bootstrap's 100 values; the order statistics' bounds at one-sided β/2 on the sides
 * the claim needs); power is not computed (docs/statistics.md: the comparison calibration table
 * shows the power of each method on typical data).
 */
function planComparison(s: Scenario, corpusItems: number): PlanReport {
  const t = s.claim.threshold;
  const a = s.analysis;
  const kind = a.comparison!.kind;
  const spec = a.pillars.find((p) => p.name === t.metric)!;
  const statistic = pillarStatistic(spec);
  const threshold = Number(t.value);
  const beta = (1 - a.confidence) / 2;
  const warnings: string[] = [];
  const claimText = `${t.metric} ${t.comparator} ${shortNumber(threshold)} ${t.units}`.trimEnd();
  const problem = comparisonMethodProblem(statistic, kind, spec.interval);
  let smallest: number | null = 1;
  if (problem) {
    smallest = null;
    warnings.push(`pillar ${spec.name}: ${problem}; every run will be INCONCLUSIVE`);
  } else if (spec.interval === "none") {
    if (a.decision === "interval") {
      smallest = null;
      warnings.push(
        `pillar ${spec.name} has no interval (interval: none) but the decision rule is interval: every run will be INCONCLUSIVE`,
      );
    }
  } else if (spec.interval === "bootstrap_percentile") {
    smallest = MIN_BOOTSTRAP_N;
  } else if (spec.interval === "order_statistic") {
    // Each side at one-sided β/2: the candidate's bound on the claim's side, the baseline's on
    // the other (both for within, and the baseline's lower bound for any ratio's upper end).
    const p = statistic.kind === "quantile" ? statistic.p : 0.5;
    const side = 1 - beta; // a two-sided interval at 1 − β has one-sided β/2
    const up = orderStatisticMinimumN(p, side, "upper");
    const low = orderStatisticMinimumN(p, side, "lower");
    smallest = Math.max(up, low);
  }
  if (a.decision === "point") {
    warnings.push(
      "decision: point has no error control: a claim exactly at its threshold is VALIDATED about half the time",
    );
  }
  if (smallest !== null) {
    if (a.min_n < smallest) {
      warnings.push(
        `min_n ${a.min_n} is below ${smallest}, the smallest n per side at which ${claimText} can be decided by the ${spec.interval} interval of the ${kind}`,
      );
    }
    if (corpusItems < smallest) {
      warnings.push(
        `the corpus gives ${corpusItems} measured items per side, fewer than the ${smallest} needed to decide ${claimText}: every run will be INCONCLUSIVE`,
      );
    }
  }
  return {
    scenario: s.name,
    pillar: spec.name,
    statistic: `${spec.statistic === "quantile" ? `quantile_${spec.p}` : spec.statistic}_${kind}`,
    method: spec.interval,
    decision: a.decision,
    comparator: t.comparator,
    threshold,
    units: t.units,
    confidence: a.confidence,
    one_sided_error: Number(beta.toPrecision(12)),
    corpus_items: corpusItems,
    min_n: a.min_n,
    smallest_decidable_n: smallest,
    assumption: {
      value: kind === "ratio" ? 1 : 0,
      meaning:
        "power is not computed for comparative claims; docs/statistics.md (comparison calibration) gives each method's power on typical data",
      source: "default",
    },
    power_at_corpus: null,
    n_for_power: { "0.8": null, "0.9": null },
    exact_one_sided_error: null,
    warnings,
    comparison: kind,
  };
}
