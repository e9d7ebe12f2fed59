/**
 * Calibration by simulation: how often the interval rule says VALIDATED for claims exactly at
 * their threshold (it must be at most the one-sided error, 2.5% at 95%, within Monte Carlo error)
 * and for claims 10% inside it (it must match the power `powerAt` predicts). Used by
 * `bench/calibration.ts` (the full table in docs/statistics.md) and by a fast subset in the tests.
 *
 * Each run draws n values from the distribution with one seeded MT19937 stream (pure-rand's
 * `uniformFloat64`; normals by Box-Muller, one per pair of uniforms), then decides with the same
 * functions the analysis uses: `estimateInterval` (refusals included), Wilson's exact-error guard,
 * and the interval rule (`decide` in src/run/analyze.ts, restated here to keep the statistics
 * module free of the run layer).
 *
 * @module
 */
import { estimateInterval } from "./interval.ts";
import { normalCdf, normalQuantile } from "./normal.ts";
import { powerAt } from "./power.ts";
import { seededRandom } from "./random.ts";
import type { IntervalMethod, Statistic } from "./types.ts";
import { wilsonExactError } from "./wilson.ts";

/** Distributions of the calibration table. */
export type CalibrationDistribution =
  | "normal"
  | "lognormal"
  | "pareto"
  | "bernoulli"
  | "lognormal_capped";

/** One cell of the calibration table. */
export interface CalibrationCell {
  statistic: Statistic;
  method: IntervalMethod;
  distribution: CalibrationDistribution;
  n: number;
  comparator: "<=" | ">=";
  /** `at`: the truth equals the threshold; `inside`: it is 10% inside (see {@link truthAndThreshold}). */
  placement: "at" | "inside";
  runs: number;
  seed: number;
  /** Bernoulli's success probability at the threshold (default 0.9). */
  p0?: number;
  resamples?: number;
  confidence?: number;
}

/** What a cell measured. */
export interface CalibrationResult {
  cell: CalibrationCell;
  threshold: number;
  validated: number;
  rate: number;
  /** Runs refused or otherwise INCONCLUSIVE. */
  inconclusive: number;
  /** Monte Carlo standard error at the nominal one-sided error: √(β(1 − β)/runs). */
  mcSe: number;
  /** β + 3·mcSe: the most an at-threshold cell may validate. */
  bound: number;
  /** The power `powerAt` predicts (null where it cannot: bootstrap, bounded, t off normal data). */
  predicted: number | null;
  /** At threshold: rate ≤ bound. Inside: |rate − predicted| ≤ 3·√(predicted(1 − predicted)/runs) + 0.005. */
  passes: boolean;
}

const LN_CAP = Math.log(20);

/** The distribution's true value of the statistic. */
export function trueValue(d: CalibrationDistribution, s: Statistic, p0 = 0.9): number {
  const p = s.kind === "quantile" ? s.p : 0.5;
  switch (d) {
    case "normal":
      return s.kind === "mean" ? 10 : 10 + 2 * normalQuantile(p);
    case "lognormal":
      return s.kind === "mean" ? Math.exp(0.5) : Math.exp(normalQuantile(p));
    case "lognormal_capped":
      return s.kind === "mean"
        ? Math.exp(0.5) * normalCdf(LN_CAP - 1) + 20 * (1 - normalCdf(LN_CAP))
        : Math.min(20, Math.exp(normalQuantile(p)));
    case "pareto":
      return s.kind === "mean" ? 1.5 : (1 - p) ** (-1 / 3);
    case "bernoulli":
      return p0;
  }
}

/** The distribution's CDF F(x) (continuous distributions). */
export function trueCdf(d: CalibrationDistribution, x: number): number {
  switch (d) {
    case "normal":
      return normalCdf((x - 10) / 2);
    case "lognormal":
      return x <= 0 ? 0 : normalCdf(Math.log(x));
    case "lognormal_capped":
      return x >= 20 ? 1 : x <= 0 ? 0 : normalCdf(Math.log(x));
    case "pareto":
      return x <= 1 ? 0 : 1 - x ** -3;
    case "bernoulli":
      return NaN;
  }
}

/**
 * The threshold of a cell and the truth it is tested against. At threshold they are equal. 10%
 * inside: for a location statistic the truth is 0.9·θ for `<=` and 1.1·θ for `>=`; for a
 * proportion the failure rate is 10% lower (`>=`: p = p₀ + 0.1(1 − p₀)) or the success rate 10%
 * lower (`<=`: p = 0.9·p₀).
 */
