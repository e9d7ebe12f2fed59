/**
 * What a report shows, computed once from its inputs: a pure function of the record, its
 * observations (when known), its scenario (when known), the earlier records of its lineage and
 * the verification status. The HTML, Markdown and JUnit writers only lay this model out, so the
 * three say the same thing.
 *
 * The numbers come from the record: each pillar's entity in the provenance graph (n, method,
 * level, interval bounds and whether each side is bounded; docs/statistics.md, "Provenance"),
 * and its evidence entry. An unbounded side (written ±1.7976931348623157e308 in the record) is
 * `null` here: open-ended, never a huge number. Observations are summarized, never listed
 * whole (src/report/aggregate.ts).
 *
 * @module
 */
import { declaredScenarioName, parseReproductionCommand } from "../record/command.ts";
import type { Observation } from "../run/observation.ts";
import {
  type Bin,
  ecdf,
  type EcdfPoint,
  histogram,
  logHistogram,
  mean,
  quantileSorted,
  quantileTable,
  sortSample,
  wantsLogScale,
} from "./aggregate.ts";

/** A record as plain JSON (ints as numbers). */
export type PlainRecord = {
  identity: {
    proof_id: string;
    schema_version: string;
    empiric_version: string;
    empiric_git_commit: string;
    created_at: string;
  };
  claim: {
    statement: string;
    operationalization: string;
    threshold: Threshold;
    h0: string;
    h1: string;
  };
  pre_registration: { config_hash: string; data_hash: string; analysis_plan: string };
  data: {
    substrate_name: string;
    substrate_git_commit: string;
    datasets: {
      name: string;
      content_hash: string;
      n_records: number;
      source: string;
      kind: string;
    }[];
  };
  evidence: {
    pillar: string;
    statistic_name: string;
    statistic_value: number;
    library: string;
    library_version: string;
    ci_low: number;
    ci_high: number;
    cross_check: string;
  }[];
  verdict: { outcome: Outcome; observed_value: number; threshold: Threshold; reasoning: string };
  reproduction: { command: string; environment: Record<string, string>; lineage_chain: string[] };
  provenance: Record<string, unknown>;
  signature: { signature: string };
};

/** A claim's threshold. */
export interface Threshold {
  metric: string;
  comparator: string;
  value: number;
  units: string;
}

/** A verdict outcome. */
export type Outcome = "VALIDATED" | "REFUTED" | "INCONCLUSIVE";

/** Where the observations a report shows came from, and whether the record pins them. */
export interface ObservationSource {
  /** `file`: read from a file; `run`: handed over by the run that made the record. */
  kind: "file" | "run";
  /** The file, as the reader may see it. */
  path?: string;
  /** SHA-256 (hex) of the file's bytes. */
  sha256?: string;
}

/** What was checked about the record, and with which key. */
export interface Verification {
  /** `verified`: signature checked and good; `failed`: checked and bad; else not checked. */
  state: "verified" | "failed" | "not_verified";
  /** One sentence for people: what was checked, with which key or public key. */
  summary: string;
  /** The record's structure and proof_id checked out (always true for a report). */
  structure: boolean;
  /** True when the signature was checked with the public demo key. */
  demoKey?: boolean;
  /** A public-key attestation checked against the record. */
  attestation?: { verified: boolean; signers: string[]; message: string | null };
}

/** Everything a report is made from. */
export interface ReportInput {
  record: PlainRecord;
  observations?: { items: readonly Observation[]; source: ObservationSource };
  /**
   * Comparative records: the baseline's observations (`<record>.baseline.observations.jsonl`),
   * shown beside the candidate's.
   */
  baseline?: { items: readonly Observation[]; source: ObservationSource };
  /** The normalized scenario (`<record>.scenario.json`), when known: title and metric kinds. */
  scenario?: Record<string, unknown>;
  /** Records of the same scenario and substrate from the store (any order; others ignored). */
  lineage?: readonly PlainRecord[];
  verification: Verification;
}

/** One pillar as a report shows it. */
export interface PillarView {
  name: string;
  metric: string;
  metricKind: string | null;
  statistic: string;
  /** The quantile's p (0.5 for the median), when a quantile. */
  p: number | null;
  method: string | null;
  units: string;
  n: number | null;
  failures: number | null;
  censored: number | null;
  failurePolicy: string | null;
  confidence: number | null;
  estimate: number;
  /** Interval bounds; null where the side is open-ended (unbounded). */
  low: number | null;
  high: number | null;
  library: string;
  libraryVersion: string;
  estimateLibrary: string | null;
  crossCheck: string;
  crossCheckAgrees: boolean | null;
  refused: string | null;
  deciding: boolean;
  /** Deciding pillar: the rule and the bounds it compared (null: open-ended). */
  decision: {
    rule: string;
    comparator: string;
    threshold: number;
    low: number | null;
    high: number | null;
    /** `within`: the value |x − center| is compared with (1 for a ratio, 0 for a difference). */
    center: number;
  } | null;
  /** Comparative claims: the ratio or difference of the two sides' statistic. */
  comparison: {
    kind: "ratio" | "difference";
    paired: boolean | null;
    candidate: number | null;
    baseline: number | null;
  } | null;
}

