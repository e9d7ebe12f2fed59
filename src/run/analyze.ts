/**
 * From observations to evidence entries and a verdict, following the pre-registered plan. A pure
 * function of the normalized scenario and the observations (`observation.ts`): every number that
 * decides a verdict can be recomputed from those two (docs/statistics.md spells out each step).
 *
 * Intention to treat: every measured item counts in every pillar. A failed item is 0 for
 * `success` and `exact_match`; for latency quantiles it is censored at its time limit (known only
 * to be at least that); for means and for `abs_error`/`reported` it follows
 * `analysis.on_failure` (`inconclusive`: the pillar cannot decide; `worst`: the metric's `worst`).
 *
 * The verdict, in order: INCONCLUSIVE when nothing was measured, when the failure rate exceeds
 * `max_failure_rate` (strictly: a rate equal to it is allowed), when fewer than `min_n` items were
 * measured, or when the deciding pillar is refused (its method cannot hold its level on these
 * data, or has no interval under the interval rule); otherwise the rule decides on the deciding
 * pillar's interval (or, under the point rule, its estimate): VALIDATED when it lies wholly on the
 * claim's side, REFUTED when wholly off it, else INCONCLUSIVE.
 *
 * Comparative claims (`analysis.comparison`): every pillar is the candidate's statistic divided
 * by, or minus, the baseline's, computed from both sides' observations (`src/stats/compare.ts`);
 * every rule above applies to each side (a side with too many failures or too few items makes
 * the verdict INCONCLUSIVE), and `within` compares |ratio − 1| or |difference| with the value.
 *
 * @module
 */
import {
  compareInterval,
  type ComparisonResult,
  CROSS_CHECK_LIBRARY,
  crossCheckComparison,
  crossCheckInterval,
  crossCheckStatistic,
  DISTRIBUTION_LIBRARY,
  EMPIRIC_LIBRARY,
  estimateInterval,
  type IntervalResult,
  type Statistic,
  statisticName,
  STATS_LIBRARY,
  trivialComparisonBounds,
  wilsonExactError,
} from "../stats/mod.ts";
import type { ComparisonMethod, IntervalMethod } from "../stats/mod.ts";
import { type7Position, type7Value } from "../stats/quantile.ts";
import { floatRepr } from "../json/float.ts";
import type { Comparator, Evidence, Outcome, Threshold } from "../record/types.ts";
import type { PillarSpec, Scenario } from "../scenario/types.ts";
import type { Observation } from "./observation.ts";
import { interleaveText } from "./interleave.ts";

/** Largest finite double: the record's stand-in for an unbounded side of an interval. */
export const UNBOUNDED = Number.MAX_VALUE;

/** The numbers behind one pillar. */
export interface PillarResult {
  spec: PillarSpec;
  statistic: Statistic;
  /** True for the pillar the claim's threshold names. */
  deciding: boolean;
  /** The sample the interval was computed from: one value per measured item (intention to treat). */
  values: number[];
  /** Per value: a failed item's latency, known only to be at least the value. */
  censored?: boolean[];
  /** Failed items among the measured ones. */
  failed: number;
  /** What a failed item counted as in this pillar. */
  policy: string;
  /** MT19937 seed this pillar's bootstrap used: (analysis.seed + pillar index) mod 2^32. */
  seed: number;
  interval: IntervalResult;
  /** Why this pillar cannot decide (method refused, failure policy, analysis error). */
  refused?: string;
  /**
   * Why this pillar cannot decide under any rule, the point rule included: its sample is not
   * every measured item (failed items without a value under `on_failure: inconclusive`), or it
   * has no estimate (nothing to estimate from, or the analysis failed).
   */
  undecidable?: string;
  /** Point estimate with censored values at +∞ (latency quantiles with failures). */
  estimateHigh?: number;
  /** Exact one-sided error of the proportion rule at the threshold (deciding proportions). */
  exactError?: number;
  crossCheckAgrees: boolean;
  evidence: Evidence;
  /** Comparative claims: the ratio or difference, both sides' estimates and how the interval was made. */
  comparison?: ComparisonResult;
  /** Comparative claims: the baseline's sample, censoring and failed items. */
  baseline?: { values: number[]; censored?: boolean[]; failed: number; policy: string };
}

/** The baseline's observations in a comparative claim. */
export interface BaselineInput {
  /** One per measured item of the baseline, in its corpus order. */
  observations: readonly Observation[];
  /**
   * True when both sides measured the same items in the same order (an interleaved run; a
   * stored baseline on the same corpus), so `observations[i]` of each side is the same item.
   */
  paired: boolean;
}

