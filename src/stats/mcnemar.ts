/**
 * Paired proportions: the difference d = p_c − p_b of two success rates measured on the same
 * items, from the discordant pairs alone (McNemar's idea), with an interval that keeps its level
 * exactly for every n and every joint distribution.
 *
 * With n pairs, b items the candidate got right and the baseline wrong, c the other way round, and
 * m = b + c discordant pairs: d = p₁₀ − p₀₁ = q(2π − 1), where q = p₁₀ + p₀₁ is the discordance
 * rate and π = p₁₀ / q the candidate's share of the discordant pairs.
 *
 * - π: given m, b ~ Binomial(m, π), so the Clopper-Pearson interval of b of m holds its level
 *   conditionally on m, hence unconditionally (the exact McNemar test inverted). [0, 1] when m = 0.
 * - q: m ~ Binomial(n, q): the Clopper-Pearson interval of m of n.
 *
 * Each of the four one-sided bounds at β/2; the bounds of d are the extremes of q(2π − 1) over the
 * box: low = (2π_L − 1)·(q_L if 2π_L ≥ 1 else q_U), high = (2π_U − 1)·(q_U if 2π_U ≥ 1 else q_L).
 * d < low needs π < π_L, or q on the wrong side of the one q bound that low used, so P(d < low) ≤
 * β/2 + β/2 = β; likewise above. Highly correlated sides (few discordant pairs) give a narrow
 * interval, which two separate proportions cannot.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { clopperPearsonInterval } from "./clopper_pearson.ts";
import { binomialCdf } from "./distributions.ts";
import type { Bounds } from "./types.ts";
import { requireBinary, requireOpenUnit } from "./validate.ts";

/** The counts of a paired comparison of 0/1 outcomes. */
export interface DiscordantCounts {
  n: number;
  /** Candidate 1, baseline 0. */
  candidateOnly: number;
  /** Candidate 0, baseline 1. */
  baselineOnly: number;
}

/**
 * Count the discordant pairs of two paired 0/1 samples.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { discordantCounts } from "./mcnemar.ts";
 * assert.deepEqual(discordantCounts([1, 1, 0, 1], [1, 0, 1, 0]), {
 *   n: 4,
 *   candidateOnly: 2,
 *   baselineOnly: 1,
 * });
 * ```
 */
export function discordantCounts(
  candidate: readonly number[],
  baseline: readonly number[],
): DiscordantCounts {
  requireBinary(candidate, "candidate");
  requireBinary(baseline, "baseline");
  if (candidate.length !== baseline.length) {
    throw new UsageError(
      `paired samples must have the same length, got ${candidate.length} and ${baseline.length}`,
    );
  }
  let b = 0, c = 0;
  for (let i = 0; i < candidate.length; i++) {
    if (candidate[i] === 1 && baseline[i] === 0) b++;
    else if (candidate[i] === 0 && baseline[i] === 1) c++;
  }
  return { n: candidate.length, candidateOnly: b, baselineOnly: c };
}

/** The parts of the paired interval, for the record. */
export interface PairedProportionInterval extends Bounds {
  estimate: number;
  /** Interval of the candidate's share π of discordant pairs (one-sided β/2 each side). */
  share: Bounds;
  /** Interval of the discordance rate q (one-sided β/2 each side). */
  discordance: Bounds;
}

/**
 * The exact interval of the difference of paired proportions from its counts, at `confidence`
 * (one-sided error (1 − confidence)/2 each side).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pairedProportionInterval } from "./mcnemar.ts";
 * // 200 items, the candidate alone right on 3, the baseline alone on 1: d = 0.01.
 * const r = pairedProportionInterval({ n: 200, candidateOnly: 3, baselineOnly: 1 }, 0.95);
 * assert.equal(r.estimate, 0.01);
 * assert.ok(r.low > -0.039 && r.low < 0 && r.high > 0.05 && r.high < 0.056);
 * ```
 */
export function pairedProportionInterval(
  counts: DiscordantCounts,
  confidence: number,
): PairedProportionInterval {
  requireOpenUnit(confidence, "confidence");
  const { n, candidateOnly: b, baselineOnly: c } = counts;
  const m = b + c;
  if (!Number.isSafeInteger(n) || n < 1 || !(b >= 0 && c >= 0 && m <= n)) {
    throw new UsageError(`invalid counts: n=${n}, b=${b}, c=${c}`);
  }
  // One-sided β/2 per bound: a two-sided interval at 1 − β.
  const beta = (1 - confidence) / 2;
  const inner = 1 - beta;
  const share = m === 0 ? { low: 0, high: 1 } : clopperPearsonInterval(b, m, inner);
  const discordance = clopperPearsonInterval(m, n, inner);
  const lowShare = 2 * share.low - 1, highShare = 2 * share.high - 1;
  const low = lowShare * (lowShare >= 0 ? discordance.low : discordance.high);
  const high = highShare * (highShare >= 0 ? discordance.high : discordance.low);
  return { estimate: (b - c) / n, low, high, share, discordance };
}

/**
 * The exact McNemar test's two-sided p-value: min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c,
 * 1/2); 1 when there is no discordant pair. (statsmodels `mcnemar(table, exact=True)`.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcnemarExactP } from "./mcnemar.ts";
 * assert.equal(mcnemarExactP(0, 0), 1);
 * assert.ok(Math.abs(mcnemarExactP(10, 0) - 2 / 1024) < 1e-15);
 * ```
 */
export function mcnemarExactP(candidateOnly: number, baselineOnly: number): number {
  const m = candidateOnly + baselineOnly;
  if (m === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(candidateOnly, baselineOnly), m, 0.5));
}
