/**
 * Calibration by simulation for comparative claims: how often the interval rule says VALIDATED,
 * and REFUTED, when the true ratio or difference sits exactly at the claim's threshold (each must
 * be at most the one-sided error, 2.5% at 95%, within Monte Carlo error), and how often a claim
 * the truth satisfies is REFUTED (identical systems against "ratio <= 1.05": at most 2.5%). Used
 * by `bench/calibration.ts` (the table in docs/statistics.md) and by a subset in the tests.
 *
 * Models (one seeded MT19937 stream per cell; normals by Box-Muller):
 *
 * - `lognormal_items`: item i has a difficulty sᵢ = exp(0.5·Zᵢ); a measurement of it is
 *   sᵢ·exp(0.2·Eᵢ) (fresh noise per side). The candidate is the baseline scaled by the true ratio
 *   r (kind `ratio`) or shifted by the true difference δ (kind `difference`), so every quantile,
 *   the median and the mean differ by exactly r or δ. Latency-like: right-skewed, item effects
 *   shared by both sides.
 * - `normal_items`: sᵢ ~ N(10, 2²), a measurement sᵢ + N(0, 1); scaled or shifted as above.
 * - `bernoulli_pairs`: 0/1 outcomes per item with P(baseline 1) = 0.9, P(baseline 1, candidate 0)
 *   = 0.04 and P(candidate 1, baseline 0) = 0.04 + δ: the candidate's success rate is 0.9 + δ.
 *
 * Paired cells measure both sides on the same items; unpaired cells draw separate items per side.
 * The decision is the run's: `compareInterval` (refusals count as INCONCLUSIVE), then the interval
 * rule with comparators `<=`, `>=` and `within` (restated here to keep the statistics free of
 * the run layer).
 *
 * @module
 */
import { compareInterval, type ComparisonKind, type ComparisonMethod } from "./compare.ts";
import { seededRandom } from "./random.ts";
import type { Statistic } from "./types.ts";

/** Data models of the comparison calibration. */
export type ComparisonModel = "lognormal_items" | "normal_items" | "bernoulli_pairs";

/** One cell of the comparison calibration table. */
export interface ComparisonCell {
  statistic: Statistic;
  method: ComparisonMethod;
  kind: ComparisonKind;
  model: ComparisonModel;
  paired: boolean;
  n: number;
  comparator: "<=" | ">=" | "within";
  /** The claim's threshold value (for `within`: the margin v in |ratio − 1| or |difference| ≤ v). */
  threshold: number;
  /** The true ratio or difference. */
  truth: number;
  runs: number;
  seed: number;
  resamples?: number;
  confidence?: number;
}

/** What a cell measured. */
export interface ComparisonCalibrationResult {
  cell: ComparisonCell;
  validated: number;
  refuted: number;
  inconclusive: number;
  /** Runs whose interval was refused (part of `inconclusive`). */
  refused: number;
  validatedRate: number;
  refutedRate: number;
  /** β + 3·√(β(1 − β)/runs). */
  bound: number;
  /** The truth sits on the threshold (VALIDATED and REFUTED are both errors there). */
  atThreshold: boolean;
  /** The truth satisfies the claim (REFUTED is an error). */
  truthSatisfies: boolean;
  /** At threshold: both rates ≤ bound; truth satisfying the claim: REFUTED ≤ bound; else VALIDATED ≤ bound. */
  passes: boolean;
}

/** `x <comparator> t`, with `within` meaning |x − center| ≤ t. */
function holds(x: number, comparator: ComparisonCell["comparator"], t: number, center: number) {
  return comparator === "<=" ? x <= t : comparator === ">=" ? x >= t : Math.abs(x - center) <= t;
}

/**
 * The interval rule for comparisons: VALIDATED when every value in [low, high] satisfies the
 * claim, REFUTED when none does, else INCONCLUSIVE. `within v` is |x − center| ≤ v (center 1 for
 * a ratio, 0 for a difference): two one-sided bounds, each with error β.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideComparison } from "./compare_calibration.ts";
 * assert.equal(decideComparison(0.98, 1.03, "within", 0.05, 1), "VALIDATED");
 * assert.equal(decideComparison(1.06, 1.2, "within", 0.05, 1), "REFUTED");
 * assert.equal(decideComparison(0.9, 1.03, "within", 0.05, 1), "INCONCLUSIVE");
 * ```
 */
