/**
 * Versions of the libraries that shape a run's numbers, recorded in `reproduction.environment`.
 * A test checks them against the import map in deno.json.
 *
 * @module
 */
import { CROSS_CHECK_LIBRARY, STATS_LIBRARY } from "../stats/library.ts";

/** Library name → version. */
export const RESULT_LIBRARIES: Readonly<Record<string, string>> = {
  [STATS_LIBRARY.name]: STATS_LIBRARY.version,
  [CROSS_CHECK_LIBRARY.name]: CROSS_CHECK_LIBRARY.version,
  "pure-rand": "8.4.2",
  yaml: "2.9.1",
};
