/**
 * From item outcomes to evidence entries and a verdict, following the pre-registered plan.
 *
 * @module
 */
import {
  CROSS_CHECK_LIBRARY,
  crossCheckStatistic,
  estimateInterval,
  type IntervalResult,
  type Statistic,
  statisticName,
  STATS_LIBRARY,
} from "../stats/mod.ts";
import { floatRepr } from "../json/float.ts";
import type { JsonObject } from "../json/value.ts";
import type { Comparator, Evidence, Outcome, Threshold } from "../record/types.ts";
import type { PillarSpec, Scenario } from "../scenario/types.ts";
import { type ItemOutcome, MetricError, metricValue } from "./metrics.ts";

/** The numbers behind one pillar. */
export interface PillarResult {
  spec: PillarSpec;
  values: number[];
  interval: IntervalResult | null;
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

function statistic(p: PillarSpec): Statistic {
  return p.statistic === "quantile" ? { kind: "quantile", p: p.p! } : { kind: p.statistic };
}

/** Short number text for reasoning sentences (4 significant digits, Python-style repr beyond). */
export function shortNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return floatRepr(x);
  const s = Number(x.toPrecision(4));
  return floatRepr(s);
}

const METHOD_TEXT: Record<PillarSpec["interval"], string> = {
  bootstrap_percentile: "percentile bootstrap",
  bootstrap_bca: "BCa bootstrap",
  wilson: "Wilson",
  t: "Student t",
  none: "no",
};

/**
 * Analyse outcomes per the plan. `onProgress` reports bootstrap resamples.
 */
export function analyze(
  scenario: Scenario,
  items: readonly JsonObject[],
  outcomes: readonly ItemOutcome[],
  onProgress?: (done: number, total: number) => void,
): Analysis {
  const { analysis, claim } = scenario;
  const warm = Math.min(scenario.probe.warmup_items, items.length);
  const failed = new Map<number, { id: string; kind: string; message: string }>();
  for (const o of outcomes) if (!o.ok) failed.set(o.index, { id: o.id, ...o.failure });

  // Metric values; a successful call whose answer lacks what a metric needs is a failed item.
  const values = new Map<string, (number | undefined)[]>();
  for (const [name, spec] of Object.entries(scenario.metrics)) {
    const col: (number | undefined)[] = [];
    for (const o of outcomes) {
      try {
        col.push(metricValue(spec, items[warm + o.index], o));
      } catch (e) {
        if (!(e instanceof MetricError)) throw e;
        col.push(undefined);
        if (!failed.has(o.index)) {
          failed.set(o.index, {
            id: o.id,
            kind: "invalid_response",
            message: `metric ${name}: ${e.message}`,
          });
        }
      }
    }
    values.set(name, col);
  }
  const failedIdx = new Set(failed.keys());

  const pillars: PillarResult[] = analysis.pillars.map((spec, k) => {
    const metric = scenario.metrics[spec.metric];
    const col = values.get(spec.metric)!;
    // success counts every item; other metrics only items that did not fail
    const xs = col.filter((v, i): v is number =>
      v !== undefined && (metric.kind === "success" || !failedIdx.has(i))
    );
    const stat = statistic(spec);
    let interval: IntervalResult | null = null;
    let evidence: Evidence;
    if (xs.length === 0) {
      evidence = {
        pillar: spec.name,
        statistic_name: statisticName(stat),
        statistic_value: 0,
        library: STATS_LIBRARY.name,
        library_version: STATS_LIBRARY.version,
        ci_low: 0,
        ci_high: 0,
        cross_check: "n/a (no observations: every item failed)",
      };
    } else {
      interval = estimateInterval(xs, stat, spec.interval, {
        confidence: analysis.confidence,
        resamples: analysis.resamples,
        seed: analysis.seed + k,
        onProgress: k === 0 ? onProgress : undefined,
      });
      const cc = crossCheckStatistic(xs, stat, interval.estimate);
      evidence = {
        pillar: spec.name,
        statistic_name: interval.statistic_name,
        statistic_value: interval.estimate,
        library: interval.library,
        library_version: interval.library_version,
        ci_low: interval.low,
        ci_high: interval.high,
        cross_check: cc.text,
      };
    }
    return { spec, values: xs, interval, evidence };
  });

  const measured = outcomes.length;
  const deciding = pillars.find((p) => p.spec.name === claim.threshold.metric)!;
  const t = claim.threshold;
  const value = Number(t.value);
  const conf = `${shortNumber(analysis.confidence * 100)}%`.replace(".0%", "%");
  const failRate = measured === 0 ? 1 : failed.size / measured;
  const observed = deciding.evidence.statistic_value;
  const n = deciding.values.length;
  const unit = t.units === "proportion" ? "" : t.units;
  const stat = `${deciding.spec.name} = ${shortNumber(observed)} ${unit}`.trimEnd();
  const ci = deciding.interval && deciding.spec.interval !== "none"
    ? ` (${conf} ${METHOD_TEXT[deciding.spec.interval]} CI ${
      shortNumber(deciding.interval.low)
    } to ${shortNumber(deciding.interval.high)}, n=${n})`
    : ` (n=${n})`;
  const line = `${t.comparator} ${shortNumber(value)} ${unit}`.trimEnd();

  let outcome: Outcome;
  let reasoning: string;
  if (failRate > analysis.max_failure_rate) {
    outcome = "INCONCLUSIVE";
    reasoning = `${failed.size} of ${measured} items failed (${
      shortNumber(failRate * 100)
    }%), more than the pre-registered maximum failure rate of ${
      shortNumber(analysis.max_failure_rate * 100)
    }%: the data cannot decide whether ${t.metric} ${line}.`;
  } else if (n < analysis.min_n) {
    outcome = "INCONCLUSIVE";
    reasoning =
      `${stat}${ci} rests on ${n} observations, fewer than the pre-registered minimum of ${analysis.min_n}: the data cannot decide whether ${t.metric} ${line}.`;
  } else if (
    analysis.decision === "point" || !deciding.interval || deciding.spec.interval === "none"
  ) {
    outcome = satisfies(observed, t.comparator, value) ? "VALIDATED" : "REFUTED";
    reasoning = `${stat}${ci} ${
      outcome === "VALIDATED" ? "satisfies" : "does not satisfy"
    } ${line} (point rule: the estimate decides).`;
  } else {
    const { low, high } = deciding.interval;
    const upper = t.comparator === "<" || t.comparator === "<=";
    const allIn = satisfies(upper ? high : low, t.comparator, value);
    const allOut = !satisfies(upper ? low : high, t.comparator, value);
    if (allIn) {
      outcome = "VALIDATED";
      reasoning = `${stat}${ci}: the whole interval satisfies ${line} (interval rule).`;
    } else if (allOut) {
      outcome = "REFUTED";
      reasoning = `${stat}${ci}: no value in the interval satisfies ${line} (interval rule).`;
    } else {
      outcome = "INCONCLUSIVE";
      reasoning =
        `${stat}${ci}: the interval straddles the threshold ${line}, so the data cannot decide (interval rule).`;
    }
  }
  if (failed.size > 0 && outcome !== "INCONCLUSIVE") {
    reasoning += ` ${failed.size} of ${measured} items failed, within the failure budget of ${
      shortNumber(analysis.max_failure_rate * 100)
    }%.`;
  }
  return {
    pillars,
    outcome,
    observed_value: observed,
    reasoning,
    failures: [...failed.values()],
    measured,
  };
}

