/**
 * The file names of a proof bundle's parts beside a record file (docs/record.md, "The bundle"):
 * `R.json` → `R.observations.jsonl` and `R.scenario.json` (and `R.baseline.observations.jsonl`
 * for a comparative claim). A module of its own so that commands
 * can name the files without loading the analysis.
 *
 * @module
 */

/** The file name suffix of each bundle part beside `<record>.json`. */
export const BUNDLE_SUFFIXES = {
  observations: ".observations.jsonl",
  scenario: ".scenario.json",
  baseline: ".baseline.observations.jsonl",
} as const;

/** Name of a bundle part. */
export type BundlePart = keyof typeof BUNDLE_SUFFIXES;

/**
 * The paths of the bundle parts beside a record file: `run.json` → `run.observations.jsonl` and
 * `run.scenario.json` (a name without `.json` gets the suffixes appended).
 *
 * @example
 * ```ts
 * import { bundlePaths } from "./bundle_paths.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(bundlePaths("proofs/run.json"), {
 *   observations: "proofs/run.observations.jsonl",
 *   scenario: "proofs/run.scenario.json",
 *   baseline: "proofs/run.baseline.observations.jsonl",
 * });
 * ```
 */
export function bundlePaths(recordPath: string): Record<BundlePart, string> {
  const stem = recordPath.endsWith(".json") ? recordPath.slice(0, -5) : recordPath;
  return {
    observations: stem + BUNDLE_SUFFIXES.observations,
    scenario: stem + BUNDLE_SUFFIXES.scenario,
    baseline: stem + BUNDLE_SUFFIXES.baseline,
  };
}
