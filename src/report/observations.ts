/**
 * A run's observations as a report reads them: the file `<record>.observations.jsonl` beside a
 * record (one observation per line, `src/run/observation.ts`), parsed and checked line by line,
 * and matched against the record that claims them.
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
import { type Observation, ObservationSchema } from "../run/observation.ts";
import { isObservation } from "./observation_check.ts";
import { bundlePaths } from "../run/bundle_paths.ts";

/**
 * The observations file that belongs beside a record file: `<record minus .json>.observations.jsonl`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { observationsPathOf } from "./observations.ts";
 * assert.equal(observationsPathOf("proofs/ab.json"), "proofs/ab.observations.jsonl");
 * assert.equal(observationsPathOf("out/record"), "out/record.observations.jsonl");
 * ```
 */
export function observationsPathOf(recordPath: string): string {
  return bundlePaths(recordPath).observations;
}

/**
 * The scenario file that belongs beside a record file: `<record minus .json>.scenario.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scenarioPathOf } from "./observations.ts";
 * assert.equal(scenarioPathOf("proofs/ab.json"), "proofs/ab.scenario.json");
 * ```
 */
export function scenarioPathOf(recordPath: string): string {
  return bundlePaths(recordPath).scenario;
}

/**
 * Parse observations given as JSON Lines (blank lines ignored). A line that is not an
 * observation is `dataset_invalid`, naming the file and the line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseObservations } from "./observations.ts";
 * const text = '{"item":0,"id":"a","ok":true,"attempts":1,"metrics":{"ok":1}}\n';
 * assert.equal(parseObservations(text)[0].id, "a");
 * assert.throws(() => parseObservations('{"item":-1}', "x.jsonl"), /x\.jsonl line 1/);
 * ```
 */
export function parseObservations(text: string, where = "the observations"): Observation[] {
  const out: Observation[] = [];
  let line = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new EmpiricError(
        "dataset_invalid",
        `${where} line ${line} is not JSON: ${(e as Error).message}`,
      );
    }
    if (isObservation(value)) {
      out.push(value as Observation);
      continue;
    }
    // The schema is the reference: it also writes the message.
    const r = ObservationSchema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      const at = issue.path.length ? ` (at /${issue.path.join("/")})` : "";
      throw new EmpiricError(
        "dataset_invalid",
        `${where} line ${line} is not an observation${at}: ${issue.message}`,
      );
    }
    out.push(r.data);
  }
  return out;
}

/** Write observations as JSON Lines (one object per line, a newline after each). */
export function observationsJsonl(observations: readonly Observation[]): string {
  let s = "";
  for (const o of observations) s += JSON.stringify(o) + "\n";
  return s;
}