/** The analysis of a run. */
export interface Analysis {
  pillars: PillarResult[];
  outcome: Outcome;
  observed_value: number;
  reasoning: string;
  /** Items that failed (substrate failures, and metric errors on answers). */
  failures: { id: string; kind: string; message: string }[];
  /** Items that needed more than one attempt. */
  retried: { id: string; attempts: number }[];
  measured: number;
  /** Comparative claims: the baseline side's counts, and whether the sides were paired. */
  baseline?: {
    measured: number;
    failures: { id: string; kind: string; message: string }[];
    retried: { id: string; attempts: number }[];
    paired: boolean;
  };
}

/**
 * `observed <comparator> value`; `within` is |observed − center| ≤ value (center 1 for a ratio,
 * 0 for a difference).
 *
 * @example
 * ```ts
 * import { satisfies } from "./analyze.ts";
 * import assert from "node:assert/strict";
 * assert.ok(satisfies(1.03, "within", 0.05, 1));
 * assert.ok(!satisfies(-0.06, "within", 0.05));
 * ```
 */
export function satisfies(
  observed: number,
  comparator: Comparator,
  value: number,
  center = 0,
): boolean {
  switch (comparator) {
    case "within":
      return Math.abs(observed - center) <= value;
    case "<":
      return observed < value;
    case "<=":
      return observed <= value;
    case ">":
      return observed > value;
    case ">=":
      return observed >= value;
  }
}

/**
 * The interval rule: VALIDATED when every value in [low, high] satisfies the comparator, REFUTED
 * when none does, else INCONCLUSIVE. (The point rule applies it to [estimate, estimate], or to the
 * estimate's own range when censored values leave it uncertain.)
 *
 * @example
 * ```ts
 * import { decide } from "./analyze.ts";
 * import assert from "node:assert/strict";
 * assert.equal(decide(3.1, 4.2, "<=", 5), "VALIDATED");
 * assert.equal(decide(3.1, Infinity, "<=", 5), "INCONCLUSIVE");
 * assert.equal(decide(5.5, Infinity, "<=", 5), "REFUTED");
 * // within: both bounds inside [center − value, center + value]; REFUTED when wholly outside.
 * assert.equal(decide(0.97, 1.04, "within", 0.05, 1), "VALIDATED");
 * assert.equal(decide(1.06, 1.2, "within", 0.05, 1), "REFUTED");
 * ```
 */
export function decide(
  low: number,
  high: number,
  comparator: Comparator,
  value: number,
  center = 0,
): Outcome {
  if (comparator === "within") {
    if (low >= center - value && high <= center + value) return "VALIDATED";
    if (low > center + value || high < center - value) return "REFUTED";
    return "INCONCLUSIVE";
  }
  const upper = comparator === "<" || comparator === "<=";
  if (satisfies(upper ? high : low, comparator, value)) return "VALIDATED";
  if (!satisfies(upper ? low : high, comparator, value)) return "REFUTED";
  return "INCONCLUSIVE";
}

/** The statistic of a pillar. */
export function pillarStatistic(p: PillarSpec): Statistic {
  return p.statistic === "quantile" ? { kind: "quantile", p: p.p! } : { kind: p.statistic };
}

/** The MT19937 seed of pillar k: (seed + k) mod 2^32. */
export function pillarSeed(seed: number, k: number): number {
  return (seed + k) % 0x1_0000_0000;
}

/** Short number text for reasoning sentences (4 significant digits, Python-style repr beyond). */
export function shortNumber(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "unbounded" : "-unbounded";
  if (Math.abs(x) >= UNBOUNDED) return x > 0 ? "unbounded" : "-unbounded";
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return floatRepr(x);
  const s = Number(x.toPrecision(4));
  return floatRepr(s);
}

/** The method as a phrase. */
export const METHOD_TEXT: Record<PillarSpec["interval"], string> = {
  order_statistic: "order-statistic",
  clopper_pearson: "Clopper-Pearson",
  bootstrap_percentile: "percentile bootstrap",
  bootstrap_bca: "BCa bootstrap",
  wilson: "Wilson",
  t: "Student t",
  bounded: "bounded-mean (Anderson)",
  mcnemar: "exact paired (McNemar discordant pairs)",
  none: "no",
};

/** The center `within` is measured from: 1 for a ratio, 0 otherwise. */
export function withinCenter(s: Scenario): number {
  return s.analysis.comparison?.kind === "ratio" ? 1 : 0;
}

const finite = (x: number) => (x === Infinity ? UNBOUNDED : x === -Infinity ? -UNBOUNDED : x);

interface Sample {
  values: number[];
  censored?: boolean[];
  policy: string;
  refused?: string;
}

