/**
 * Comparative statistics: a statistic of a candidate divided by (`ratio`) or minus
 * (`difference`) the same statistic of a baseline, with an interval that keeps its level, or the
 * reason none can be given on these data.
 *
 * | method                 | statistics                  | how                                                                 |
 * | ---------------------- | --------------------------- | ------------------------------------------------------------------- |
 * | `order_statistic`      | quantile, median            | each side's distribution-free interval at β/2, combined (any data)  |
 * | `clopper_pearson`      | proportion                  | each side's exact interval at β/2, combined (any data)              |
 * | `t`, `bounded`         | mean                        | each side's interval at β/2, combined (the method's own guarantee)  |
 * | `mcnemar`              | proportion, difference      | exact, paired: discordant pairs (`mcnemar.ts`)                      |
 * | `bootstrap_percentile` | mean, median, central quantiles | percentile bootstrap of the ratio or difference, paired or not  |
 * | `none`                 | any                         | the estimate only                                                   |
 *
 * **Combined sides.** With β the one-sided error of the whole interval ((1 − confidence)/2), each
 * side gets its one-sample interval [L, U] with one-sided error β/2 per bound; then
 * difference: [L_c − U_b, U_c − L_b]; ratio: [L_c / U_b, U_c / L_b] (values non-negative; an upper
 * end is unbounded when L_b = 0). The difference is below its lower bound only if θ_c < L_c or
 * θ_b > U_b, so the error is at most β/2 + β/2 = β whatever the dependence between the sides
 * (paired or not), with the guarantee of the side method (order statistics and Clopper-Pearson:
 * every distribution, censored latencies included). Wide, never wrong.
 *
 * **Bootstrap.** Percentile interval (type-7 quantiles at β and 1 − β) of the B ratios or
 * differences of `twoSampleBootstrap`; for means the expanded percentile interval, read at the
 * shares of `bootstrapTailShares` (the plain one erred 2.5-3.2% a side at n = 100). Refused where
 * the calibration table shows it cannot hold its level: fewer than 100 values a side, censored
 * values, constant or binary sides, quantiles outside [0.25, 0.75] (a bootstrap bound cannot pass
 * the sample extremes), and for means a skewness beyond ±1 of the values the ratio or difference
 * is a mean of: the paired differences cᵢ − bᵢ, the linearised ratio cᵢ − R·bᵢ, or each side when
 * unpaired.
 *
 * Ratios need non-negative values on both sides and a positive baseline estimate.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import {
  type ComparisonKind,
  type ComparisonMethod,
  comparisonMethodProblem,
} from "./compare_methods.ts";
import { twoSampleBootstrap } from "./compare_bootstrap.ts";
import { bootstrapMonteCarloSe, EMPIRIC_LIBRARY, estimateInterval } from "./interval.ts";
import { DISTRIBUTION_LIBRARY, type LibraryInfo, STATS_LIBRARY } from "./library.ts";
import { discordantCounts, mcnemarExactP, pairedProportionInterval } from "./mcnemar.ts";
import { isBinary, isConstant, sampleSkewness } from "./moments.ts";
import { sortedQuantile } from "./bootstrap.ts";
import { expandedTailShare } from "./expanded_percentile.ts";
import { computeStatistic, statisticName } from "./statistic.ts";
import type { Bounds, IntervalMethod, IntervalResult, Statistic } from "./types.ts";
import { MAX_ABS_SKEWNESS, MIN_BOOTSTRAP_N } from "./interval.ts";
import {
  requireFiniteValues,
  requireOpenUnit,
  requireResamples,
  requireSeed,
  requireStatistic,
} from "./validate.ts";

export {
  BOOTSTRAP_QUANTILE_RANGE,
  COMPARISON_METHODS_FOR,
  type ComparisonKind,
  type ComparisonMethod,
  comparisonMethodProblem,
} from "./compare_methods.ts";

/** Options of {@link compareInterval}. */
export interface ComparisonOptions {
  /** Coverage of the interval of the ratio or difference, strictly between 0 and 1. */
  confidence: number;
  /** True when `candidate[i]` and `baseline[i]` are the same item (same length). */
  paired: boolean;
  /** Bootstrap resamples (bootstrap only). */
  resamples: number;
  /** MT19937 seed (bootstrap only). */
  seed: number;
  onProgress?: (done: number, total: number) => void;
  /** Per value: only a lower bound (a failed item's latency). */
  censored?: { candidate?: readonly boolean[]; baseline?: readonly boolean[] };
  /** The metric's pre-registered range (the `bounded` method). */
  range?: readonly [number, number];
}

