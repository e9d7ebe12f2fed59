/**
 * The scenario model: a claim, datasets, a probe, per-item metrics and a pre-registered
 * analysis plan (docs/scenarios.md).
 *
 * @module
 */
import type { Comparator, DatasetKind } from "../record/types.ts";

/** Per-item metric kinds. */
export type MetricKind = "latency_ms" | "success" | "exact_match" | "abs_error" | "reported";

/** A per-item metric. `output` points into the substrate's result, `reference` into the item. */
export interface MetricSpec {
  kind: MetricKind;
  output?: string;
  reference?: string;
  /** The value a failed item takes under `on_failure: worst` (the one least favourable to the claim). */
  worst?: number;
  /** The range [lo, hi] every value lies in (the `bounded` interval needs it). */
  range?: [number, number];
}

/** One pillar: one statistic of one metric, one evidence entry. */
export interface PillarSpec {
  name: string;
  metric: string;
  statistic: "mean" | "median" | "quantile" | "proportion";
  p?: number;
  interval:
    | "order_statistic"
    | "clopper_pearson"
    | "wilson"
    | "t"
    | "bounded"
    | "bootstrap_percentile"
    | "bootstrap_bca"
    | "mcnemar"
    | "none";
}

/** A dataset declared by a scenario. */
export interface DatasetSpec {
  name: string;
  path?: string;
  url?: string;
  kind: DatasetKind;
  source?: string;
  /** For `reference` datasets: the item field joining them to corpus items. */
  join?: string;
}

/** A scenario with every default applied. */
export interface Scenario {
  name: string;
  title: string;
  description: string;
  default_substrate?: string;
  claim: {
    statement: string;
    operationalization: string;
    threshold: { metric: string; comparator: Comparator; value: number | bigint; units: string };
    h0: string;
    h1: string;
  };
  datasets: DatasetSpec[];
  probe: {
    send: string;
    timeout_ms: number;
    retries: number;
    concurrency: number;
    warmup_items: number;
    /** Open-loop mode: calls per second, each measured from its scheduled start. */
    arrival_rate?: number;
  };
  metrics: Record<string, MetricSpec>;
  analysis: {
    confidence: number;
    resamples: number;
    seed: number;
    min_n: number;
    max_failure_rate: number;
    decision: "interval" | "point";
    /**
     * What a failed item counts as where intention to treat leaves its value unknown (means, and
     * numeric metrics other than latency): `inconclusive` (default) or `worst` (the metric's
     * pre-registered `worst` value).
     */
    on_failure: "inconclusive" | "worst";
    /**
     * A comparative claim: each pillar is the candidate's statistic divided by (`ratio`) or minus
     * (`difference`) the baseline's (docs/scenarios.md, "Comparative claims").
     */
    comparison?: { kind: "ratio" | "difference" };
    pillars: PillarSpec[];
  };
}

/** Where a scenario came from. */
export interface ScenarioOrigin {
  /** `builtin` for embedded scenarios, `file` otherwise. */
  kind: "builtin" | "file";
  /** File path (or the virtual path of a built-in). */
  path: string;
}

/** A dataset after loading: its bytes, hash and parsed items. */
export interface LoadedDataset {
  spec: DatasetSpec;
  bytes: Uint8Array;
  content_hash: string;
  items: import("../json/value.ts").JsonObject[];
  /** What the record names as the source. */
  source: string;
}