/** A comparative record: what was compared with what, and each pillar's two sides. */
export interface ComparisonView {
  kind: "ratio" | "difference";
  /** The baseline: `substrate …` (measured in the same run) or `proof …` (a stored proof). */
  baseline: string;
  paired: boolean | null;
  pillars: {
    name: string;
    statistic: string;
    candidate: number | null;
    baseline: number | null;
    estimate: number;
    low: number | null;
    high: number | null;
    confidence: number | null;
    method: string | null;
  }[];
}

/** One distribution of observations (a metric), summarized. */
export interface DistributionView {
  /**
   * Which sample this is. Today every report has one `observed` sample per metric; a comparative
   * claim (a candidate against a baseline) will add `baseline` and `candidate` samples of the
   * same metric, which every writer already lays out side by side.
   */
  role: "observed" | "baseline" | "candidate";
  metric: string;
  kind: string;
  units: string;
  /** Items of the run. */
  items: number;
  /** Values summarized (for latency: every item, failed ones at their lower bound). */
  n: number;
  /** Items without a value (failed items, for metrics other than latency). */
  missing: number;
  /** Values known only to be at least what is shown (failed items' latency). */
  censored: number;
  /** 0/1 metrics: how many items scored 1 and 0 (failed items score 0). */
  binary: { ones: number; zeros: number; failedZeros: number } | null;
  histogram: Bin[];
  /** The x scale of the histogram and ECDF (`log` for positive values over orders of magnitude). */
  scale: "linear" | "log";
  /** Values beyond the histogram's last bin (an extreme tail, counted but not drawn). */
  overflow: { count: number; max: number; from: number } | null;
  /** Thinned ECDF (quantile and median pillars). */
  ecdf: EcdfPoint[] | null;
  quantiles: { p: number; value: number }[];
  mean: number | null;
  /** The claim's threshold, when it is on this metric's scale. */
  threshold: number | null;
  /** Pillars of this metric whose interval is on the values' scale. */
  intervals: {
    pillar: string;
    estimate: number;
    low: number | null;
    high: number | null;
    p: number | null;
  }[];
}

/** Items a report lists (first {@link ITEM_ROWS} of each kind, with counts). */
export interface ItemsView {
  failed: {
    total: number;
    byKind: { kind: string; count: number }[];
    rows: { item: number; id: string; kind: string; message: string; attempts: number }[];
  };
  wrong: { total: number; metrics: string[]; rows: { item: number; id: string; metric: string }[] };
  /** Items whose value of the deciding metric is on the wrong side of the threshold. */
  beyond: {
    metric: string;
    comparator: string;
    threshold: number;
    units: string;
    total: number;
    rows: { item: number; id: string; value: number; censored: boolean }[];
  } | null;
  retried: number;
}

/** Rows listed per kind of item. */
export const ITEM_ROWS = 100;

/** One proof of a lineage trend. */
export interface TrendPoint {
  proofId: string;
  createdAt: string;
  outcome: Outcome;
  observed: number;
  low: number | null;
  high: number | null;
  current: boolean;
}

/** One row of the comparison with the previous proof. */
export interface DiffRow {
  what: string;
  previous: string;
  current: string;
  change: string;
}

/** A node or edge of the provenance drawing. */
export interface ProvNode {
  id: string;
  kind: "entity" | "activity" | "agent";
  type: string;
  label: string;
  column: number;
}

/** A PROV relation between two nodes. */
export interface ProvEdge {
  from: string;
  to: string;
  relation: string;
  /** Drawn in the graph (every relation is listed in words). */
  drawn: boolean;
}

/** The report. */
export interface Report {
  proofId: string;
  scenario: string;
  substrate: string;
  title: string | null;
  createdAt: string;
  empiricVersion: string;
  claim: PlainRecord["claim"];
  /** The threshold in words: `latency.p95 <= 5 ms`. */
  thresholdText: string;
  outcome: Outcome;
  observed: number;
  reasoning: string;
  measured: number | null;
  failedItems: number | null;
  durationMs: number | null;
  pillars: PillarView[];
  deciding: PillarView | null;
  /** Comparative records (candidate against baseline), else null. */
  comparison: ComparisonView | null;
  observations: {
    present: boolean;
    /** Why none are shown. */
    note: string;
    source: ObservationSource | null;
    distributions: DistributionView[];
    items: ItemsView | null;
  };
  trend: TrendPoint[];
  previous: { proofId: string; createdAt: string; rows: DiffRow[] } | null;
  preRegistration: PlainRecord["pre_registration"];
  datasets: PlainRecord["data"]["datasets"];
  substrateCommit: string;
  command: string;
  environment: [string, string][];
  lineageChain: string[];
  provenance: { nodes: ProvNode[]; edges: ProvEdge[] };
  verification: Verification;
}