/** The threshold object recorded in the claim and verdict (value keeps its int/float type). */
export function thresholdOf(s: Scenario): Threshold {
  const t = s.claim.threshold;
  return { metric: t.metric, comparator: t.comparator, value: t.value, units: t.units };
}

/** The pre-registered analysis plan as one deterministic paragraph. */
export function analysisPlanText(s: Scenario): string {
  const a = s.analysis;
  const p = s.probe;
  const pillars = a.pillars.map((x) => {
    const st = x.statistic === "quantile" ? `quantile(p=${floatRepr(x.p!)}, type 7)` : x.statistic;
    const iv = x.interval === "none"
      ? "no interval"
      : x.interval.startsWith("bootstrap")
      ? `${METHOD_TEXT[x.interval]} interval (${a.resamples} resamples, MT19937 seed ${a.seed})`
      : `${METHOD_TEXT[x.interval]} interval`;
    return `${x.name} = ${st} of metric ${x.metric} (${s.metrics[x.metric].kind}), ${iv}`;
  });
  const t = s.claim.threshold;
  return [
    `Probe: send ${
      p.send || "the whole item"
    } per item, timeout ${p.timeout_ms} ms, ${p.retries} retries, concurrency ${p.concurrency}, ${p.warmup_items} warm-up items.`,
    `Pillars: ${pillars.join("; ")}.`,
    `Confidence ${floatRepr(a.confidence)}.`,
    `Decision: ${a.decision} rule on ${t.metric} ${t.comparator} ${
      typeof t.value === "number" ? floatRepr(t.value) : String(t.value)
    } ${t.units}`.trimEnd() +
    `; INCONCLUSIVE if fewer than ${a.min_n} observations or more than ${
      shortNumber(a.max_failure_rate * 100)
    }% of items fail.`,
    `Statistics: ${STATS_LIBRARY.name} ${STATS_LIBRARY.version}, cross-checked with ${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version}.`,
  ].join(" ");
}