/** The sample of one pillar under intention to treat. */
export function pillarSample(
  scenario: Scenario,
  spec: PillarSpec,
  observations: readonly Observation[],
): Sample {
  const metric = scenario.metrics[spec.metric];
  const failed = observations.filter((o) => !o.ok).length;
  const value = (o: Observation): number | null => o.metrics[spec.metric] ?? null;
  switch (metric.kind) {
    case "success":
      return { values: observations.map((o) => value(o) ?? 0), policy: "unsuccessful (0)" };
    case "exact_match":
      return {
        values: observations.map((o) => (o.ok ? value(o) ?? 0 : 0)),
        policy: "wrong (0)",
      };
    default:
      break;
  }
  const quantile = spec.statistic === "quantile" || spec.statistic === "median";
  if (metric.kind === "latency_ms" && quantile) {
    return {
      values: observations.map((o) =>
        o.ok ? value(o) ?? o.latency_ms ?? 0 : o.latency_ms ?? scenario.probe.timeout_ms
      ),
      censored: observations.map((o) => !o.ok),
      policy: "censored at no less than its time limit",
    };
  }
  if (scenario.analysis.on_failure === "worst" && metric.worst !== undefined) {
    return {
      values: observations.map((o) => (o.ok ? value(o) ?? metric.worst! : metric.worst!)),
      policy: `worst (${floatRepr(metric.worst)})`,
    };
  }
  const known = observations.filter((o) => o.ok).map((o) => value(o) ?? 0);
  return {
    values: known,
    policy: "inconclusive",
    refused: failed > 0
      ? `${failed} failed items have no value for metric ${spec.metric}, and on_failure is inconclusive (set on_failure: worst and a worst value to count them)`
      : undefined,
  };
}

/** The type-7 estimate with censored values at +∞. */
function censoredEstimateHigh(values: number[], censored: boolean[], p: number): number {
  const sorted = Float64Array.from(values, (v, i) => (censored[i] ? Infinity : v)).sort();
  const pos = type7Position(sorted.length, p);
  const lo = sorted[pos.lower], hi = sorted[pos.upper];
  if (!Number.isFinite(hi)) return pos.exact && Number.isFinite(lo) ? lo : Infinity;
  return type7Value(pos, lo, hi);
}

function analyzePillar(
  scenario: Scenario,
  spec: PillarSpec,
  k: number,
  observations: readonly Observation[],
  onProgress?: (done: number, total: number) => void,
): PillarResult {
  const { analysis, claim } = scenario;
  const statistic = pillarStatistic(spec);
  const deciding = spec.name === claim.threshold.metric;
  const seed = pillarSeed(analysis.seed, k);
  const failed = observations.filter((o) => !o.ok).length;
  const sample = pillarSample(scenario, spec, observations);
  const opts = {
    confidence: analysis.confidence,
    resamples: analysis.resamples,
    seed,
    onProgress,
    ...(sample.censored ? { censored: sample.censored } : {}),
    ...(scenario.metrics[spec.metric].range
      ? { range: scenario.metrics[spec.metric].range as [number, number] }
      : {}),
  };
  const base = { spec, statistic, deciding, failed, policy: sample.policy, seed };
  if (sample.values.length === 0) {
    return fallbackPillar(base, sample.refused ?? "no observations");
  }
  try {
    const interval = estimateInterval(
      sample.values,
      statistic,
      spec.interval as IntervalMethod,
      opts,
    );
    let refused = sample.refused ?? interval.refused;
    let exactError: number | undefined;
    const t = claim.threshold;
    if (deciding && statistic.kind === "proportion" && spec.interval !== "none") {
      exactError = spec.interval === "wilson"
        ? wilsonExactError(
          sample.values.length,
          Number(t.value),
          t.comparator as Exclude<Comparator, "within">,
          analysis.confidence,
        )
        : undefined;
      const beta = (1 - analysis.confidence) / 2;
      if (refused === undefined && exactError !== undefined && exactError > beta * (1 + 1e-9)) {
        refused =
          `the Wilson rule's exact one-sided error at n=${sample.values.length} for ${t.comparator} ${
            shortNumber(Number(t.value))
          } is ${shortNumber(exactError * 100)}%, above the ${
            shortNumber(beta * 100)
          }% the interval promises; use clopper_pearson`;
      }
    }
    let estimateHigh: number | undefined;
    if (sample.censored?.some(Boolean)) {
      estimateHigh = censoredEstimateHigh(
        sample.values,
        sample.censored,
        statistic.kind === "median" ? 0.5 : (statistic as { p: number }).p,
      );
    }
    const ccEstimate = crossCheckStatistic(sample.values, statistic, interval.estimate);
    const ccBounds = refused === undefined
      ? crossCheckInterval(sample.values, statistic, interval, opts)
      : undefined;
    const text = ccEstimate.text +
      (ccBounds
        ? `. ${ccBounds.text}`
        : refused !== undefined
        ? ". Bounds: n/a (interval refused)"
        : spec.interval === "none"
        ? ". Bounds: n/a (no interval)"
        : "");
    const result: PillarResult = {
      ...base,
      values: sample.values,
      ...(sample.censored ? { censored: sample.censored } : {}),
      interval,
      ...(refused !== undefined ? { refused } : {}),
      ...(sample.refused !== undefined ? { undecidable: sample.refused } : {}),
      ...(estimateHigh !== undefined ? { estimateHigh } : {}),
      ...(exactError !== undefined ? { exactError } : {}),
      crossCheckAgrees: ccEstimate.agrees && (ccBounds?.agrees ?? true),
      evidence: {
        pillar: spec.name,
        statistic_name: interval.statistic_name,
        statistic_value: interval.estimate,
        library: interval.library,
        library_version: interval.library_version,
        ci_low: finite(refused !== undefined ? trivialLow(statistic) : interval.low),
        ci_high: finite(refused !== undefined ? trivialHigh(statistic) : interval.high),
        cross_check: text,
      },
    };
    return result;
  } catch (e) {
    return fallbackPillar(base, `the analysis failed: ${(e as Error)?.message ?? String(e)}`);
  }
}