export function truthAndThreshold(cell: CalibrationCell): { threshold: number; truth: number } {
  const v = trueValue(cell.distribution, cell.statistic, cell.p0);
  if (cell.statistic.kind === "proportion") {
    const p0 = cell.p0 ?? 0.9;
    if (cell.placement === "at") return { threshold: p0, truth: p0 };
    return {
      threshold: p0,
      truth: cell.comparator === ">=" ? p0 + 0.1 * (1 - p0) : 0.9 * p0,
    };
  }
  if (cell.placement === "at") return { threshold: v, truth: v };
  return { threshold: cell.comparator === "<=" ? v / 0.9 : v / 1.1, truth: v };
}

function sampler(d: CalibrationDistribution, seed: number, p: number): () => number {
  const u = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  switch (d) {
    case "normal":
      return () => 10 + 2 * normal();
    case "lognormal":
      return () => Math.exp(normal());
    case "lognormal_capped":
      return () => Math.min(20, Math.exp(normal()));
    case "pareto":
      return () => (1 - u()) ** (-1 / 3);
    case "bernoulli":
      return () => (u() < p ? 1 : 0);
  }
}

function satisfies(x: number, c: "<=" | ">=", t: number): boolean {
  return c === "<=" ? x <= t : x >= t;
}

/**
 * Run one calibration cell.
 *
 * @example
 * ```ts
 * import { calibrate } from "./calibration.ts";
 * import assert from "node:assert/strict";
 * const r = calibrate({
 *   statistic: { kind: "quantile", p: 0.95 },
 *   method: "order_statistic",
 *   distribution: "lognormal",
 *   n: 100,
 *   comparator: "<=",
 *   placement: "at",
 *   runs: 400,
 *   seed: 1,
 * });
 * assert.ok(r.rate <= r.bound);
 * ```
 */
export function calibrate(cell: CalibrationCell): CalibrationResult {
  const confidence = cell.confidence ?? 0.95;
  const beta = (1 - confidence) / 2;
  const { threshold, truth } = truthAndThreshold(cell);
  const draw = sampler(cell.distribution, cell.seed, truth);
  const opts = {
    confidence,
    resamples: cell.resamples ?? 2000,
    seed: cell.seed,
    ...(cell.distribution === "lognormal_capped" ? { range: [0, 20] as [number, number] } : {}),
    ...(cell.distribution === "bernoulli" && cell.method === "bounded"
      ? { range: [0, 1] as [number, number] }
      : {}),
  };
  const wilsonRefused = cell.method === "wilson" &&
    wilsonExactError(cell.n, threshold, cell.comparator, confidence) > beta * (1 + 1e-9);
  let validated = 0;
  let inconclusive = 0;
  const values = new Array<number>(cell.n);
  for (let r = 0; r < cell.runs; r++) {
    for (let i = 0; i < cell.n; i++) values[i] = draw();
    if (wilsonRefused) {
      inconclusive++;
      continue;
    }
    const iv = estimateInterval(values, cell.statistic, cell.method, {
      ...opts,
      seed: (cell.seed + r) % 0x1_0000_0000,
    });
    if (iv.refused !== undefined) {
      inconclusive++;
      continue;
    }
    const needed = cell.comparator === "<=" ? iv.high : iv.low;
    const other = cell.comparator === "<=" ? iv.low : iv.high;
    if (satisfies(needed, cell.comparator, threshold)) validated++;
    else if (satisfies(other, cell.comparator, threshold)) inconclusive++;
  }
  const rate = validated / cell.runs;
  const mcSe = Math.sqrt((beta * (1 - beta)) / cell.runs);
  const bound = beta + 3 * mcSe;
  const predicted = predictedPower(cell, threshold, truth, confidence);
  const passes = cell.placement === "at" ? rate <= bound : predicted === null ||
    Math.abs(rate - predicted) <=
      3 * Math.sqrt((predicted * (1 - predicted)) / cell.runs) + 0.005;
  return { cell, threshold, validated, rate, inconclusive, mcSe, bound, predicted, passes };
}

/** The power `powerAt` predicts for a cell, where the prediction is exact; else null. */
function predictedPower(
  cell: CalibrationCell,
  threshold: number,
  truth: number,
  confidence: number,
): number | null {
  const s = cell.statistic;
  const base = {
    statistic: s,
    method: cell.method,
    decision: "interval" as const,
    comparator: cell.comparator,
    threshold,
    confidence,
  };
  if (s.kind === "proportion") return powerAt({ ...base, assume: truth }, cell.n);
  if (cell.method === "order_statistic") {
    return powerAt({ ...base, assume: trueCdf(cell.distribution, threshold) }, cell.n);
  }
  if (cell.method === "t" && cell.distribution === "normal") {
    // The skewness guard refuses a few normal samples too; the prediction ignores it.
    return powerAt({ ...base, assume: truth, sd: 2 }, cell.n);
  }
  return null;
}