export function decideComparison(
  low: number,
  high: number,
  comparator: "<" | "<=" | ">" | ">=" | "within",
  value: number,
  center: number,
): "VALIDATED" | "REFUTED" | "INCONCLUSIVE" {
  if (comparator === "within") {
    if (low >= center - value && high <= center + value) return "VALIDATED";
    if (low > center + value || high < center - value) return "REFUTED";
    return "INCONCLUSIVE";
  }
  const upper = comparator === "<" || comparator === "<=";
  const ok = (x: number) =>
    comparator === "<"
      ? x < value
      : comparator === "<="
      ? x <= value
      : comparator === ">"
      ? x > value
      : x >= value;
  if (ok(upper ? high : low)) return "VALIDATED";
  if (!ok(upper ? low : high)) return "REFUTED";
  return "INCONCLUSIVE";
}

function sampler(cell: ComparisonCell): () => { c: number[]; b: number[] } {
  const u = seededRandom(cell.seed);
  const z = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const { n, paired, kind, truth } = cell;
  const apply = (x: number) => (kind === "ratio" ? truth * x : x + truth);
  switch (cell.model) {
    case "lognormal_items":
    case "normal_items": {
      const item = cell.model === "lognormal_items"
        ? () => Math.exp(0.5 * z())
        : () => 10 + 2 * z();
      const measure = cell.model === "lognormal_items"
        ? (s: number) => s * Math.exp(0.2 * z())
        : (s: number) => s + z();
      return () => {
        const c = new Array<number>(n), b = new Array<number>(n);
        for (let i = 0; i < n; i++) {
          const s = item();
          b[i] = measure(s);
          c[i] = apply(measure(paired ? s : item()));
        }
        return { c, b };
      };
    }
    case "bernoulli_pairs": {
      // P(b=1,c=1) = 0.86, P(b=1,c=0) = 0.04, P(b=0,c=1) = 0.04 + δ, P(0,0) = 0.06 − δ.
      const p11 = 0.86, p10b = 0.04, p01c = 0.04 + truth;
      return () => {
        const c = new Array<number>(n), b = new Array<number>(n);
        for (let i = 0; i < n; i++) {
          const x = u();
          if (x < p11) [b[i], c[i]] = [1, 1];
          else if (x < p11 + p10b) [b[i], c[i]] = [1, 0];
          else if (x < p11 + p10b + p01c) [b[i], c[i]] = [0, 1];
          else [b[i], c[i]] = [0, 0];
        }
        if (!paired) {
          // Independent items per side: redraw the candidate's from its own marginal.
          const pc = 0.9 + truth;
          for (let i = 0; i < n; i++) c[i] = u() < pc ? 1 : 0;
        }
        return { c, b };
      };
    }
  }
}

/**
 * Run one comparison calibration cell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { calibrateComparison } from "./compare_calibration.ts";
 * const r = calibrateComparison({
 *   statistic: { kind: "quantile", p: 0.95 },
 *   method: "order_statistic",
 *   kind: "ratio",
 *   model: "lognormal_items",
 *   paired: true,
 *   n: 300,
 *   comparator: "<=",
 *   threshold: 1.05,
 *   truth: 1.05,
 *   runs: 200,
 *   seed: 1,
 * });
 * assert.ok(r.passes);
 * ```
 */
export function calibrateComparison(cell: ComparisonCell): ComparisonCalibrationResult {
  const confidence = cell.confidence ?? 0.95;
  const beta = (1 - confidence) / 2;
  const draw = sampler(cell);
  const center = cell.kind === "ratio" ? 1 : 0;
  let validated = 0, refuted = 0, inconclusive = 0, refused = 0;
  for (let r = 0; r < cell.runs; r++) {
    const { c, b } = draw();
    const iv = compareInterval(c, b, cell.statistic, cell.kind, cell.method, {
      confidence,
      paired: cell.paired,
      resamples: cell.resamples ?? 999,
      seed: (cell.seed + r) % 0x1_0000_0000,
    });
    if (iv.refused !== undefined) {
      refused++;
      inconclusive++;
      continue;
    }
    const outcome = decideComparison(iv.low, iv.high, cell.comparator, cell.threshold, center);
    if (outcome === "VALIDATED") validated++;
    else if (outcome === "REFUTED") refuted++;
    else inconclusive++;
  }
  const bound = beta + 3 * Math.sqrt((beta * (1 - beta)) / cell.runs);
  const validatedRate = validated / cell.runs, refutedRate = refuted / cell.runs;
  const boundary = cell.comparator === "within" ? center + cell.threshold : cell.threshold;
  const atThreshold = Math.abs(cell.truth - boundary) < 1e-12;
  const truthSatisfies = holds(cell.truth, cell.comparator, cell.threshold, center);
  const passes = atThreshold
    ? validatedRate <= bound && refutedRate <= bound
    : truthSatisfies
    ? refutedRate <= bound
    : validatedRate <= bound;
  return {
    cell,
    validated,
    refuted,
    inconclusive,
    refused,
    validatedRate,
    refutedRate,
    bound,
    atThreshold,
    truthSatisfies,
    passes,
  };
}