const trivialLow = (s: Statistic) => (s.kind === "proportion" ? 0 : -Infinity);
const trivialHigh = (s: Statistic) => (s.kind === "proportion" ? 1 : Infinity);

/** A pillar of a comparative claim: the ratio or difference of both sides' statistic. */
function analyzeComparisonPillar(
  scenario: Scenario,
  spec: PillarSpec,
  k: number,
  observations: readonly Observation[],
  baseline: BaselineInput,
  onProgress?: (done: number, total: number) => void,
): PillarResult {
  const { analysis, claim } = scenario;
  const kind = analysis.comparison!.kind;
  const statistic = pillarStatistic(spec);
  const deciding = spec.name === claim.threshold.metric;
  const seed = pillarSeed(analysis.seed, k);
  const failed = observations.filter((o) => !o.ok).length;
  const baseFailed = baseline.observations.filter((o) => !o.ok).length;
  let c = pillarSample(scenario, spec, observations);
  let b = pillarSample(scenario, spec, baseline.observations);
  if (baseline.paired && (c.refused !== undefined || b.refused !== undefined)) {
    // Failed items without a value (on_failure: inconclusive) leave each side's sample: paired
    // sides keep only the items both answered, so that pairs stay pairs. The pillar cannot
    // decide either way (refused and undecidable below); its estimate is that of the pairs.
    const both = observations.map((o, i) => o.ok && baseline.observations[i]?.ok === true);
    const kept = (obs: readonly Observation[]) => obs.filter((_, i) => both[i]);
    c = { ...pillarSample(scenario, spec, kept(observations)), refused: c.refused };
    b = { ...pillarSample(scenario, spec, kept(baseline.observations)), refused: b.refused };
  }
  const base = {
    spec,
    statistic,
    deciding,
    failed,
    policy: c.policy,
    seed,
    baseline: {
      values: b.values,
      ...(b.censored ? { censored: b.censored } : {}),
      failed: baseFailed,
      policy: b.policy,
    },
  };
  const sideRefusal = c.refused !== undefined
    ? `candidate: ${c.refused}`
    : b.refused !== undefined
    ? `baseline: ${b.refused}`
    : undefined;
  if (c.values.length === 0 || b.values.length === 0) {
    return fallbackPillar(
      base,
      sideRefusal ?? `no observations on the ${c.values.length === 0 ? "candidate" : "baseline"}`,
      kind,
    );
  }
  const opts = {
    confidence: analysis.confidence,
    paired: baseline.paired,
    resamples: analysis.resamples,
    seed,
    onProgress,
    ...(c.censored || b.censored
      ? {
        censored: {
          ...(c.censored ? { candidate: c.censored } : {}),
          ...(b.censored ? { baseline: b.censored } : {}),
        },
      }
      : {}),
    ...(scenario.metrics[spec.metric].range
      ? { range: scenario.metrics[spec.metric].range as [number, number] }
      : {}),
  };
  try {
    const cmp = compareInterval(
      c.values,
      b.values,
      statistic,
      kind,
      spec.interval as ComparisonMethod,
      opts,
    );
    const refused = sideRefusal ?? cmp.refused;
    // Failed items without a value: no rule can decide (the point rule included), as for one
    // sample.
    const undecidable = sideRefusal;
    const cc = crossCheckComparison(c.values, b.values, statistic, cmp, opts);
    const trivial = trivialComparisonBounds(statistic, kind);
    const interval: IntervalResult = {
      estimate: cmp.estimate,
      low: cmp.low,
      high: cmp.high,
      n: c.values.length,
      method: spec.interval as IntervalMethod,
      confidence: cmp.confidence,
      library: cmp.library,
      library_version: cmp.library_version,
      statistic_name: cmp.statistic_name,
      estimate_library: cmp.estimate_library,
      ...(cmp.distribution_library ? { distribution_library: cmp.distribution_library } : {}),
      ...(cmp.refused !== undefined ? { refused: cmp.refused } : {}),
      ...(cmp.mc_se ? { mc_se: cmp.mc_se } : {}),
      ...(cmp.percentile_levels ? { percentile_levels: cmp.percentile_levels } : {}),
      ...(cmp.skewness !== undefined ? { skewness: cmp.skewness } : {}),
      ...(cmp.resamples !== undefined ? { resamples: cmp.resamples, seed: cmp.seed } : {}),
    };
    return {
      ...base,
      values: c.values,
      ...(c.censored ? { censored: c.censored } : {}),
      interval,
      comparison: cmp,
      ...(refused !== undefined ? { refused } : {}),
      ...(undecidable !== undefined ? { undecidable } : {}),
      crossCheckAgrees: cc.agrees,
      evidence: {
        pillar: spec.name,
        statistic_name: cmp.statistic_name,
        statistic_value: cmp.estimate,
        library: cmp.library,
        library_version: cmp.library_version,
        ci_low: finite(refused !== undefined ? trivial.low : cmp.low),
        ci_high: finite(refused !== undefined ? trivial.high : cmp.high),
        cross_check: cc.text,
      },
    };
  } catch (e) {
    return fallbackPillar(base, `the analysis failed: ${(e as Error)?.message ?? String(e)}`, kind);
  }
}

