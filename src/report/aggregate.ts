/**
 * Summaries of a sample that a report draws instead of the sample itself: histogram bins, a
 * thinned empirical CDF and a quantile table. Each is bounded in size whatever n is (at most
 * {@link MAX_BINS} bins and {@link ECDF_POINTS} ECDF points), so a report of 100,000 observations
 * is as small as one of 100. Quantiles are type 7 (src/stats/quantile.ts), the definition the
 * record's own quantile statistics use.
 *
 * @module
 */
import { type7Position, type7Value } from "../stats/quantile.ts";

/** One histogram bin [x0, x1) (the last one closed), with how many values are censored. */
export interface Bin {
  x0: number;
  x1: number;
  count: number;
  /** Values in this bin known only to be at least their value (failed items' latency). */
  censored: number;
}

/** One point of the empirical CDF: the fraction of values ≤ x. */
export interface EcdfPoint {
  x: number;
  p: number;
}

/** Most bins a histogram has. */
export const MAX_BINS = 60;
/** Most points an ECDF is thinned to. */
export const ECDF_POINTS = 400;
/** Probabilities of the quantile table. */
export const TABLE_PROBABILITIES = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1] as const;

/** A sorted copy of a sample, with the censored flags carried along. */
export interface SortedSample {
  values: Float64Array;
  censored: Uint8Array;
}

/**
 * Sort values ascending (typed-array sort), keeping each value's censored flag with it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sortSample } from "./aggregate.ts";
 * const s = sortSample([3, 1, 2], [true, false, false]);
 * assert.deepEqual([...s.values], [1, 2, 3]);
 * assert.deepEqual([...s.censored], [0, 0, 1]);
 * ```
 */
export function sortSample(values: readonly number[], censored?: readonly boolean[]): SortedSample {
  const n = values.length;
  const sorted = Float64Array.from(values).sort();
  const flags = new Uint8Array(n);
  if (censored && censored.some(Boolean)) {
    // Censored values are few: count them per value and hand the flags out among equal values.
    const pending = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      if (censored[i]) pending.set(values[i], (pending.get(values[i]) ?? 0) + 1);
    }
    for (let i = 0; i < n && pending.size > 0; i++) {
      const left = pending.get(sorted[i]);
      if (left) {
        flags[i] = 1;
        if (left === 1) pending.delete(sorted[i]);
        else pending.set(sorted[i], left - 1);
      }
    }
  }
  return { values: sorted, censored: flags };
}

/**
 * The type-7 quantile of sorted values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quantileSorted } from "./aggregate.ts";
 * const v = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
 * assert.ok(Math.abs(quantileSorted(v, 0.95) - 9.55) < 1e-12);
 * assert.equal(quantileSorted(v, 0), 1);
 * assert.equal(quantileSorted(v, 1), 10);
 * ```
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (p <= 0) return sorted[0];
  if (p >= 1) return sorted[n - 1];
  const pos = type7Position(n, p);
  return type7Value(pos, sorted[pos.lower], sorted[pos.upper]);
}

/** The quantile table of a sorted sample. */
export function quantileTable(
  sorted: ArrayLike<number>,
  probabilities: readonly number[] = TABLE_PROBABILITIES,
): { p: number; value: number }[] {
  if (sorted.length === 0) return [];
  return probabilities.map((p) => ({ p, value: quantileSorted(sorted, p) }));
}

/** A "nice" step (1, 2 or 5 times a power of ten) near `span / count`. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0) || !(count > 0)) return 1;
  const raw = span / count;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / power;
  const m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return m * power;
}

/**
 * Histogram bins of a sorted sample: the bin count by the Freedman–Diaconis rule (Sturges' when
 * the interquartile range is 0), between 1 and {@link MAX_BINS}, on nice boundaries. Every value
 * falls in exactly one bin; the counts add up to n.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { histogram, sortSample } from "./aggregate.ts";
 * const s = sortSample(Array.from({ length: 1000 }, (_, i) => i % 100));
 * const bins = histogram(s);
 * assert.equal(bins.reduce((a, b) => a + b.count, 0), 1000);
 * assert.ok(bins.length <= 60);
 * assert.deepEqual(histogram(sortSample([5, 5, 5])).map((b) => b.count), [3]);
 * ```
 */