/** Largest finite double: the record's stand-in for an unbounded side. */
const UNBOUNDED = Number.MAX_VALUE;

const COMPARATOR_WORDS: Record<string, string> = {
  "<": "<",
  "<=": "≤",
  ">": ">",
  ">=": "≥",
  "within": "within",
};

/** A comparator as people write it (`≤` for `<=`). */
export function comparatorSymbol(c: string): string {
  return COMPARATOR_WORDS[c] ?? c;
}

/** Scenario (its declared name) and substrate of a record, from its reproduction command. */
export function scenarioAndSubstrate(record: PlainRecord): { scenario: string; substrate: string } {
  const parts = parseReproductionCommand(record.reproduction?.command ?? "");
  return {
    scenario: declaredScenarioName(record) ?? "unknown",
    substrate: parts?.substrate ?? record.data?.substrate_name ?? "unknown",
  };
}

type Attrs = Record<string, unknown>;

function typeOf(attrs: Attrs): string {
  const t = attrs["prov:type"];
  if (t && typeof t === "object" && typeof (t as Attrs)["$"] === "string") {
    return (t as Attrs)["$"] as string;
  }
  return typeof t === "string" ? t : "";
}

function section(prov: Record<string, unknown>, name: string): Record<string, Attrs> {
  const s = prov[name];
  return s && typeof s === "object" && !Array.isArray(s) ? s as Record<string, Attrs> : {};
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A bound as shown: null when the record marks the side unbounded (or writes the stand-in). */
function bound(value: number, flag: unknown): number | null {
  if (flag === false) return null;
  if (!Number.isFinite(value) || Math.abs(value) >= UNBOUNDED) return null;
  return value;
}

/** The pillar entities of a record's provenance, by pillar name. */
export function pillarAttributes(record: PlainRecord): Map<string, Attrs> {
  const out = new Map<string, Attrs>();
  for (const attrs of Object.values(section(record.provenance ?? {}, "entity"))) {
    if (typeOf(attrs) === "empiric:Pillar" && typeof attrs["empiric:pillar"] === "string") {
      out.set(attrs["empiric:pillar"] as string, attrs);
    }
  }
  return out;
}

function unitsFor(
  statistic: string,
  kind: string | null,
  metric: string,
  decidingMetric: string | null,
  threshold: Threshold,
): string {
  if (statistic === "proportion") return "proportion";
  if (metric === decidingMetric) return threshold.units;
  if (kind === "latency_ms") return "ms";
  return "";
}

/** The pillars of a record, deciding one first in record order otherwise. */
export function pillarViews(record: PlainRecord): PillarView[] {
  const attrs = pillarAttributes(record);
  const threshold = record.claim.threshold;
  const decidingName = [...attrs.values()].find((a) => a["empiric:deciding"] === true)?.[
    "empiric:pillar"
  ] as string | undefined ?? threshold.metric;
  const decidingMetric = str(attrs.get(decidingName)?.["empiric:metric"]);
  return record.evidence.map((e) => {
    const a = attrs.get(e.pillar) ?? {};
    const deciding = e.pillar === decidingName;
    const metric = str(a["empiric:metric"]) ?? e.pillar;
    const kind = str(a["empiric:metric_kind"]);
    const statistic = str(a["empiric:statistic"]) ?? e.statistic_name;
    const p = num(a["empiric:p"]) ??
      (e.statistic_name === "median"
        ? 0.5
        : /^quantile_/.test(e.statistic_name)
        ? Number(e.statistic_name.slice(9))
        : null);
    const kindOf = str(a["empiric:comparison"]);
    const comparison = kindOf === "ratio" || kindOf === "difference"
      ? {
        kind: kindOf as "ratio" | "difference",
        paired: typeof a["empiric:paired"] === "boolean" ? a["empiric:paired"] as boolean : null,
        candidate: num(a["empiric:candidate_estimate"]),
        baseline: num(a["empiric:baseline_estimate"]),
      }
      : null;
    const center = num(a["empiric:within_center"]) ?? (kindOf === "ratio" ? 1 : 0);
    const decision = deciding && typeof a["empiric:decision_rule"] === "string"
      ? {
        rule: a["empiric:decision_rule"] as string,
        comparator: str(a["empiric:comparator"]) ?? threshold.comparator,
        threshold: num(a["empiric:threshold"]) ?? threshold.value,
        low: bound(num(a["empiric:deciding_low"]) ?? NaN, undefined),
        high: bound(num(a["empiric:deciding_high"]) ?? NaN, undefined),
        center,
      }
      : deciding
      ? {
        rule: "interval",
        comparator: threshold.comparator,
        threshold: threshold.value,
        low: bound(e.ci_low, undefined),
        high: bound(e.ci_high, undefined),
        center,
      }
      : null;
    return {
      name: e.pillar,
      metric,
      metricKind: kind,
      statistic: e.statistic_name,
      p,
      method: str(a["empiric:method"]),
      units: comparison
        ? (deciding
          ? threshold.units
          : comparison.kind === "ratio"
          ? ""
          : kind === "latency_ms"
          ? "ms"
          : "")
        : unitsFor(
          statistic === "proportion" || e.statistic_name === "proportion"
            ? "proportion"
            : statistic,
          kind,
          metric,
          decidingMetric ?? (deciding ? metric : null),
          threshold,
        ),
      n: num(a["empiric:n"]),
      failures: num(a["empiric:failures"]),
      censored: num(a["empiric:censored"]),
      failurePolicy: str(a["empiric:failure_policy"]),
      confidence: num(a["empiric:confidence"]),
      estimate: e.statistic_value,
      low: bound(e.ci_low, a["empiric:ci_low_bounded"]),
      high: bound(e.ci_high, a["empiric:ci_high_bounded"]),
      library: e.library,
      libraryVersion: e.library_version,
      estimateLibrary: str(a["empiric:estimate_library"]) === null
        ? null
        : `${a["empiric:estimate_library"]} ${a["empiric:estimate_library_version"] ?? ""}`.trim(),
      crossCheck: e.cross_check,
      crossCheckAgrees: typeof a["empiric:cross_check_agrees"] === "boolean"
        ? a["empiric:cross_check_agrees"] as boolean
        : null,
      refused: str(a["empiric:refused"]),
      deciding,
      decision,
      comparison,
    };
  }).sort((x, y) => Number(y.deciding) - Number(x.deciding));
}

const BINARY_KINDS = new Set(["success", "exact_match"]);

function metricKinds(
  pillars: PillarView[],
  scenario?: Record<string, unknown>,
): Map<string, string> {
  const kinds = new Map<string, string>();
  const metrics = scenario?.metrics;
  if (metrics && typeof metrics === "object") {
    for (const [name, spec] of Object.entries(metrics as Record<string, Attrs>)) {
      if (typeof spec?.kind === "string") kinds.set(name, spec.kind);
    }
  }
  for (const p of pillars) {
    if (p.metricKind && !kinds.has(p.metric)) kinds.set(p.metric, p.metricKind);
  }
  return kinds;
}

/**
 * Whether a value satisfies `comparator threshold`; `within` is |value − center| ≤ threshold;
 * unknown comparators: true.
 */
export function satisfies(
  value: number,
  comparator: string,
  threshold: number,
  center = 0,
): boolean {
  switch (comparator) {
    case "within":
      return Math.abs(value - center) <= threshold;
    case "<":
      return value < threshold;
    case "<=":
      return value <= threshold;
    case ">":
      return value > threshold;
    case ">=":
      return value >= threshold;
    default:
      return true;
  }
}

/**
 * Where an extreme tail starts: when the largest value lies more than 10 times as far beyond the
 * 99th percentile as the 99th percentile lies from the smallest (a few timeouts among fast
 * answers), values above the 99th percentile are counted instead of stretching every bin.
 */
function tailCut(sorted: Float64Array): { index: number; from: number } | null {
  const n = sorted.length;
  if (n < 100) return null;
  const p99 = quantileSorted(sorted, 0.99);
  const min = sorted[0], max = sorted[n - 1];
  if (!(max - p99 > 10 * (p99 - min)) || p99 === min) return null;
  let index = n;
  while (index > 0 && sorted[index - 1] > p99) index--;
  return index < n ? { index, from: p99 } : null;
}

/** Distributions of the metrics the pillars use (the deciding metric first). */
function distributions(
  observations: readonly Observation[],
  pillars: PillarView[],
  kinds: Map<string, string>,
  threshold: Threshold,
  role: DistributionView["role"] = "observed",
): DistributionView[] {
  const metrics = [...new Set(pillars.map((p) => p.metric))];
  const out: DistributionView[] = [];
  for (const metric of metrics) {
    const kind = kinds.get(metric) ?? "reported";
    const mine = pillars.filter((p) => p.metric === metric);
    // A comparison's pillars are ratios or differences: not on the values' scale.
    const deciding = role === "observed" ? mine.find((p) => p.deciding) : undefined;
    const units = role !== "observed"
      ? (kind === "latency_ms" ? "ms" : "")
      : deciding?.statistic === "proportion"
      ? ""
      : deciding?.units ?? (kind === "latency_ms" ? "ms" : mine[0]?.units ?? "");
    const base = {
      role,
      metric,
      kind,
      units,
      items: observations.length,
    };
    if (BINARY_KINDS.has(kind)) {
      let ones = 0, zeros = 0, failedZeros = 0;
      for (const o of observations) {
        const v = o.metrics[metric];
        if (v === 1) ones++;
        else {
          zeros++;
          if (!o.ok) failedZeros++;
        }
      }
      out.push({
        ...base,
        units: "",
        n: observations.length,
        missing: 0,
        censored: 0,
        binary: { ones, zeros, failedZeros },
        histogram: [],
        scale: "linear",
        overflow: null,
        ecdf: null,
        quantiles: [],
        mean: observations.length ? ones / observations.length : null,
        threshold: null,
        intervals: [],
      });
      continue;
    }
    const values: number[] = [];
    const censored: boolean[] = [];
    let missing = 0;
    for (const o of observations) {
      if (kind === "latency_ms" && o.latency_ms !== undefined) {
        values.push(o.latency_ms);
        censored.push(o.censored === true);
        continue;
      }
      const v = o.metrics[metric];
      if (typeof v === "number" && Number.isFinite(v)) {
        values.push(v);
        censored.push(false);
      } else missing++;
    }
    const sample = sortSample(values, censored);
    const log = wantsLogScale(sample.values);
    const cut = log ? null : tailCut(sample.values);
    const shown = cut === null ? sample : {
      values: sample.values.subarray(0, cut.index),
      censored: sample.censored.subarray(0, cut.index),
    };
    const onScale = role === "observed" ? mine.filter((p) => p.statistic !== "proportion") : [];
    const wantsEcdf = mine.some((p) => p.p !== null && !/proportion/.test(p.statistic));
    out.push({
      ...base,
      n: values.length,
      missing,
      censored: censored.filter(Boolean).length,
      binary: null,
      histogram: log ? logHistogram(shown) : histogram(shown),
      scale: log ? "log" : "linear",
      overflow: cut === null ? null : {
        count: values.length - cut.index,
        max: sample.values[values.length - 1],
        from: cut.from,
      },
      ecdf: wantsEcdf ? ecdf(sample.values) : null,
      quantiles: quantileTable(sample.values),
      mean: values.length ? mean(sample.values) : null,
      threshold: deciding && deciding.statistic !== "proportion" ? threshold.value : null,
      intervals: onScale.map((p) => ({
        pillar: p.name,
        estimate: p.estimate,
        low: p.low,
        high: p.high,
        p: p.p,
      })),
    });
  }
  return out;
}

function itemsView(
  observations: readonly Observation[],
  pillars: PillarView[],
  kinds: Map<string, string>,
): ItemsView {
  const failedRows: ItemsView["failed"]["rows"] = [];
  const byKind = new Map<string, number>();
  let failedTotal = 0, retried = 0;
  const binaryMetrics = [...new Set(pillars.map((p) => p.metric))].filter((m) =>
    BINARY_KINDS.has(kinds.get(m) ?? "")
  );
  const wrongRows: ItemsView["wrong"]["rows"] = [];
  let wrongTotal = 0;
  const deciding = pillars.find((p) => p.deciding);
  const decidingKind = deciding ? kinds.get(deciding.metric) ?? "" : "";
  const beyondApplies = deciding && deciding.decision && deciding.statistic !== "proportion" &&
    !deciding.comparison && !BINARY_KINDS.has(decidingKind) &&
    ["<", "<=", ">", ">="].includes(deciding.decision.comparator);
  const beyondRows: NonNullable<ItemsView["beyond"]>["rows"] = [];
  let beyondTotal = 0;
  for (const o of observations) {
    if (o.attempts > 1) retried++;
    if (!o.ok) {
      failedTotal++;
      const kind = o.failure?.kind ?? "error";
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      if (failedRows.length < ITEM_ROWS) {
        failedRows.push({
          item: o.item,
          id: o.id,
          kind,
          message: o.failure?.message ?? "",
          attempts: o.attempts,
        });
      }
    } else {
      const wrongIn = binaryMetrics.find((m) => o.metrics[m] === 0);
      if (wrongIn !== undefined) {
        wrongTotal++;
        if (wrongRows.length < ITEM_ROWS) {
          wrongRows.push({ item: o.item, id: o.id, metric: wrongIn });
        }
      }
    }
    if (beyondApplies) {
      const v = decidingKind === "latency_ms" && o.latency_ms !== undefined
        ? o.latency_ms
        : o.metrics[deciding!.metric];
      if (
        typeof v === "number" &&
        !satisfies(v, deciding!.decision!.comparator, deciding!.decision!.threshold)
      ) {
        beyondTotal++;
        if (beyondRows.length < ITEM_ROWS) {
          beyondRows.push({ item: o.item, id: o.id, value: v, censored: o.censored === true });
        }
      }
    }
  }
  return {
    failed: {
      total: failedTotal,
      byKind: [...byKind].map(([kind, count]) => ({ kind, count })).sort((a, b) =>
        b.count - a.count || a.kind.localeCompare(b.kind)
      ),
      rows: failedRows,
    },
    wrong: { total: wrongTotal, metrics: binaryMetrics, rows: wrongRows },
    beyond: beyondApplies
      ? {
        metric: deciding!.metric,
        comparator: deciding!.decision!.comparator,
        threshold: deciding!.decision!.threshold,
        units: deciding!.units,
        total: beyondTotal,
        rows: beyondRows,
      }
      : null,
    retried,
  };
}

/** The deciding evidence of a record: observed value and its interval. */
function decidingPoint(record: PlainRecord, current: boolean): TrendPoint {
  const pillars = pillarViews(record);
  const d = pillars.find((p) => p.deciding);
  return {
    proofId: record.identity.proof_id,
    createdAt: record.identity.created_at,
    outcome: record.verdict.outcome,
    observed: record.verdict.observed_value,
    low: d ? d.low : null,
    high: d ? d.high : null,
    current,
  };
}

/** The baseline's distributions, when its observations are given and match the record. */
function baselineDistributions(
  input: ReportInput,
  record: PlainRecord,
  pillars: PillarView[],
  kinds: Map<string, string>,
  t: Threshold,
): { note: string; distributions: DistributionView[] } {
  const pinned = record.data.datasets.find((d) => d.kind === "baseline");
  const b = input.baseline;
  if (!b) {
    return {
      note:
        "The baseline's observations were not available to this report (they are kept beside the record as <record>.baseline.observations.jsonl).",
      distributions: [],
    };
  }
  if (pinned && b.source.sha256 !== undefined && b.source.sha256 !== pinned.content_hash) {
    return {
      note: `The baseline's observations do not match the record (SHA-256 ${
        b.source.sha256.slice(0, 12)
      }…, the record names ${pinned.content_hash.slice(0, 12)}…); they are not shown.`,
      distributions: [],
    };
  }
  if (pinned && b.items.length !== pinned.n_records) {
    return {
      note:
        `The baseline's observations (${b.items.length}) do not match the ${pinned.n_records} the record lists; they are not shown.`,
      distributions: [],
    };
  }
  return {
    note: `${b.items.length} baseline observations beside them.`,
    distributions: distributions(b.items, pillars, kinds, t, "baseline"),
  };
}

/** A comparative record's summary: the baseline and each pillar's two sides. */
function comparisonView(record: PlainRecord, pillars: PillarView[]): ComparisonView | null {
  const compared = pillars.filter((p) => p.comparison);
  if (compared.length === 0) return null;
  const first = compared[0].comparison!;
  const dataset = record.data.datasets.find((d) => d.kind === "baseline");
  return {
    kind: first.kind,
    baseline: dataset?.source ?? "unknown",
    paired: first.paired,
    pillars: compared.map((p) => ({
      name: p.name,
      statistic: p.statistic,
      candidate: p.comparison!.candidate,
      baseline: p.comparison!.baseline,
      estimate: p.estimate,
      low: p.low,
      high: p.high,
      confidence: p.confidence,
      method: p.method,
    })),
  };
}

/** Most proofs a trend shows (the newest ones). */
export const TREND_POINTS = 30;

/** A number as a report prints it: 4 significant digits, exponent form when tiny or huge. */
export function formatNumber(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
  if (!Number.isFinite(x) || Math.abs(x) >= UNBOUNDED) return x > 0 ? "∞" : "−∞";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e7 || a < 1e-4) {
    return x.toExponential(3).replace(/\.?0+e/, "e").replace("e+", "e");
  }
  return String(Number(x.toPrecision(4)));
}