function fallbackPillar(
  base: Pick<PillarResult, "spec" | "statistic" | "deciding" | "failed" | "policy" | "seed">,
  reason: string,
  kind?: "ratio" | "difference",
): PillarResult {
  const s = base.statistic;
  const lib = base.spec.interval === "none" ? STATS_LIBRARY : EMPIRIC_LIBRARY;
  const trivial = kind
    ? trivialComparisonBounds(s, kind)
    : { low: trivialLow(s), high: trivialHigh(s) };
  const name = kind ? `${statisticName(s)}_${kind}` : statisticName(s);
  return {
    ...base,
    values: [],
    refused: reason,
    undecidable: reason,
    interval: {
      estimate: 0,
      low: trivial.low,
      high: trivial.high,
      n: 0,
      method: base.spec.interval as IntervalMethod,
      confidence: 0,
      library: lib.name,
      library_version: lib.version,
      statistic_name: name,
      refused: reason,
    },
    crossCheckAgrees: true,
    evidence: {
      pillar: base.spec.name,
      statistic_name: name,
      statistic_value: 0,
      library: lib.name,
      library_version: lib.version,
      ci_low: finite(trivial.low),
      ci_high: finite(trivial.high),
      cross_check: `n/a (${reason})`,
    },
  };
}

/**
 * Analyse observations per the plan. `onProgress` reports bootstrap resamples; it does not change
 * any number.
 */
