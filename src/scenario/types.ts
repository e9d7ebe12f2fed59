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
}

/** One pillar: one statistic of one metric, one evidence entry. */
export interface PillarSpec {
  name: string;
  metric: string;
  statistic: "mean" | "median" | "quantile" | "proportion";
  p?: number;
  interval: "bootstrap_percentile" | "bootstrap_bca" | "wilson" | "t" | "none";
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
  };
  metrics: Record<string, MetricSpec>;
  analysis: {
    confidence: number;
    resamples: number;
    seed: number;
    min_n: number;
    max_failure_rate: number;
    decision: "interval" | "point";
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
