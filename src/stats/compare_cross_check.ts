/**
 * Independent re-computation of a comparison (the evidence entry's `cross_check`): each side's
 * estimate with jStat, then the ratio or difference; the bounds by a second route per method:
 *
 * - bootstrap: every resample materialised (pure-rand `uniformInt` indices, jStat mean and type-7
 *   quantiles), the ratios or differences sorted, jStat's type-7 quantiles at β and 1 − β (for
 *   means at the expanded percentile's shares, from jStat's t quantile and normal CDF);
 * - combined sides: each side's bounds by `crossCheckInterval`'s route (binomial summation for
 *   order statistics, bisection for Clopper-Pearson, jStat for t, the integral for bounded), then
 *   the same interval arithmetic;
 * - mcnemar: both Clopper-Pearson parts by bisection on summed binomial tails.
 *
 * @module
 */
import { mersenne } from "pure-rand/generator/mersenne";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { clopperPearsonBySummation } from "./clopper_pearson.ts";
import {
  combine,
  combineBounds,
  type ComparisonOptions,
  type ComparisonResult,
} from "./compare.ts";
import { crossCheckInterval, crossCheckStatistic, jStatExpandedTailShare } from "./cross_check.ts";
import { jStat } from "./jstat.ts";
import { CROSS_CHECK_LIBRARY } from "./library.ts";
import type { TwoSampleDistribution } from "./compare_bootstrap.ts";
import type { Statistic } from "./types.ts";

function jStatistic(xs: number[], s: Statistic): number {
  switch (s.kind) {
    case "mean":
    case "proportion":
      return jStat.mean(xs);
    case "median":
      return jStat.median(xs);
    case "quantile":
      return xs.length === 1 ? xs[0] : jStat.quantiles(xs, [s.p], 1, 1)[0];
  }
}

/**
 * The plain two-sample bootstrap: every resample materialised with pure-rand `uniformInt` (the
 * same draws, in the same order, as `twoSampleBootstrap`), each side's statistic by jStat.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { referenceTwoSampleBootstrap } from "./compare_cross_check.ts";
 * import { twoSampleBootstrap } from "./compare_bootstrap.ts";
 * const c = [5, 1, 4, 2, 8, 7], b = [3, 3, 1, 9, 2, 6];
 * const fast = twoSampleBootstrap(c, b, { kind: "median" }, false, 50, 3);
 * const plain = referenceTwoSampleBootstrap(c, b, { kind: "median" }, false, 50, 3);
 * assert.deepEqual([...fast.baseline], [...plain.baseline]);
 * ```
 */
export function referenceTwoSampleBootstrap(
  candidate: readonly number[],
  baseline: readonly number[],
  s: Statistic,
  paired: boolean,
  resamples: number,
  seed: number,
): TwoSampleDistribution {
  const rng = mersenne(seed);
  const nc = candidate.length, nb = baseline.length;
  const out = { candidate: new Float64Array(resamples), baseline: new Float64Array(resamples) };
  const sc = new Array<number>(nc), sb = new Array<number>(nb);
  for (let r = 0; r < resamples; r++) {
    if (paired) {
      for (let i = 0; i < nc; i++) {
        const j = uniformInt(rng, 0, nc - 1);
        sc[i] = candidate[j];
        sb[i] = baseline[j];
      }
    } else {
      for (let i = 0; i < nc; i++) sc[i] = candidate[uniformInt(rng, 0, nc - 1)];
      for (let i = 0; i < nb; i++) sb[i] = baseline[uniformInt(rng, 0, nb - 1)];
    }
    out.candidate[r] = jStatistic(sc, s);
    out.baseline[r] = jStatistic(sb, s);
  }
  return out;
}

const fmt = (x: number) => (Number.isFinite(x) ? String(x) : "unbounded");

/**
 * Recompute a comparison's estimate and bounds by the independent routes above and state whether
 * they agree (estimate within 1e-9 relative; bounds within 1e-9 relative, exactly for order
 * statistics, 1e-6 for t). Bounds are not rechecked when the interval was refused or is `none`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareInterval } from "./compare.ts";
 * import { crossCheckComparison } from "./compare_cross_check.ts";
 * const b = Array.from({ length: 120 }, (_, i) => 10 + (i % 13));
 * const c = b.map((x, i) => x * (1 + (i % 5) / 100));
 * const opts = { confidence: 0.95, paired: true, resamples: 200, seed: 9 };
 * const r = compareInterval(c, b, { kind: "median" }, "ratio", "bootstrap_percentile", opts);
 * const cc = crossCheckComparison(c, b, { kind: "median" }, r, opts);
 * assert.ok(cc.agrees, cc.text);
 * ```
 */