export function analyze(
  scenario: Scenario,
  observations: readonly Observation[],
  onProgress?: (done: number, total: number) => void,
  baseline?: BaselineInput,
): Analysis {
  const { analysis, claim } = scenario;
  const comparison = analysis.comparison;
  if (comparison && !baseline) {
    throw new Error(
      "the scenario makes a comparative claim and no baseline was given (--baseline-substrate or --baseline)",
    );
  }
  if (!comparison && baseline) {
    throw new Error("a baseline was given, but the scenario declares no analysis.comparison");
  }
  const failuresOf = (obs: readonly Observation[]) =>
    obs.filter((o) => !o.ok).map((o) => ({
      id: o.id,
      kind: o.failure?.kind ?? "error",
      message: o.failure?.message ?? "failed",
    }));
  const retriedOf = (obs: readonly Observation[]) =>
    obs.filter((o) => o.attempts > 1).map((o) => ({ id: o.id, attempts: o.attempts }));
  const failures = failuresOf(observations);
  const retried = retriedOf(observations);
  const pillars = analysis.pillars.map((spec, k) =>
    baseline
      ? analyzeComparisonPillar(
        scenario,
        spec,
        k,
        observations,
        baseline,
        k === 0 ? onProgress : undefined,
      )
      : analyzePillar(scenario, spec, k, observations, k === 0 ? onProgress : undefined)
  );
  const measured = observations.length;
  const base = baseline
    ? {
      measured: baseline.observations.length,
      failures: failuresOf(baseline.observations),
      retried: retriedOf(baseline.observations),
      paired: baseline.paired,
    }
    : undefined;
  const deciding = pillars.find((p) => p.deciding)!;
  const t = claim.threshold;
  const value = Number(t.value);
  const center = withinCenter(scenario);
  const conf = `${shortNumber(analysis.confidence * 100)}%`.replace(".0%", "%");
  const beta = (1 - analysis.confidence) / 2;
  const failRate = measured === 0 ? 1 : failures.length / measured;
  const baseFailRate = !base ? 0 : base.measured === 0 ? 1 : base.failures.length / base.measured;
  const iv = deciding.interval;
  const observed = deciding.evidence.statistic_value;
  const n = measured;
  const unit = t.units === "proportion" ? "" : t.units;
  const cmp = deciding.comparison;
  const sides = cmp
    ? ` (candidate ${shortNumber(cmp.candidate.estimate)}, baseline ${
      shortNumber(cmp.baseline.estimate)
    })`
    : "";
  const stat =
    `${deciding.spec.name} = ${shortNumber(observed)}${
      deciding.estimateHigh !== undefined && deciding.estimateHigh !== observed ? " or more" : ""
    } ${unit}`.trimEnd() + sides;
  const failedNote =
    (deciding.failed > 0
      ? `, ${deciding.failed} failed ${base ? "candidate " : ""}items counted as ${deciding.policy}`
      : "") +
    (deciding.baseline && deciding.baseline.failed > 0
      ? `, ${deciding.baseline.failed} failed baseline items counted as ${deciding.baseline.policy}`
      : "");
  const nText = base
    ? `n=${n} candidate and ${base.measured} baseline items${
      base.paired ? ", paired" : ", unpaired"
    }`
    : `n=${n}`;
  const methodText = cmp && !["bootstrap_percentile", "mcnemar", "none"].includes(cmp.method)
    ? `${METHOD_TEXT[deciding.spec.interval]} (each side at ${shortNumber(beta * 50)}%, combined)`
    : cmp && cmp.method === "bootstrap_percentile"
    ? `${base!.paired ? "paired" : "unpaired"} ${METHOD_TEXT[deciding.spec.interval]}`
    : METHOD_TEXT[deciding.spec.interval];
  const ci = deciding.spec.interval !== "none" && deciding.refused === undefined
    ? ` (${conf} ${methodText} CI ${shortNumber(iv.low)} to ${
      shortNumber(iv.high)
    }, ${nText}${failedNote})`
    : ` (${nText}${failedNote})`;
  const line = t.comparator === "within"
    ? `within ${shortNumber(value)} ${unit}`.trimEnd() +
      ` (|${comparison!.kind === "ratio" ? "ratio − 1" : "difference"}| ≤ ${shortNumber(value)})`
    : `${t.comparator} ${shortNumber(value)} ${unit}`.trimEnd();
  const cannot = `the data cannot decide whether ${t.metric} ${line}`;

  let outcome: Outcome;
  let reasoning: string;
  const baseCensored = deciding.baseline?.censored?.some(Boolean) ||
    (cmp !== undefined && deciding.censored?.some(Boolean));
  if (measured === 0 || (base && base.measured === 0)) {
    outcome = "INCONCLUSIVE";
    reasoning = `No items were measured${
      base ? ` on the ${measured === 0 ? "candidate" : "baseline"}` : ""
    }: ${cannot}.`;
  } else if (base && baseFailRate > analysis.max_failure_rate) {
    outcome = "INCONCLUSIVE";
    reasoning = `${base.failures.length} of ${base.measured} baseline items failed (${
      shortNumber(baseFailRate * 100)
    }%), more than the pre-registered maximum failure rate of ${
      shortNumber(analysis.max_failure_rate * 100)
    }%: ${cannot}.`;
  } else if (base && base.measured < analysis.min_n) {
    outcome = "INCONCLUSIVE";
    reasoning =
      `${stat}${ci} rests on ${base.measured} baseline items, fewer than the pre-registered minimum of ${analysis.min_n}: ${cannot}.`;
  } else if (failRate > analysis.max_failure_rate) {
    outcome = "INCONCLUSIVE";
    reasoning = `${failures.length} of ${measured} items failed (${
      shortNumber(failRate * 100)
    }%), more than the pre-registered maximum failure rate of ${
      shortNumber(analysis.max_failure_rate * 100)
    }%: ${cannot}.`;
  } else if (n < analysis.min_n) {
    outcome = "INCONCLUSIVE";
    reasoning =
      `${stat}${ci} rests on ${n} items, fewer than the pre-registered minimum of ${analysis.min_n}: ${cannot}.`;
  } else if (analysis.decision === "interval" && deciding.refused !== undefined) {
    outcome = "INCONCLUSIVE";
    reasoning = `${stat}${ci}: ${deciding.refused}; ${cannot}.`;
  } else if (deciding.undecidable !== undefined) {
    outcome = "INCONCLUSIVE";
    reasoning = `${stat}${ci}: ${deciding.undecidable}; ${cannot}.`;
  } else if (analysis.decision === "interval" && deciding.spec.interval === "none") {
    outcome = "INCONCLUSIVE";
    reasoning =
      `${stat}${ci}: the deciding pillar has no interval (interval: none) and the decision rule is interval; ${cannot}.`;
  } else if (analysis.decision === "point" && baseCensored) {
    outcome = "INCONCLUSIVE";
    reasoning =
      `${stat}${ci}: failed items are censored latencies, known only to be at least their time limit, so the point estimate of the ${
        comparison!.kind
      } is uncertain in both directions; ${cannot}.`;
  } else if (analysis.decision === "point") {
    outcome = decide(observed, deciding.estimateHigh ?? observed, t.comparator, value, center);
    reasoning = `${stat}${ci} ${
      outcome === "VALIDATED"
        ? "satisfies"
        : outcome === "REFUTED"
        ? "does not satisfy"
        : "may or may not satisfy (censored values)"
    } ${line} (point rule: the estimate decides, with no error control).`;
  } else {
    outcome = decide(iv.low, iv.high, t.comparator, value, center);
    const rule = t.comparator === "within"
      ? `interval rule, two one-sided bounds, error ${shortNumber(beta * 100)}% each`
      : `interval rule, one-sided error ${shortNumber(beta * 100)}%`;
    if (outcome === "VALIDATED") {
      reasoning = `${stat}${ci}: the whole interval satisfies ${line} (${rule}).`;
    } else if (outcome === "REFUTED") {
      reasoning = `${stat}${ci}: no value in the interval satisfies ${line} (${rule}).`;
    } else {
      const upper = t.comparator === "<" || t.comparator === "<=";
      const side = upper ? iv.high : iv.low;
      if (!cmp && !Number.isFinite(side) && iv.method === "order_statistic") {
        reasoning = `${stat}${ci}: with ${n} items no finite ${
          upper ? "upper" : "lower"
        } bound exists for this quantile (failed items are censored, or n is below the minimum the order-statistic interval needs), so ${cannot} (${rule}).`;
      } else {
        reasoning =
          `${stat}${ci}: the interval straddles the threshold ${line}, so ${cannot} (${rule}).`;
      }
    }
  }
  if (failures.length > 0 && outcome !== "INCONCLUSIVE") {
    reasoning += ` ${failures.length} of ${measured} items failed, within the failure budget of ${
      shortNumber(analysis.max_failure_rate * 100)
    }%.`;
  }
  if (base && base.failures.length > 0 && outcome !== "INCONCLUSIVE") {
    reasoning += ` ${base.failures.length} of ${base.measured} baseline items failed.`;
  }
  if (retried.length > 0) {
    reasoning +=
      ` ${retried.length} items needed retries; their latency runs from the first attempt.`;
  }
  return {
    pillars,
    outcome,
    observed_value: observed,
    reasoning,
    failures,
    retried,
    measured,
    ...(base ? { baseline: base } : {}),
  };
}