/** An interval as a report prints it, open-ended sides as ∞: `[0.98, ∞)`. */
export function formatInterval(low: number | null, high: number | null): string {
  return `${low === null ? "(−∞" : "[" + formatNumber(low)}, ${
    high === null ? "∞)" : formatNumber(high) + "]"
  }`;
}

function change(previous: number, current: number): string {
  if (previous === current) return "no change";
  const d = current - previous;
  const sign = d > 0 ? "+" : "−";
  const rel = previous !== 0 ? ` (${sign}${formatNumber(Math.abs(d / previous) * 100)}%)` : "";
  return `${sign}${formatNumber(Math.abs(d))}${rel}`;
}

function diffRows(prev: PlainRecord, cur: PlainRecord): DiffRow[] {
  const rows: DiffRow[] = [];
  const same = (a: string, b: string) => (a === b ? "same" : "changed");
  rows.push({
    what: "verdict",
    previous: prev.verdict.outcome,
    current: cur.verdict.outcome,
    change: prev.verdict.outcome === cur.verdict.outcome ? "same" : "changed",
  });
  const pp = new Map(pillarViews(prev).map((p) => [p.name, p]));
  for (const p of pillarViews(cur)) {
    const q = pp.get(p.name);
    if (!q) {
      rows.push({
        what: p.name,
        previous: "(absent)",
        current: formatNumber(p.estimate),
        change: "new",
      });
      continue;
    }
    rows.push({
      what: p.name,
      previous: `${formatNumber(q.estimate)} ${formatInterval(q.low, q.high)}`,
      current: `${formatNumber(p.estimate)} ${formatInterval(p.low, p.high)}`,
      change: change(q.estimate, p.estimate),
    });
  }
  const measured = (r: PlainRecord) => {
    const a = Object.values(section(r.provenance ?? {}, "activity"))[0];
    return num(a?.["empiric:measured"]);
  };
  const m0 = measured(prev), m1 = measured(cur);
  if (m0 !== null && m1 !== null) {
    rows.push({
      what: "items measured",
      previous: String(m0),
      current: String(m1),
      change: change(m0, m1),
    });
  }
  rows.push({
    what: "config_hash",
    previous: prev.pre_registration.config_hash.slice(0, 12),
    current: cur.pre_registration.config_hash.slice(0, 12),
    change: same(prev.pre_registration.config_hash, cur.pre_registration.config_hash),
  });
  rows.push({
    what: "data_hash",
    previous: prev.pre_registration.data_hash.slice(0, 12),
    current: cur.pre_registration.data_hash.slice(0, 12),
    change: same(prev.pre_registration.data_hash, cur.pre_registration.data_hash),
  });
  rows.push({
    what: "substrate commit",
    previous: prev.data.substrate_git_commit.slice(0, 12),
    current: cur.data.substrate_git_commit.slice(0, 12),
    change: same(prev.data.substrate_git_commit, cur.data.substrate_git_commit),
  });
  rows.push({
    what: "empiric version",
    previous: prev.identity.empiric_version,
    current: cur.identity.empiric_version,
    change: same(prev.identity.empiric_version, cur.identity.empiric_version),
  });
  return rows;
}

