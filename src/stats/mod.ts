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
  type LibraryInfo,
  STATS_LIBRARY,
} from "./library.ts";
export { computeStatistic, statisticName } from "./statistic.ts";
export { estimateInterval } from "./interval.ts";
export { crossCheckStatistic } from "./cross_check.ts";
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
export { wilsonInterval } from "./wilson.ts";
export { studentTQuantile, tInterval } from "./t_interval.ts";
export { MAX_RESAMPLES, MAX_SEED } from "./validate.ts";
