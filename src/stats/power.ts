/**
 * Power and sample size under the pre-registered decision rule: the probability that a run of n
 * items gives VALIDATED when the truth is an assumed value on the claim's side, and the smallest n
 * at which VALIDATED is possible at all.
 *
 * The assumption's meaning follows the statistic:
 *
 * - proportion: the true proportion;
 * - quantile and median: the true fraction of values at or below the threshold, F(θ) (a quantile
 *   claim "p95 ≤ θ" is the claim F(θ) ≥ 0.95, so no distribution shape is needed);
 * - mean: the true mean, with `sd` the true standard deviation.
 *
 * Exact for Clopper-Pearson, Wilson and order statistics (binomial sums; ties ignored), exact for
 * the t rule on normal data (noncentral t, jStat), approximate for the bootstrap (normal
 * approximation) and the bounded mean (its width is at most ε(b − a)).
 *
 * @module
 */
import type { Comparator as AnyComparator } from "../record/types.ts";

/** One-sample claims compare with a line: `<`, `<=`, `>`, `>=` (`within` is for comparisons). */
type Comparator = Exclude<AnyComparator, "within">;
import { binomialCdf, studentTQuantile } from "./distributions.ts";
import { clopperPearsonInterval } from "./clopper_pearson.ts";
import { dkwEpsilon } from "./bounded_mean.ts";
import { MIN_BOOTSTRAP_N } from "./interval.ts";
import { jStat } from "./jstat.ts";
import { normalCdf, normalQuantile } from "./normal.ts";
import { orderStatisticMinimumN, orderStatisticRanks } from "./order_statistic.ts";
import type { IntervalMethod, Statistic } from "./types.ts";
import { wilsonExactError, wilsonInterval } from "./wilson.ts";

/** What a power calculation needs to know. */
export interface PowerQuestion {
  statistic: Statistic;
  method: IntervalMethod;
  decision: "interval" | "point";
  comparator: Comparator;
  threshold: number;
  confidence: number;
  /** The assumed truth (see the module comment for its meaning per statistic). */
  assume: number;
  /** Mean claims: the assumed standard deviation. */
  sd?: number;
  /** `bounded`: the metric's range. */
  range?: readonly [number, number];
}

const upperSide = (c: Comparator) => c === "<" || c === "<=";

function satisfies(x: number, c: Comparator, t: number): boolean {
  return c === "<" ? x < t : c === "<=" ? x <= t : c === ">" ? x > t : x >= t;
}

/**
 * The number of successes from which (`>=`, `>`) or up to which (`<=`, `<`) a proportion interval
 * lies wholly on the claim's side at n trials; undefined when no count does.
 */
