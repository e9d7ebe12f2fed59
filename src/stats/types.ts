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
export type IntervalMethod =
  | "order_statistic"
  | "clopper_pearson"
  | "wilson"
  | "t"
  | "bounded"
  | "bootstrap_percentile"
  | "bootstrap_bca"
  | "none";

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
  /** Per value: true when it is only a lower bound (a failed item's latency). */
  censored?: readonly boolean[];
  /** The metric's pre-registered range [lo, hi] (the `bounded` method needs it). */
  range?: readonly [number, number];
}

/** An estimate with its interval, as written into a proof record. */
export interface IntervalResult {
  estimate: number;
  /** Lower bound; -Infinity when unbounded. */
  low: number;
  /** Upper bound; +Infinity when unbounded. */
  high: number;
  n: number;
  method: IntervalMethod;
  confidence: number;
  resamples?: number;
  seed?: number;
  /** What computed the interval (empiric itself, or the estimate's library for `none`). */
  library: string;
  library_version: string;
  statistic_name: string;
  /** What computed the estimate. */
  estimate_library?: { readonly name: string; readonly version: string };
  /** Distribution functions the interval used (binomial CDF, beta or t quantiles). */
  distribution_library?: { readonly name: string; readonly version: string };
  /** Why this method gives no interval that holds its level here; bounds are then trivial. */
  refused?: string;
  /** Order-statistic ranks (1-based; 0 and n + 1 mean unbounded). */
  ranks?: { lower: number; upper: number };
  /** Monte Carlo standard errors of the bootstrap bounds. */
  mc_se?: { low: number; high: number };
  /**
   * Bootstrapped means in comparisons: the shares of the bootstrap distribution the bounds were
   * read at (the expanded percentile interval, src/stats/expanded_percentile.ts).
   */
  percentile_levels?: Bounds;
  /** Sample skewness, where it gates the method. */
  skewness?: number;
  /** The pre-registered range, for `bounded`. */
  range?: [number, number];
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