/** One side of a comparison. */
export interface ComparisonSide {
  estimate: number;
  n: number;
  /** The side's own interval at one-sided error β/2 (combined methods only). */
  interval?: IntervalResult;
}

/** A ratio or difference with its interval. */
export interface ComparisonResult {
  kind: ComparisonKind;
  /** `<statistic>_<kind>`: `median_ratio`, `quantile_0.95_ratio`, `proportion_difference`. */
  statistic_name: string;
  estimate: number;
  /** Lower bound; −Infinity when unbounded. */
  low: number;
  /** Upper bound; +Infinity when unbounded. */
  high: number;
  method: ComparisonMethod;
  paired: boolean;
  confidence: number;
  candidate: ComparisonSide;
  baseline: ComparisonSide;
  /** What computed the interval (empiric; the estimate's library for `none`). */
  library: string;
  library_version: string;
  /** What computed each side's estimate. */
  estimate_library: LibraryInfo;
  distribution_library?: LibraryInfo;
  /** Why no interval that holds its level can be given; bounds are then trivial. */
  refused?: string;
  resamples?: number;
  seed?: number;
  /** Monte Carlo standard errors of the bootstrap bounds. */
  mc_se?: { low: number; high: number };
  /** Skewness of the values the bootstrapped mean comparison rests on. */
  skewness?: number;
  /**
   * Bootstrapped means: the shares of the bootstrap distribution the bounds were read at (the
   * expanded percentile interval, wider than β and 1 − β).
   */
  percentile_levels?: Bounds;
  /** `mcnemar`: discordant pairs, the exact McNemar p-value, and the two parts of the interval. */
  mcnemar?: {
    candidate_only: number;
    baseline_only: number;
    p_value: number;
    share: Bounds;
    discordance: Bounds;
  };
}

/**
 * The name of a comparison statistic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { comparisonName } from "./compare.ts";
 * assert.equal(comparisonName({ kind: "quantile", p: 0.95 }, "ratio"), "quantile_0.95_ratio");
 * ```
 */
export function comparisonName(s: Statistic, kind: ComparisonKind): string {
  return `${statisticName(s)}_${kind}`;
}

/** The ratio or difference of two estimates. */
export function combine(kind: ComparisonKind, candidate: number, baseline: number): number {
  return kind === "ratio" ? candidate / baseline : candidate - baseline;
}

/** The interval that claims nothing. */
export function trivialComparisonBounds(s: Statistic, kind: ComparisonKind): Bounds {
  if (kind === "ratio") return { low: 0, high: Infinity };
  return s.kind === "proportion" ? { low: -1, high: 1 } : { low: -Infinity, high: Infinity };
}

/**
 * The ratio or difference of a statistic between a candidate and a baseline, with its interval.
 * Throws `UsageError` for invalid arguments; returns a result with `refused` (and the trivial
 * interval) when the method cannot hold its level on these data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareInterval } from "./compare.ts";
 * const base = Array.from({ length: 200 }, (_, i) => 10 + (i % 20) / 10);
 * const cand = base.map((x) => 1.5 * x); // a 1.5x slowdown, item by item
 * const r = compareInterval(cand, base, { kind: "median" }, "ratio", "bootstrap_percentile", {
 *   confidence: 0.95,
 *   paired: true,
 *   resamples: 999,
 *   seed: 1,
 * });
 * assert.equal(r.statistic_name, "median_ratio");
 * assert.ok(Math.abs(r.estimate - 1.5) < 1e-12 && r.low > 1.05);
 * ```
 */
