/**
 * Typed access to the parts of jStat (npm `jstat`, untyped) the statistics modules use.
 *
 * @module
 */
import jstatModule from "jstat";

/** The subset of the jStat object used here. */
export interface JStat {
  mean(values: number[]): number;
  median(values: number[]): number;
  /** Sample quantiles; alphap = betap = 1 is type 7. */
  quantiles(values: number[], ps: number[], alphap: number, betap: number): number[];
  /** Standard deviation; `flag` true for the sample (n − 1) form. */
  stdev(values: number[], flag: boolean): number;
  studentt: {
    inv(p: number, df: number): number;
  };
  noncentralt: {
    cdf(x: number, df: number, ncp: number): number;
  };
  normal: {
    cdf(x: number, mean: number, sd: number): number;
  };
}

/** The jStat object. */
export const jStat: JStat = jstatModule as unknown as JStat;