/**
 * The verdict when the analysis itself crashed: INCONCLUSIVE, with the reason, and an evidence
 * entry per pillar that claims nothing.
 */
export function failedAnalysis(
  scenario: Scenario,
  observations: readonly Observation[],
  error: unknown,
): Analysis {
  const reason = `the analysis failed: ${(error as Error)?.message ?? String(error)}`;
  const pillars = scenario.analysis.pillars.map((spec, k) =>
    fallbackPillar(
      {
        spec,
        statistic: pillarStatistic(spec),
        deciding: spec.name === scenario.claim.threshold.metric,
        failed: observations.filter((o) => !o.ok).length,
        policy: "n/a",
        seed: pillarSeed(scenario.analysis.seed, k),
      },
      reason,
      scenario.analysis.comparison?.kind,
    )
  );
  return {
    pillars,
    outcome: "INCONCLUSIVE",
    observed_value: 0,
    reasoning:
      `${observations.length} items were measured, but ${reason}; no verdict can be drawn.`,
    failures: observations.filter((o) => !o.ok).map((o) => ({
      id: o.id,
      kind: o.failure?.kind ?? "error",
      message: o.failure?.message ?? "failed",
    })),
    retried: observations.filter((o) => o.attempts > 1).map((o) => ({
      id: o.id,
      attempts: o.attempts,
    })),
    measured: observations.length,
  };
}

/** The threshold object recorded in the claim and verdict (value keeps its int/float type). */
export function thresholdOf(s: Scenario): Threshold {
  const t = s.claim.threshold;
  return { metric: t.metric, comparator: t.comparator, value: t.value, units: t.units };
}

/** What a failed item counts as in a pillar, as the plan states it. */
function policyText(s: Scenario, p: PillarSpec): string {
  const m = s.metrics[p.metric];
  if (m.kind === "success") return "a failed item counts as unsuccessful (0)";
  if (m.kind === "exact_match") return "a failed item counts as wrong (0)";
  if (m.kind === "latency_ms" && (p.statistic === "quantile" || p.statistic === "median")) {
    return "a failed item counts as at least its time limit (censored)";
  }
  return s.analysis.on_failure === "worst" && m.worst !== undefined
    ? `a failed item counts as ${floatRepr(m.worst)} (on_failure worst)`
    : "any failed item makes this pillar inconclusive (on_failure inconclusive)";
}