export function histogram(sample: SortedSample, maxBins = MAX_BINS): Bin[] {
  const v = sample.values;
  const n = v.length;
  if (n === 0) return [];
  const lo = v[0], hi = v[n - 1];
  if (lo === hi) {
    const half = lo === 0 ? 0.5 : Math.abs(lo) * 0.05;
    return [{ x0: lo - half, x1: lo + half, count: n, censored: countOnes(sample.censored) }];
  }
  const iqr = quantileSorted(v, 0.75) - quantileSorted(v, 0.25);
  const fd = iqr > 0 ? Math.ceil((hi - lo) / (2 * iqr * Math.cbrt(1 / n))) : 0;
  const wanted = Math.max(1, Math.min(maxBins, fd > 0 ? fd : Math.ceil(Math.log2(n) + 1)));
  let step = 0, start = 0, count = 0;
  for (let target = wanted; target >= 1; target--) {
    step = niceStep(hi - lo, target);
    start = Math.floor(lo / step) * step;
    count = Math.max(1, Math.ceil((hi - start) / step));
    if (count <= maxBins) break;
  }
  if (
    !(step > 1e-290) || !Number.isFinite(start) || !(count >= 1 && count <= maxBins) ||
    start + step === start
  ) {
    // A span too small for the floating-point grid (subnormal differences): one bin.
    return [{ x0: lo, x1: hi, count: n, censored: countOnes(sample.censored) }];
  }
  const bins: Bin[] = [];
  for (let i = 0; i < count; i++) {
    bins.push({ x0: start + i * step, x1: start + (i + 1) * step, count: 0, censored: 0 });
  }
  // Rounding must not leave the extremes outside the first and last bins.
  bins[0].x0 = Math.min(bins[0].x0, lo);
  bins[count - 1].x1 = Math.max(bins[count - 1].x1, hi);
  // One pass over the sorted values: the bin index only moves forward.
  let b = 0;
  for (let i = 0; i < n; i++) {
    while (b < count - 1 && v[i] >= bins[b].x1) b++;
    bins[b].count++;
    if (sample.censored[i]) bins[b].censored++;
  }
  return bins;
}

/**
 * Histogram bins on a logarithmic scale (for positive values spanning orders of magnitude, such
 * as latency): 1, 2, 5, 10 or 20 bins per decade, the most that keep at most `maxBins` bins.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logHistogram, sortSample } from "./aggregate.ts";
 * const bins = logHistogram(sortSample([0.01, 0.1, 1, 10, 100]));
 * assert.equal(bins.reduce((a, b) => a + b.count, 0), 5);
 * assert.equal(bins[0].x0, 0.01);
 * assert.throws(() => logHistogram(sortSample([0, 1])), /positive/);
 * ```
 */
export function logHistogram(sample: SortedSample, maxBins = MAX_BINS): Bin[] {
  const v = sample.values;
  const n = v.length;
  if (n === 0) return [];
  if (!(v[0] > 0)) throw new RangeError("a logarithmic histogram needs positive values");
  const l0 = Math.log10(v[0]), l1 = Math.log10(v[n - 1]);
  let perDecade = 1;
  for (const k of [20, 10, 5, 2, 1]) {
    if (Math.ceil((l1 - l0) * k) + 1 <= maxBins) {
      perDecade = k;
      break;
    }
  }
  const first = Math.floor(l0 * perDecade + 1e-9);
  const last = Math.max(first + 1, Math.ceil(l1 * perDecade - 1e-9));
  const edge = (k: number) => Number(Math.pow(10, k / perDecade).toPrecision(12));
  const bins: Bin[] = [];
  for (let k = first; k < last; k++) {
    bins.push({ x0: edge(k), x1: edge(k + 1), count: 0, censored: 0 });
  }
  if (v[n - 1] >= bins[bins.length - 1].x1) {
    bins.push({ x0: edge(last), x1: edge(last + 1), count: 0, censored: 0 });
  }
  let b = 0;
  for (let i = 0; i < n; i++) {
    while (b < bins.length - 1 && v[i] >= bins[b].x1) b++;
    bins[b].count++;
    if (sample.censored[i]) bins[b].censored++;
  }
  return bins;
}

/**
 * Whether a sample is better drawn on a logarithmic scale: every value positive and the largest
 * at least 20 times the smallest.
 */
export function wantsLogScale(sorted: ArrayLike<number>): boolean {
  const n = sorted.length;
  return n > 1 && sorted[0] > 0 && sorted[n - 1] / sorted[0] >= 20;
}

function countOnes(a: Uint8Array): number {
  let c = 0;
  for (let i = 0; i < a.length; i++) c += a[i];
  return c;
}

/**
 * The empirical CDF thinned to at most `points` steps: the first and last value always, and in
 * between evenly spaced ranks; each point is (x, fraction of values ≤ x).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ecdf } from "./aggregate.ts";
 * const pts = ecdf(Float64Array.from([1, 2, 2, 3]));
 * assert.deepEqual(pts, [{ x: 1, p: 0.25 }, { x: 2, p: 0.75 }, { x: 3, p: 1 }]);
 * assert.equal(ecdf(Float64Array.from({ length: 100000 }, (_, i) => i)).length, 400);
 * ```
 */
export function ecdf(sorted: Float64Array, points = ECDF_POINTS): EcdfPoint[] {
  const n = sorted.length;
  if (n === 0) return [];
  const out: EcdfPoint[] = [];
  const m = Math.min(n, points);
  let last = -1;
  for (let j = 0; j < m; j++) {
    let i = m === 1 ? n - 1 : Math.round((j * (n - 1)) / (m - 1));
    // The step at x is where its last copy sits.
    while (i + 1 < n && sorted[i + 1] === sorted[i]) i++;
    if (i <= last) continue;
    last = i;
    out.push({ x: sorted[i], p: (i + 1) / n });
  }
  return out;
}

/** Arithmetic mean (Kahan-summed), NaN for no values. */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  let s = 0, c = 0;
  for (let i = 0; i < n; i++) {
    const y = values[i] - c;
    const t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s / n;
}