export function compareInterval(
  candidate: readonly number[],
  baseline: readonly number[],
  s: Statistic,
  kind: ComparisonKind,
  method: ComparisonMethod,
  opts: ComparisonOptions,
): ComparisonResult {
  requireStatistic(s);
  if (kind !== "ratio" && kind !== "difference") {
    throw new UsageError(`comparison kind must be ratio or difference, got ${String(kind)}`);
  }
  requireFiniteValues(candidate, "candidate");
  requireFiniteValues(baseline, "baseline");
  requireOpenUnit(opts.confidence, "confidence");
  const problem = comparisonMethodProblem(s, kind, method);
  if (problem && !(method === "bootstrap_percentile" && s.kind === "quantile")) {
    throw new UsageError(problem);
  }
  const paired = opts.paired === true;
  if (paired && candidate.length !== baseline.length) {
    throw new UsageError(
      `paired samples must have the same length, got ${candidate.length} and ${baseline.length}`,
    );
  }
  const cc = opts.censored?.candidate, cb = opts.censored?.baseline;
  if (cc !== undefined && cc.length !== candidate.length) {
    throw new UsageError("censored.candidate must have one flag per value");
  }
  if (cb !== undefined && cb.length !== baseline.length) {
    throw new UsageError("censored.baseline must have one flag per value");
  }
  const ec = computeStatistic(candidate, s);
  const eb = computeStatistic(baseline, s);
  const lib = method === "none" ? STATS_LIBRARY : EMPIRIC_LIBRARY;
  const base = {
    kind,
    statistic_name: comparisonName(s, kind),
    method,
    paired,
    confidence: opts.confidence,
    candidate: { estimate: ec, n: candidate.length } as ComparisonSide,
    baseline: { estimate: eb, n: baseline.length } as ComparisonSide,
    library: lib.name,
    library_version: lib.version,
    estimate_library: STATS_LIBRARY,
  };
  const refuse = (
    reason: string,
    estimate: number,
    extra: Partial<ComparisonResult> = {},
  ): ComparisonResult => ({
    ...base,
    estimate,
    ...trivialComparisonBounds(s, kind),
    refused: reason,
    ...extra,
  });
  if (kind === "ratio") {
    const negative = candidate.some((x) => x < 0) || baseline.some((x) => x < 0);
    if (negative) {
      return refuse("a ratio needs non-negative values on both sides", 0);
    }
    if (!(eb > 0)) {
      return refuse(
        `the baseline's ${statisticName(s)} is ${eb}: a ratio to it is undefined`,
        0,
      );
    }
  }
  const estimate = combine(kind, ec, eb);
  if (!Number.isFinite(estimate)) {
    return refuse(`the ${kind} overflows double precision`, 0);
  }
  if (problem) return refuse(problem, estimate);
  const beta = (1 - opts.confidence) / 2;
  const censoredCount = (cc?.filter(Boolean).length ?? 0) + (cb?.filter(Boolean).length ?? 0);

  switch (method) {
    case "none":
      return { ...base, estimate, low: estimate, high: estimate };
    case "mcnemar": {
      if (!paired) {
        return refuse(
          "mcnemar needs paired samples (both sides measured on the same items); use clopper_pearson",
          estimate,
        );
      }
      const counts = discordantCounts(candidate, baseline);
      const r = pairedProportionInterval(counts, opts.confidence);
      return {
        ...base,
        estimate,
        low: r.low,
        high: r.high,
        distribution_library: DISTRIBUTION_LIBRARY,
        mcnemar: {
          candidate_only: counts.candidateOnly,
          baseline_only: counts.baselineOnly,
          p_value: mcnemarExactP(counts.candidateOnly, counts.baselineOnly),
          share: r.share,
          discordance: r.discordance,
        },
      };
    }
    case "bootstrap_percentile":
      return bootstrapComparison(
        candidate,
        baseline,
        s,
        kind,
        opts,
        {
          ...base,
          estimate,
        },
        censoredCount,
        refuse,
      );
    default: {
      // Each side at one-sided β/2: a two-sided interval at 1 − β.
      const sideOpts = {
        confidence: 1 - beta,
        resamples: opts.resamples,
        seed: opts.seed,
        ...(opts.range ? { range: opts.range } : {}),
      };
      const ic = estimateInterval(candidate, s, method as IntervalMethod, {
        ...sideOpts,
        ...(cc ? { censored: cc } : {}),
      });
      const ib = estimateInterval(baseline, s, method as IntervalMethod, {
        ...sideOpts,
        ...(cb ? { censored: cb } : {}),
      });
      const sides = {
        candidate: { ...base.candidate, interval: ic },
        baseline: { ...base.baseline, interval: ib },
        ...(ic.distribution_library ? { distribution_library: ic.distribution_library } : {}),
      };
      const why = ic.refused !== undefined
        ? `candidate: ${ic.refused}`
        : ib.refused !== undefined
        ? `baseline: ${ib.refused}`
        : undefined;
      if (why) return refuse(why, estimate, sides);
      const bounds = combineBounds(kind, ic, ib);
      return { ...base, ...sides, estimate, ...bounds };
    }
  }
}

