/**
 * Shapes shared by the statistics modules: which statistic, which interval method, and what an
 * interval or a cross-check reports.
 *
 * @module
 */

/** The statistic a claim is about. Quantiles are type 7 (R's default, numpy's "linear"). */
export type Statistic =
  | { kind: "mean" }
  | { kind: "median" }
  | { kind: "quantile"; p: number }
  | { kind: "proportion" };

/** How an interval around the estimate is computed. */
export type IntervalMethod = "bootstrap_percentile" | "bootstrap_bca" | "wilson" | "t" | "none";

/** Options of `estimateInterval`. `resamples` and `seed` are read by the bootstrap methods only. */
export interface IntervalOptions {
  /** Coverage, strictly between 0 and 1 (e.g. 0.95). */
  confidence: number;
  /** Number of bootstrap resamples: an integer from 1 to 10,000,000. */
  resamples: number;
  /** MT19937 seed: an integer from 0 to 2^32 - 1. */
  seed: number;
  /** Called about every `resamples / 100` resamples, and once at the end. */
  onProgress?: (done: number, total: number) => void;
}

/** An estimate with its interval, as written into a proof record. */
export interface IntervalResult {
  estimate: number;
  low: number;
  high: number;
  n: number;
  method: IntervalMethod;
  confidence: number;
  resamples?: number;
  seed?: number;
  library: string;
  library_version: string;
  statistic_name: string;
}

/** The outcome of re-computing an estimate with an independent library. */
export interface CrossCheck {
  library: string;
  library_version: string;
  value: number;
  agrees: boolean;
  tolerance: number;
  text: string;
}

/** A closed interval `[low, high]`. */
export interface Bounds {
  low: number;
  high: number;
}