function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 12) + "…" : id;
}

/** The provenance graph as nodes in columns (inputs, run and agents, pillars, result). */
export function provenanceGraph(record: PlainRecord): { nodes: ProvNode[]; edges: ProvEdge[] } {
  const prov = record.provenance ?? {};
  const entities = section(prov, "entity");
  const activities = section(prov, "activity");
  const agents = section(prov, "agent");
  const nodes = new Map<string, ProvNode>();
  const generated = new Set<string>();
  for (const rel of Object.values(section(prov, "wasGeneratedBy"))) {
    if (typeof rel["prov:entity"] === "string") generated.add(rel["prov:entity"] as string);
  }
  for (const [id, a] of Object.entries(entities)) {
    const type = typeOf(a).replace(/^empiric:/, "");
    let label = str(a["prov:label"]) ?? id;
    let column = 0;
    if (type === "ProofRecord" && generated.has(id)) {
      label = "this record";
      column = 3;
    } else if (type === "ProofRecord") {
      label = `earlier proof ${shortId(str(a["empiric:proof_id"]) ?? id)}`;
    } else if (type === "Pillar") {
      label = `pillar ${label}`;
      column = 2;
    } else if (type === "Dataset") label = `dataset ${label}`;
    else if (type === "Scenario") label = `scenario ${label}`;
    else if (type === "Registration") label = `registration ${shortId(id.split("/").pop() ?? id)}`;
    nodes.set(id, { id, kind: "entity", type, label, column });
  }
  for (const [id, a] of Object.entries(activities)) {
    nodes.set(id, {
      id,
      kind: "activity",
      type: typeOf(a).replace(/^empiric:/, "") || "Activity",
      label: "run " + shortId(id.split("/").pop() ?? id),
      column: 1,
    });
  }
  for (const [id, a] of Object.entries(agents)) {
    const version = str(a["empiric:version"]);
    nodes.set(id, {
      id,
      kind: "agent",
      type: "SoftwareAgent",
      label: `${str(a["prov:label"]) ?? id}${version ? " " + version : ""}`,
      column: 1,
    });
  }
  const edges: ProvEdge[] = [];
  const relate = (
    name: string,
    from: string,
    to: string,
    drawn: (f: ProvNode, t: ProvNode) => boolean,
  ) => {
    for (const rel of Object.values(section(prov, name))) {
      const f = str(rel[from]), t = str(rel[to]);
      if (!f || !t) continue;
      const fn = nodes.get(f), tn = nodes.get(t);
      edges.push({ from: f, to: t, relation: name, drawn: !!fn && !!tn && drawn(fn, tn) });
    }
  };
  relate("used", "prov:activity", "prov:entity", () => true);
  relate("wasGeneratedBy", "prov:entity", "prov:activity", (f) => f.type === "Pillar");
  relate("wasAssociatedWith", "prov:activity", "prov:agent", () => true);
  relate(
    "wasDerivedFrom",
    "prov:generatedEntity",
    "prov:usedEntity",
    (_f, t) => t.type === "Pillar" || t.type === "ProofRecord",
  );
  relate("wasAttributedTo", "prov:entity", "prov:agent", () => false);
  return { nodes: [...nodes.values()], edges };
}