/**
 * Interval arithmetic on two sides' intervals: [L_c − U_b, U_c − L_b] or [L_c / U_b, U_c / L_b]
 * (non-negative statistics: lower ends below 0 count as 0; an upper end is unbounded when L_b is 0).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { combineBounds } from "./compare.ts";
 * assert.deepEqual(combineBounds("difference", { low: 5, high: 7 }, { low: 1, high: 2 }), { low: 3, high: 6 });
 * assert.deepEqual(combineBounds("ratio", { low: 4, high: 6 }, { low: 0, high: 2 }), { low: 2, high: Infinity });
 * ```
 */
export function combineBounds(kind: ComparisonKind, c: Bounds, b: Bounds): Bounds {
  if (kind === "difference") return { low: c.low - b.high, high: c.high - b.low };
  const cl = Math.max(0, c.low), bl = Math.max(0, b.low);
  return {
    low: b.high === Infinity ? 0 : cl / b.high,
    high: bl === 0 ? Infinity : c.high / bl,
  };
}

/** The values a bootstrapped mean comparison behaves like the mean of (for the skewness guard). */
function influenceSkewness(
  candidate: readonly number[],
  baseline: readonly number[],
  kind: ComparisonKind,
  paired: boolean,
  ratio: number,
): number {
  if (!paired) {
    const a = sampleSkewness(candidate), b = sampleSkewness(baseline);
    return Math.abs(a) >= Math.abs(b) ? a : b;
  }
  const z = candidate.map((c, i) => kind === "ratio" ? c - ratio * baseline[i] : c - baseline[i]);
  return isConstant(z) ? 0 : sampleSkewness(z);
}

