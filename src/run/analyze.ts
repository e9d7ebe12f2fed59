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
 * @module
 */
import {
  CROSS_CHECK_LIBRARY,
  crossCheckInterval,
  crossCheckStatistic,
  DISTRIBUTION_LIBRARY,
  EMPIRIC_LIBRARY,
  estimateInterval,
  type IntervalResult,
  type Statistic,
  statisticName,
  STATS_LIBRARY,
  wilsonExactError,
} from "../stats/mod.ts";
import { type7Position, type7Value } from "../stats/quantile.ts";
import { floatRepr } from "../json/float.ts";
import type { Comparator, Evidence, Outcome, Threshold } from "../record/types.ts";
import type { PillarSpec, Scenario } from "../scenario/types.ts";
import type { Observation } from "./observation.ts";

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
}

/** `observed <comparator> value`. */
export function satisfies(observed: number, comparator: Comparator, value: number): boolean {
  switch (comparator) {
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
 * ```
 */
export function decide(low: number, high: number, comparator: Comparator, value: number): Outcome {
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
  none: "no",
};

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
    const interval = estimateInterval(sample.values, statistic, spec.interval, opts);
    let refused = sample.refused ?? interval.refused;
    let exactError: number | undefined;
    const t = claim.threshold;
    if (deciding && statistic.kind === "proportion" && spec.interval !== "none") {
      exactError = spec.interval === "wilson"
        ? wilsonExactError(sample.values.length, Number(t.value), t.comparator, analysis.confidence)
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

function fallbackPillar(
  base: Pick<PillarResult, "spec" | "statistic" | "deciding" | "failed" | "policy" | "seed">,
  reason: string,
): PillarResult {
  const s = base.statistic;
  const lib = base.spec.interval === "none" ? STATS_LIBRARY : EMPIRIC_LIBRARY;
  return {
    ...base,
    values: [],
    refused: reason,
    undecidable: reason,
    interval: {
      estimate: 0,
      low: trivialLow(s),
      high: trivialHigh(s),
      n: 0,
      method: base.spec.interval,
      confidence: 0,
      library: lib.name,
      library_version: lib.version,
      statistic_name: statisticName(s),
      refused: reason,
    },
    crossCheckAgrees: true,
    evidence: {
      pillar: base.spec.name,
      statistic_name: statisticName(s),
      statistic_value: 0,
      library: lib.name,
      library_version: lib.version,
      ci_low: finite(trivialLow(s)),
      ci_high: finite(trivialHigh(s)),
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
): Analysis {
  const { analysis, claim } = scenario;
  const failures = observations.filter((o) => !o.ok).map((o) => ({
    id: o.id,
    kind: o.failure?.kind ?? "error",
    message: o.failure?.message ?? "failed",
  }));
  const retried = observations.filter((o) => o.attempts > 1).map((o) => ({
    id: o.id,
    attempts: o.attempts,
  }));
  const pillars = analysis.pillars.map((spec, k) =>
    analyzePillar(scenario, spec, k, observations, k === 0 ? onProgress : undefined)
  );
  const measured = observations.length;
  const deciding = pillars.find((p) => p.deciding)!;
  const t = claim.threshold;
  const value = Number(t.value);
  const conf = `${shortNumber(analysis.confidence * 100)}%`.replace(".0%", "%");
  const beta = (1 - analysis.confidence) / 2;
  const failRate = measured === 0 ? 1 : failures.length / measured;
  const iv = deciding.interval;
  const observed = deciding.evidence.statistic_value;
  const n = measured;
  const unit = t.units === "proportion" ? "" : t.units;
  const stat = `${deciding.spec.name} = ${shortNumber(observed)}${
    deciding.estimateHigh !== undefined && deciding.estimateHigh !== observed ? " or more" : ""
  } ${unit}`.trimEnd();
  const failedNote = deciding.failed > 0
    ? `, ${deciding.failed} failed items counted as ${deciding.policy}`
    : "";
  const ci = deciding.spec.interval !== "none" && deciding.refused === undefined
    ? ` (${conf} ${METHOD_TEXT[deciding.spec.interval]} CI ${shortNumber(iv.low)} to ${
      shortNumber(iv.high)
    }, n=${n}${failedNote})`
    : ` (n=${n}${failedNote})`;
  const line = `${t.comparator} ${shortNumber(value)} ${unit}`.trimEnd();
  const cannot = `the data cannot decide whether ${t.metric} ${line}`;

  let outcome: Outcome;
  let reasoning: string;
  if (measured === 0) {
    outcome = "INCONCLUSIVE";
    reasoning = `No items were measured: ${cannot}.`;
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
  } else if (analysis.decision === "point") {
    outcome = decide(observed, deciding.estimateHigh ?? observed, t.comparator, value);
    reasoning = `${stat}${ci} ${
      outcome === "VALIDATED"
        ? "satisfies"
        : outcome === "REFUTED"
        ? "does not satisfy"
        : "may or may not satisfy (censored values)"
    } ${line} (point rule: the estimate decides, with no error control).`;
  } else {
    outcome = decide(iv.low, iv.high, t.comparator, value);
    const rule = `interval rule, one-sided error ${shortNumber(beta * 100)}%`;
    if (outcome === "VALIDATED") {
      reasoning = `${stat}${ci}: the whole interval satisfies ${line} (${rule}).`;
    } else if (outcome === "REFUTED") {
      reasoning = `${stat}${ci}: no value in the interval satisfies ${line} (${rule}).`;
    } else {
      const upper = t.comparator === "<" || t.comparator === "<=";
      const side = upper ? iv.high : iv.low;
      if (!Number.isFinite(side) && iv.method === "order_statistic") {
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
    fallbackPillar({
      spec,
      statistic: pillarStatistic(spec),
      deciding: spec.name === scenario.claim.threshold.metric,
      failed: observations.filter((o) => !o.ok).length,
      policy: "n/a",
      seed: pillarSeed(scenario.analysis.seed, k),
    }, reason)
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
  const pillars = a.pillars.map((x, k) => {
    const st = x.statistic === "quantile" ? `quantile(p=${floatRepr(x.p!)}, type 7)` : x.statistic;
    const iv = x.interval === "none"
      ? "no interval"
      : x.interval.startsWith("bootstrap")
      ? `${METHOD_TEXT[x.interval]} interval (${a.resamples} resamples, MT19937 seed ${
        pillarSeed(a.seed, k)
      })`
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
  const decision = a.decision === "interval"
    ? `Decision: interval rule on ${t.metric} ${t.comparator} ${
      typeof t.value === "number" ? floatRepr(t.value) : String(t.value)
    } ${t.units}`.trimEnd() +
      `: VALIDATED when the whole ${
        `${shortNumber(a.confidence * 100)}%`.replace(".0%", "%")
      } interval satisfies it, REFUTED when none of it does (one-sided error ${
        shortNumber(beta * 100)
      }% each way), else INCONCLUSIVE`
    : `Decision: point rule on ${t.metric} ${t.comparator} ${
      typeof t.value === "number" ? floatRepr(t.value) : String(t.value)
    } ${t.units}`.trimEnd() + ": the estimate decides, with no error control";
  return [
    probe,
    `Every measured item counts (intention to treat). Pillars: ${pillars.join("; ")}.`,
    `Confidence ${floatRepr(a.confidence)}.`,
    `${decision}; INCONCLUSIVE if fewer than ${a.min_n} items are measured, if more than ${
      shortNumber(a.max_failure_rate * 100)
    }% of items fail (a rate equal to it is allowed), or if the deciding pillar's method cannot hold its level on the data.`,
    `Estimates: ${STATS_LIBRARY.name} ${STATS_LIBRARY.version}; intervals: ${EMPIRIC_LIBRARY.name} ${EMPIRIC_LIBRARY.version} with ${DISTRIBUTION_LIBRARY.name} ${DISTRIBUTION_LIBRARY.version} distribution functions; cross-checked with ${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version} and an independent recomputation of every bound.`,
  ].join(" ");
}