/**
 * Build the report model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildReport } from "./model.ts";
 * import { parseJson } from "../json/parse.ts";
 * import { toPlainJson } from "../json/plain.ts";
 * const text = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const record = toPlainJson(parseJson(text)) as never;
 * const r = buildReport({
 *   record,
 *   verification: { state: "not_verified", summary: "not verified", structure: true },
 * });
 * assert.equal(r.observations.present, false);
 * assert.ok(r.pillars.length >= 1);
 * ```
 */
export function buildReport(input: ReportInput): Report {
  const record = input.record;
  const { scenario, substrate } = scenarioAndSubstrate(record);
  const pillars = pillarViews(record);
  const deciding = pillars.find((p) => p.deciding) ?? null;
  const activity = Object.values(section(record.provenance ?? {}, "activity"))[0] ?? {};
  const measured = num(activity["empiric:measured"]);
  const failedItems = num(activity["empiric:failed_items"]);
  const start = Date.parse(str(activity["prov:startTime"]) ?? "");
  const end = Date.parse(str(activity["prov:endTime"]) ?? "");
  const kinds = metricKinds(pillars, input.scenario);
  const t = record.claim.threshold;

  let observations: Report["observations"];
  const obs = input.observations;
  const pinned = record.data.datasets.find((d) => d.kind === "observations");
  if (!obs) {
    observations = {
      present: false,
      note: pinned
        ? `The record names its observations (${pinned.name}, SHA-256 ${
          pinned.content_hash.slice(0, 12)
        }…), but they were not available to this report.`
        : "No observations were available to this report (they are kept beside the record as <record>.observations.jsonl).",
      source: null,
      distributions: [],
      items: null,
    };
  } else if (
    pinned && obs.source.sha256 !== undefined && obs.source.sha256 !== pinned.content_hash
  ) {
    observations = {
      present: false,
      note: `The observations file does not match the record (its SHA-256 is ${
        obs.source.sha256.slice(0, 12)
      }…, the record names ${pinned.content_hash.slice(0, 12)}…); it is not shown.`,
      source: obs.source,
      distributions: [],
      items: null,
    };
  } else if (measured !== null && obs.items.length !== measured) {
    observations = {
      present: false,
      note:
        `The observations (${obs.items.length}) do not match the ${measured} items the record measured; they are not shown.`,
      source: obs.source,
      distributions: [],
      items: null,
    };
  } else {
    const how = obs.source.kind === "run"
      ? "handed over by the run that made this record"
      : pinned
      ? `read from ${obs.source.path ?? "a file"}; its SHA-256 matches the record`
      : `read from ${
        obs.source.path ?? "a file"
      } (this record does not pin its observations by hash)`;
    const comparative = pillars.some((p) => p.comparison);
    let dists = distributions(obs.items, pillars, kinds, t, comparative ? "candidate" : "observed");
    let note = `${obs.items.length} observations, ${how}.`;
    if (comparative) {
      const base = baselineDistributions(input, record, pillars, kinds, t);
      note += ` ${base.note}`;
      // Candidate and baseline of each metric side by side.
      dists = dists.flatMap((d) => [d, ...base.distributions.filter((b) => b.metric === d.metric)]);
    }
    observations = {
      present: true,
      note,
      source: obs.source,
      distributions: dists,
      items: itemsView(obs.items, pillars, kinds),
    };
  }

  const me = record.identity;
  const earlier = (input.lineage ?? []).filter((r) => {
    if (r.identity.proof_id === me.proof_id) return false;
    const s = scenarioAndSubstrate(r);
    return s.scenario === scenario && s.substrate === substrate &&
      r.identity.created_at <= me.created_at;
  }).sort((a, b) =>
    a.identity.created_at.localeCompare(b.identity.created_at) ||
    a.identity.proof_id.localeCompare(b.identity.proof_id)
  );
  const trend = [...earlier.slice(-(TREND_POINTS - 1)).map((r) => decidingPoint(r, false))];
  trend.push(decidingPoint(record, true));
  const chain = record.reproduction.lineage_chain ?? [];
  const prev = earlier.filter((r) => chain.includes(r.identity.proof_id)).at(-1) ?? earlier.at(-1);

  return {
    proofId: me.proof_id,
    scenario,
    substrate,
    title: typeof input.scenario?.title === "string" ? input.scenario.title : null,
    createdAt: me.created_at,
    empiricVersion: me.empiric_version,
    claim: record.claim,
    thresholdText: `${t.metric} ${comparatorSymbol(t.comparator)} ${formatNumber(t.value)}${
      t.units && t.units !== "proportion" ? " " + t.units : ""
    }`,
    outcome: record.verdict.outcome,
    observed: record.verdict.observed_value,
    reasoning: record.verdict.reasoning,
    measured,
    failedItems,
    durationMs: Number.isFinite(start) && Number.isFinite(end) ? end - start : null,
    pillars,
    deciding,
    comparison: comparisonView(record, pillars),
    observations,
    trend,
    previous: prev
      ? {
        proofId: prev.identity.proof_id,
        createdAt: prev.identity.created_at,
        rows: diffRows(prev, record),
      }
      : null,
    preRegistration: record.pre_registration,
    datasets: record.data.datasets,
    substrateCommit: record.data.substrate_git_commit,
    command: record.reproduction.command,
    environment: Object.entries(record.reproduction.environment ?? {}),
    lineageChain: chain,
    provenance: provenanceGraph(record),
    verification: input.verification,
  };
}