function bootstrapComparison(
  candidate: readonly number[],
  baseline: readonly number[],
  s: Statistic,
  kind: ComparisonKind,
  opts: ComparisonOptions,
  base: Omit<ComparisonResult, "low" | "high">,
  censoredCount: number,
  refuse: (reason: string, estimate: number, extra?: Partial<ComparisonResult>) => ComparisonResult,
): ComparisonResult {
  requireResamples(opts.resamples);
  requireSeed(opts.seed);
  if (opts.onProgress !== undefined && typeof opts.onProgress !== "function") {
    throw new UsageError("onProgress must be a function");
  }
  const estimate = base.estimate;
  const meta = { resamples: opts.resamples, seed: opts.seed };
  if (censoredCount > 0) {
    return refuse(
      `${censoredCount} censored values: only order_statistic bounds handle them`,
      estimate,
      meta,
    );
  }
  const nMin = Math.min(candidate.length, baseline.length);
  if (nMin < MIN_BOOTSTRAP_N) {
    return refuse(
      `a comparison bootstrap needs at least ${MIN_BOOTSTRAP_N} values a side (below that it does not hold its level), got ${nMin}`,
      estimate,
      meta,
    );
  }
  for (const [side, xs] of [["candidate", candidate], ["baseline", baseline]] as const) {
    if (isConstant(xs)) {
      return refuse(
        `the ${side}'s values are constant: a bootstrap would have zero width`,
        estimate,
        meta,
      );
    }
    if (isBinary(xs)) {
      return refuse(
        `the ${side}'s values are binary; use statistic proportion (clopper_pearson or mcnemar)`,
        estimate,
        meta,
      );
    }
  }
  let skewness: number | undefined;
  if (s.kind === "mean") {
    skewness = influenceSkewness(candidate, baseline, kind, base.paired, estimate);
    if (Math.abs(skewness) > MAX_ABS_SKEWNESS) {
      return refuse(
        `a bootstrap of a ${kind} of means is refused for skewed data (skewness ${
          skewness.toPrecision(3)
        } of the ${
          base.paired
            ? `paired ${kind === "ratio" ? "linearised ratios" : "differences"}`
            : "values"
        }, beyond ±${MAX_ABS_SKEWNESS}): it does not hold its level on heavy tails; use bounded with a pre-registered range`,
        estimate,
        { ...meta, skewness },
      );
    }
  }
  const d = twoSampleBootstrap(
    candidate,
    baseline,
    s,
    base.paired,
    opts.resamples,
    opts.seed,
    opts.onProgress,
  );
  const dist = new Float64Array(opts.resamples);
  for (let r = 0; r < opts.resamples; r++) {
    if (kind === "ratio" && !(d.baseline[r] > 0)) {
      return refuse(
        `resample ${r + 1} has a baseline ${statisticName(s)} of ${
          d.baseline[r]
        }: the ratio is undefined there`,
        estimate,
        meta,
      );
    }
    dist[r] = combine(kind, d.candidate[r], d.baseline[r]);
  }
  const sorted = dist.sort();
  const levels = bootstrapTailShares(s, opts.confidence, nMin);
  return {
    ...base,
    low: sortedQuantile(sorted, levels.low),
    high: sortedQuantile(sorted, levels.high),
    ...meta,
    mc_se: {
      low: bootstrapMonteCarloSe(sorted, levels.low),
      high: bootstrapMonteCarloSe(sorted, levels.high),
    },
    ...(s.kind === "mean" ? { percentile_levels: levels } : {}),
    ...(skewness !== undefined ? { skewness } : {}),
  };
}

/**
 * The shares of the bootstrap distribution at which a comparison's bounds are read: β and 1 − β
 * for quantiles; for means the expanded percentile's (src/stats/expanded_percentile.ts), with n
 * the number of pairs, or the smaller side when unpaired.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bootstrapTailShares } from "./compare.ts";
 * const median = bootstrapTailShares({ kind: "median" }, 0.9, 100);
 * assert.ok(Math.abs(median.low - 0.05) < 1e-15 && Math.abs(median.high - 0.95) < 1e-15);
 * const mean = bootstrapTailShares({ kind: "mean" }, 0.9, 100);
 * assert.ok(mean.low < 0.05 && mean.low > 0.045 && Math.abs(mean.low + mean.high - 1) < 1e-15);
 * ```
 */
export function bootstrapTailShares(s: Statistic, confidence: number, n: number): Bounds {
  const beta = (1 - confidence) / 2;
  if (s.kind !== "mean") return { low: beta, high: 1 - beta };
  const share = expandedTailShare(beta, n);
  return { low: share, high: 1 - share };
}
