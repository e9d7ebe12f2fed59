/**
 * Statistics for claims: point estimates (simple-statistics), intervals (seeded bootstrap
 * percentile and BCa, Wilson, Student t), and an independent cross-check (jStat).
 *
 * @module
 */
export type {
  Bounds,
  CrossCheck,
  IntervalMethod,
  IntervalOptions,
  IntervalResult,
  Statistic,
} from "./types.ts";
export {
  CROSS_CHECK_LIBRARY,
  CROSS_CHECK_TOLERANCE,
  DISTRIBUTION_LIBRARY,
  type LibraryInfo,
  STATS_LIBRARY,
} from "./library.ts";
export { computeStatistic, statisticName } from "./statistic.ts";
export {
  EMPIRIC_LIBRARY,
  estimateInterval,
  MAX_ABS_SKEWNESS,
  meanShapeRefusal,
  METHODS_FOR,
  MIN_BOOTSTRAP_N,
  structuralRefusal,
} from "./interval.ts";
export { crossCheckInterval, crossCheckStatistic } from "./cross_check.ts";
export { betaQuantile, binomialCdf, binomialQuantile, studentTQuantile } from "./distributions.ts";
export { binomialCdfTable, binomialUpperTail } from "./binomial_exact.ts";
export {
  orderStatisticInterval,
  orderStatisticMinimumN,
  orderStatisticRanks,
  orderStatisticRanksBySummation,
} from "./order_statistic.ts";
export { clopperPearsonBySummation, clopperPearsonInterval } from "./clopper_pearson.ts";
export {
  boundedMeanByIntegral,
  boundedMeanInterval,
  boundedMeanMinimumN,
  dkwEpsilon,
} from "./bounded_mean.ts";
export { isBinary, isConstant, sampleSkewness } from "./moments.ts";
export { nForPower, powerAt, type PowerQuestion, smallestDecidableN } from "./power.ts";
export {
  drawIndex,
  indexLimit,
  mersenneTwister,
  type RandomGenerator,
  seededRandom,
} from "./random.ts";
export { normalCdf, normalPdf, normalQuantile } from "./normal.ts";
export {
  bootstrapDistribution,
  percentileInterval,
  type ProgressFn,
  sortedQuantile,
} from "./bootstrap.ts";
export { bcaInterval, bcaLevel, biasCorrection } from "./bca.ts";
export { jackknifeAcceleration, jackknifeValues } from "./jackknife.ts";
export { wilsonBySolving, wilsonExactError, wilsonInterval } from "./wilson.ts";
export { tInterval } from "./t_interval.ts";
export { MAX_RESAMPLES, MAX_SEED } from "./validate.ts";
export {
  BOOTSTRAP_QUANTILE_RANGE,
  bootstrapTailShares,
  combine,
  combineBounds,
  compareInterval,
  COMPARISON_METHODS_FOR,
  type ComparisonKind,
  type ComparisonMethod,
  comparisonMethodProblem,
  comparisonName,
  type ComparisonOptions,
  type ComparisonResult,
  type ComparisonSide,
  trivialComparisonBounds,
} from "./compare.ts";
export { twoSampleBootstrap, type TwoSampleDistribution } from "./compare_bootstrap.ts";
export { expandedTailShare } from "./expanded_percentile.ts";
export { crossCheckComparison, referenceTwoSampleBootstrap } from "./compare_cross_check.ts";
export {
  type DiscordantCounts,
  discordantCounts,
  mcnemarExactP,
  pairedProportionInterval,
} from "./mcnemar.ts";
export { decideComparison } from "./compare_calibration.ts";