/** The pre-registered analysis plan as one deterministic paragraph. */
export function analysisPlanText(s: Scenario): string {
  const a = s.analysis;
  const p = s.probe;
  const beta = (1 - a.confidence) / 2;
  const cmp = a.comparison;
  const pillars = a.pillars.map((x, k) => {
    const one = x.statistic === "quantile" ? `quantile(p=${floatRepr(x.p!)}, type 7)` : x.statistic;
    const st = cmp
      ? `the ${one} ${
        cmp.kind === "ratio" ? "ratio (candidate / baseline)" : "difference (candidate − baseline)"
      }`
      : one;
    const iv = x.interval === "none"
      ? "no interval"
      : cmp && x.interval === "bootstrap_percentile"
      ? `${
        x.statistic === "mean" ? "expanded percentile" : "percentile"
      } bootstrap interval of the ${cmp.kind}, paired over items when the sides are paired (${a.resamples} resamples, MT19937 seed ${
        pillarSeed(a.seed, k)
      })`
      : cmp && x.interval === "mcnemar"
      ? `${METHOD_TEXT[x.interval]} interval (needs paired sides)`
      : cmp
      ? `${METHOD_TEXT[x.interval]} interval of each side at one-sided ${
        shortNumber(beta * 50)
      }%, combined`
      : x.interval.startsWith("bootstrap")
      ? `${x.interval === "bootstrap_percentile" ? "expanded " : ""}${
        METHOD_TEXT[x.interval]
      } interval (${a.resamples} resamples, MT19937 seed ${pillarSeed(a.seed, k)})`
      : x.interval === "bounded"
      ? `${METHOD_TEXT[x.interval]} interval over the range [${
        s.metrics[x.metric].range!.map(floatRepr).join(", ")
      }]`
      : `${METHOD_TEXT[x.interval]} interval`;
    return `${x.name} = ${st} of metric ${x.metric} (${s.metrics[x.metric].kind}), ${iv}; ${
      policyText(s, x)
    }`;
  });
  const t = s.claim.threshold;
  const probe = [
    `Probe: send ${
      p.send || "the whole item"
    } per item, timeout ${p.timeout_ms} ms, ${p.retries} retries (latency runs from the first attempt), concurrency ${p.concurrency}, ${p.warmup_items} warm-up items; every lane is started and primed before measuring, and restarts are outside every item's clock`,
    p.arrival_rate !== undefined
      ? `; open loop at ${
        floatRepr(p.arrival_rate)
      } calls per second, each measured from its scheduled start.`
      : ".",
  ].join("");
  const tv = typeof t.value === "number" ? floatRepr(t.value) : String(t.value);
  const withinText = t.comparator === "within"
    ? ` (|${cmp?.kind === "ratio" ? "ratio − 1" : "difference"}| <= ${tv}, two one-sided bounds)`
    : "";
  const decision = a.decision === "interval"
    ? `Decision: interval rule on ${t.metric} ${t.comparator} ${tv} ${t.units}`.trimEnd() +
      withinText +
      `: VALIDATED when the whole ${
        `${shortNumber(a.confidence * 100)}%`.replace(".0%", "%")
      } interval satisfies it, REFUTED when none of it does (one-sided error ${
        shortNumber(beta * 100)
      }% each way), else INCONCLUSIVE`
    : `Decision: point rule on ${t.metric} ${t.comparator} ${tv} ${t.units}`.trimEnd() +
      withinText + ": the estimate decides, with no error control";
  const comparison = cmp
    ? `Comparison (${cmp.kind}): a candidate against a baseline. With a baseline substrate, ${
      interleaveText(a.seed)
    }; the sides are paired. With a stored baseline proof, its observations are the baseline (the proof must verify and its observations match their hash); the sides are paired when the baseline measured the same corpus (same content hashes) with the same item ids in the same order, else unpaired. Every rule below applies to each side.`
    : undefined;
  return [
    probe,
    ...(comparison ? [comparison] : []),
    `Every measured item counts (intention to treat). Pillars: ${pillars.join("; ")}.`,
    `Confidence ${floatRepr(a.confidence)}.`,
    `${decision}; INCONCLUSIVE if fewer than ${a.min_n} items are measured${
      cmp ? " on either side" : ""
    }, if more than ${
      shortNumber(a.max_failure_rate * 100)
    }% of items fail (a rate equal to it is allowed), or if the deciding pillar's method cannot hold its level on the data.`,
    `Estimates: ${STATS_LIBRARY.name} ${STATS_LIBRARY.version}; intervals: ${EMPIRIC_LIBRARY.name} ${EMPIRIC_LIBRARY.version} with ${DISTRIBUTION_LIBRARY.name} ${DISTRIBUTION_LIBRARY.version} distribution functions; cross-checked with ${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version} and an independent recomputation of every bound.`,
  ].join(" ");
}