function criticalCount(q: PowerQuestion, n: number): number | undefined {
  const bound = (k: number) => {
    const b = q.method === "wilson"
      ? wilsonInterval(k, n, q.confidence)
      : clopperPearsonInterval(k, n, q.confidence);
    return upperSide(q.comparator) ? b.high : b.low;
  };
  const ok = (k: number) => satisfies(bound(k), q.comparator, q.threshold);
  // The bounds increase with k: bisection for the boundary count.
  if (upperSide(q.comparator)) {
    if (!ok(0)) return undefined;
    let lo = 0, hi = n; // largest k with ok(k)
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (ok(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  if (!ok(n)) return undefined;
  let lo = 0, hi = n; // smallest k with ok(k)
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function proportionPower(q: PowerQuestion, n: number, p: number): number {
  const k = criticalCount(q, n);
  if (k === undefined) return 0;
  return upperSide(q.comparator) ? binomialCdf(k, n, p) : 1 - binomialCdf(k - 1, n, p);
}

/**
 * P(VALIDATED) with n items when the truth is `q.assume`; null when it cannot be computed (a mean
 * without `sd`). 0 wherever the rule cannot validate (too few items, a refused method).
 *
 * @example
 * ```ts
 * import { powerAt } from "./power.ts";
 * import assert from "node:assert/strict";
 * const q = {
 *   statistic: { kind: "quantile", p: 0.95 } as const,
 *   method: "order_statistic" as const,
 *   decision: "interval" as const,
 *   comparator: "<=" as const,
 *   threshold: 5,
 *   confidence: 0.95,
 *   assume: 0.99, // 99% of calls at or below 5 ms
 * };
 * assert.equal(powerAt(q, 50), 0); // p95 needs 72 items for an upper bound
 * assert.ok(powerAt(q, 300)! > 0.9);
 * ```
 */
export function powerAt(q: PowerQuestion, n: number): number | null {
  const s = q.statistic;
  const beta = (1 - q.confidence) / 2;
  if (q.decision === "interval" && q.method === "none") return 0;
  if (s.kind === "proportion") {
    if (q.decision === "point") {
      // P(k/n satisfies the comparator)
      let k0 = upperSide(q.comparator) ? -1 : n + 1;
      for (let k = 0; k <= n; k++) {
        if (satisfies(k / n, q.comparator, q.threshold)) {
          if (upperSide(q.comparator)) k0 = k;
          else if (k0 === n + 1) k0 = k;
        }
      }
      return upperSide(q.comparator)
        ? (k0 < 0 ? 0 : binomialCdf(k0, n, q.assume))
        : (k0 > n ? 0 : 1 - binomialCdf(k0 - 1, n, q.assume));
    }
    if (
      q.method === "wilson" && wilsonExactError(n, q.threshold, q.comparator, q.confidence) > beta
    ) {
      return 0;
    }
    return proportionPower(q, n, q.assume);
  }
  if (s.kind === "quantile" || s.kind === "median") {
    const p = s.kind === "median" ? 0.5 : s.p;
    const f = q.assume;
    if (q.decision === "point") {
      // The type-7 estimate is at most θ when its upper order statistic is (sufficient; exact
      // when (n − 1)p is whole).
      const rank = Math.ceil((n - 1) * p) + 1;
      return upperSide(q.comparator)
        ? 1 - binomialCdf(rank - 1, n, f)
        : binomialCdf(Math.floor((n - 1) * p), n, f);
    }
    const ranks = orderStatisticRanks(n, p, q.confidence);
    if (upperSide(q.comparator)) {
      return ranks.upper > n ? 0 : 1 - binomialCdf(ranks.upper - 1, n, f);
    }
    return ranks.lower === 0 ? 0 : binomialCdf(ranks.lower - 1, n, f);
  }
  // mean
  if (q.sd === undefined || !(q.sd > 0)) return null;
  const delta = (upperSide(q.comparator) ? q.threshold - q.assume : q.assume - q.threshold) *
    Math.sqrt(n) / q.sd;
  if (q.decision === "point") return normalCdf(delta);
  switch (q.method) {
    case "t": {
      if (n < 3) return 0;
      const tc = -studentTQuantile(beta, n - 1);
      // (x̄ − θ)/(s/√n) is noncentral t with n − 1 df and noncentrality −δ (upper claims).
      return jStat.noncentralt.cdf(-tc, n - 1, -delta);
    }
    case "bootstrap_percentile":
    case "bootstrap_bca":
      return n < MIN_BOOTSTRAP_N ? 0 : normalCdf(delta + normalQuantile(beta));
    case "bounded": {
      if (!q.range) return null;
      const width = dkwEpsilon(n, q.confidence) * (q.range[1] - q.range[0]);
      return normalCdf(delta - width * Math.sqrt(n) / q.sd);
    }
    default:
      return 0;
  }
}

/**
 * The smallest n at which the rule can give VALIDATED at all (with the most favourable data);
 * null when it never can (`interval: none` under the interval rule, a bounded range that does not
 * reach the threshold).
 *
 * @example
 * ```ts
 * import { smallestDecidableN } from "./power.ts";
 * import assert from "node:assert/strict";
 * const base = { decision: "interval" as const, comparator: "<=" as const, threshold: 5, confidence: 0.95, assume: 0.99 };
 * assert.equal(smallestDecidableN({ ...base, statistic: { kind: "quantile", p: 0.99 }, method: "order_statistic" }), 368);
 * assert.equal(smallestDecidableN({ ...base, statistic: { kind: "proportion" }, method: "clopper_pearson", comparator: ">=", threshold: 0.95 }), 72);
 * ```
 */
export function smallestDecidableN(q: PowerQuestion): number | null {
  const s = q.statistic;
  if (q.decision === "interval" && q.method === "none") return null;
  if (q.decision === "point") return 1;
  if (s.kind === "quantile" || s.kind === "median") {
    const p = s.kind === "median" ? 0.5 : s.p;
    return orderStatisticMinimumN(p, q.confidence, upperSide(q.comparator) ? "upper" : "lower");
  }
  if (s.kind === "proportion") {
    if (upperSide(q.comparator) ? q.threshold >= 1 : q.threshold <= 0) return 1;
    const extreme = upperSide(q.comparator) ? 0 : 1; // all failures / all successes
    for (let n = 1; n <= 1_000_000; n = n < 1000 ? n + 1 : Math.ceil(n * 1.01)) {
      if (powerAt({ ...q, assume: extreme }, n) === 1) {
        // refine downwards after a geometric step
        let m = n;
        while (m > 1 && powerAt({ ...q, assume: extreme }, m - 1) === 1) m--;
        return m;
      }
    }
    return null;
  }
  switch (q.method) {
    case "t":
      return 3;
    case "bootstrap_percentile":
    case "bootstrap_bca":
      return MIN_BOOTSTRAP_N;
    case "bounded": {
      if (!q.range) return null;
      const [a, b] = q.range;
      const gap = upperSide(q.comparator)
        ? (q.threshold - a) / (b - a)
        : (b - q.threshold) / (b - a);
      if (!(gap > 0)) return null;
      const beta = (1 - q.confidence) / 2;
      return Math.max(1, Math.ceil(Math.log(1 / beta) / (2 * gap * gap)));
    }
    default:
      return null;
  }
}

/**
 * The smallest n from {@link smallestDecidableN} up to `cap` with power at least `target`
 * (searched exactly up to 20,000, by doubling and bisection beyond, where the sawtooth of discrete
 * rules may hide a slightly smaller n); null when none up to `cap` (or power cannot be computed).
 *
 * @example
 * ```ts
 * import { nForPower, powerAt } from "./power.ts";
 * import assert from "node:assert/strict";
 * const q = {
 *   statistic: { kind: "proportion" } as const,
 *   method: "clopper_pearson" as const,
 *   decision: "interval" as const,
 *   comparator: ">=" as const,
 *   threshold: 0.9,
 *   confidence: 0.95,
 *   assume: 0.95,
 * };
 * const n = nForPower(q, 0.8)!;
 * assert.ok(powerAt(q, n)! >= 0.8 && powerAt(q, n - 1)! < 0.8);
 * ```
 */
export function nForPower(q: PowerQuestion, target: number, cap = 1_000_000): number | null {
  const start = smallestDecidableN(q);
  if (start === null) return null;
  if (powerAt(q, start) === null) return null;
  const LINEAR = 20_000;
  for (let n = start; n <= Math.min(cap, LINEAR); n++) {
    if (powerAt(q, n)! >= target) return n;
  }
  let lo = LINEAR, hi = LINEAR;
  while (powerAt(q, hi)! < target) {
    lo = hi;
    hi *= 2;
    if (hi > cap) {
      if (powerAt(q, cap)! < target) return null;
      hi = cap;
      break;
    }
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (powerAt(q, mid)! >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}
