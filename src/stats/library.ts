/**
 * Which libraries compute the statistics, and which one independently re-checks them.
 *
 * The versions are the ones pinned in the project's import map (`deno.json`); a test keeps the
 * two in step.
 *
 * @module
 */

/** A library named in a proof record: npm package name and exact version. */
export interface LibraryInfo {
  readonly name: string;
  readonly version: string;
}

/** The library every statistic and interval is computed with. */
export const STATS_LIBRARY: LibraryInfo = Object.freeze({
  name: "simple-statistics",
  version: "7.12.1",
});

/**
 * The distribution functions (binomial CDF, beta and Student t quantiles) come from stdlib-js's
 * `@stdlib/stats-base-dists-*` packages, all at this version.
 */
export const DISTRIBUTION_LIBRARY: LibraryInfo = Object.freeze({
  name: "@stdlib/stats-base-dists",
  version: "0.2.3",
});

/** The independent library each point estimate is re-computed with. */
export const CROSS_CHECK_LIBRARY: LibraryInfo = Object.freeze({ name: "jstat", version: "1.9.6" });

/**
 * Relative tolerance of a cross-check: two values agree when they differ by at most this fraction
 * of the largest magnitude involved (see `crossCheckStatistic`).
 */
export const CROSS_CHECK_TOLERANCE = 1e-9;