export function crossCheckComparison(
  candidate: readonly number[],
  baseline: readonly number[],
  s: Statistic,
  result: ComparisonResult,
  opts: ComparisonOptions,
): { agrees: boolean; text: string } {
  const c = crossCheckStatistic(candidate, s, result.candidate.estimate);
  const b = crossCheckStatistic(baseline, s, result.baseline.estimate);
  const value = combine(result.kind, c.value, b.value);
  const scale = Math.max(Math.abs(value), Math.abs(result.estimate), Number.MIN_VALUE);
  const estimateAgrees = c.agrees && b.agrees &&
    (value === result.estimate || Math.abs(value - result.estimate) <= 1e-9 * scale);
  const lib = `${CROSS_CHECK_LIBRARY.name} ${CROSS_CHECK_LIBRARY.version}`;
  let text = `${lib}: candidate ${c.value}, baseline ${b.value}, ${result.kind} ${value}; ${
    estimateAgrees ? "agrees within 1e-9 (relative)" : `DISAGREES with ${result.estimate}`
  }`;
  if (result.refused !== undefined) {
    return { agrees: estimateAgrees, text: `${text}. Bounds: n/a (interval refused)` };
  }
  if (result.method === "none") {
    return { agrees: estimateAgrees, text: `${text}. Bounds: n/a (no interval)` };
  }
  const beta = (1 - opts.confidence) / 2;
  let low: number, high: number, route: string, tol: number;
  switch (result.method) {
    case "bootstrap_percentile": {
      const d = referenceTwoSampleBootstrap(
        candidate,
        baseline,
        s,
        result.paired,
        opts.resamples,
        opts.seed,
      );
      const values = Array.from(d.candidate, (x, r) => combine(result.kind, x, d.baseline[r]));
      values.sort((x, y) => x - y);
      // Means: the expanded percentile's share, n the pairs or the smaller side.
      const share = s.kind === "mean"
        ? jStatExpandedTailShare(beta, Math.min(candidate.length, baseline.length))
        : beta;
      [low, high] = jStat.quantiles(values, [share, 1 - share], 1, 1);
      route = `pure-rand uniformInt resamples with ${lib} statistics and quantiles${
        s.kind === "mean" ? ", expanded percentile shares from jStat's t and normal" : ""
      }`;
      // jStat's t quantile agrees with stdlib-js's to about 1e-7 (as for the t method).
      tol = s.kind === "mean" ? 1e-6 : 1e-9;
      break;
    }
    case "mcnemar": {
      const m = result.mcnemar!;
      const disc = m.candidate_only + m.baseline_only;
      const share = disc === 0
        ? { low: 0, high: 1 }
        : clopperPearsonBySummation(m.candidate_only, disc, 1 - beta);
      const q = clopperPearsonBySummation(disc, candidate.length, 1 - beta);
      const ls = 2 * share.low - 1, hs = 2 * share.high - 1;
      low = ls * (ls >= 0 ? q.low : q.high);
      high = hs * (hs >= 0 ? q.high : q.low);
      route = "empiric bisection on summed binomial tails";
      tol = 1e-9;
      break;
    }
    default: {
      const sideOpts = {
        confidence: 1 - beta,
        resamples: opts.resamples,
        seed: opts.seed,
        ...(opts.range ? { range: opts.range } : {}),
      };
      const ic = result.candidate.interval!, ib = result.baseline.interval!;
      const rc = crossCheckInterval(candidate, s, ic, {
        ...sideOpts,
        ...(opts.censored?.candidate ? { censored: opts.censored.candidate } : {}),
      });
      const rb = crossCheckInterval(baseline, s, ib, {
        ...sideOpts,
        ...(opts.censored?.baseline ? { censored: opts.censored.baseline } : {}),
      });
      if (!rc || !rb) {
        return { agrees: estimateAgrees, text: `${text}. Bounds: n/a` };
      }
      ({ low, high } = combineBounds(result.kind, rc, rb));
      route = `each side at one-sided ${
        Number((beta / 2).toPrecision(12))
      }: candidate ${rc.text}; baseline ${rb.text}`;
      tol = result.method === "order_statistic" ? 0 : result.method === "t" ? 1e-6 : 1e-9;
    }
  }
  const sc = Math.max(Math.abs(result.low), Math.abs(result.high), Number.MIN_VALUE);
  const s2 = Number.isFinite(sc) ? sc : 1;
  const close = (x: number, y: number) =>
    x === y || (Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= tol * s2);
  const boundsAgree = close(low, result.low) && close(high, result.high);
  text += `. Bounds: ${route} = [${fmt(low)}, ${fmt(high)}]; ${
    boundsAgree
      ? tol === 0 ? "agree exactly" : `agree within ${tol} (relative)`
      : `DISAGREE with [${fmt(result.low)}, ${fmt(result.high)}]`
  }`;
  return { agrees: estimateAgrees && boundsAgree, text };
}
