/**
 * A proof bundle: the record with the two files kept beside it, so that anyone can recompute
 * its evidence (`empiric audit`, docs/record.md "The bundle").
 *
 * - `<record>.observations.jsonl`: the run's observations (`observation.ts`), one canonical JSON
 *   object per line (wire rules R1-R11, ints as ints and reals as floats), each line ending with
 *   a line feed, in corpus order. The record lists it as the dataset `observations`
 *   (`kind: "observations"`, `content_hash` = SHA-256 of the file's bytes, `n_records` = its
 *   lines, `source` = `observations.jsonl`, its name inside a bundle).
 * - `<record>.scenario.json`: the normalized scenario in canonical form, so its SHA-256 is the
 *   record's `pre_registration.config_hash`.
 *
 * `<record>` is the record file's name without `.json` (`<proof_id>` in a store).
 *
 * @module
 */
import { sha256Hex } from "../crypto/hash.ts";
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue, PyInt } from "../json/value.ts";
import type { DatasetRef } from "../record/types.ts";
import { scenarioValue } from "../scenario/load.ts";
import type { Scenario } from "../scenario/types.ts";
import { type Observation, ObservationSchema } from "./observation.ts";

export { BUNDLE_SUFFIXES, type BundlePart, bundlePaths } from "./bundle_paths.ts";

/** The bundle parts of a run, as the exact bytes written beside the record. */
export interface BundleBytes {
  observations: Uint8Array<ArrayBuffer>;
  scenario: Uint8Array<ArrayBuffer>;
  /** Comparative claims: the baseline's observations (dataset kind `baseline`). */
  baseline?: Uint8Array<ArrayBuffer>;
}

/** The `name` (and `kind`) of the dataset that lists a record's observations file. */
export const OBSERVATIONS_DATASET = "observations";

/** The `source` of that dataset: the file's name inside a bundle. */
export const OBSERVATIONS_SOURCE = "observations.jsonl";

/** One observation as a typed wire value: `item` and `attempts` ints, every other number a float. */
export function observationValue(o: Observation): JsonObject {
  const v: JsonObject = {};
  for (const [k, x] of Object.entries(o)) {
    if (x === undefined) continue;
    v[k] = k === "item" || k === "attempts" ? BigInt(x as number) : x as JsonValue;
  }
  return v;
}

/**
 * The observations file: one canonical JSON line per observation, each ending with `\n`.
 *
 * @example
 * ```ts
 * import { observationsJsonl } from "./bundle.ts";
 * import assert from "node:assert/strict";
 * const bytes = observationsJsonl([
 *   { item: 0, id: "a", ok: true, attempts: 1, metrics: { ok: 1 } },
 * ]);
 * assert.equal(new TextDecoder().decode(bytes), '{"attempts":1,"id":"a","item":0,"metrics":{"ok":1.0},"ok":true}\n');
 * ```
 */
export function observationsJsonl(observations: readonly Observation[]): Uint8Array<ArrayBuffer> {
  let text = "";
  for (const o of observations) text += canonicalize(observationValue(o)) + "\n";
  return new TextEncoder().encode(text);
}

/** The normalized scenario in canonical form (its SHA-256 is the record's config_hash). */
export function scenarioJson(scenario: Scenario): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(canonicalize(scenarioValue(scenario)));
}

/** The bundle parts of a run. */
export function bundleBytes(scenario: Scenario, observations: readonly Observation[]): BundleBytes {
  return { observations: observationsJsonl(observations), scenario: scenarioJson(scenario) };
}

/** The section 4 dataset reference of an observations file. */
export async function observationsDataset(
  bytes: Uint8Array<ArrayBuffer>,
  count: number,
): Promise<DatasetRef> {
  return {
    name: OBSERVATIONS_DATASET,
    content_hash: await sha256Hex(bytes),
    n_records: BigInt(count),
    source: OBSERVATIONS_SOURCE,
    kind: "observations",
  };
}

/** Where an observations file is not what the analysis can read. */
export class ObservationsFormatError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

function plainNumbers(v: JsonValue): unknown {
  if (typeof v === "bigint") return Number(v);
  if (v instanceof PyInt) return Number(v.value);
  if (Array.isArray(v)) return v.map(plainNumbers);
  if (isJsonObject(v)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = plainNumbers(x);
    return o;
  }
  return v;
}

const OPTIONAL: Record<string, (v: JsonValue) => boolean> = {
  attempt_failures: (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  failure: (v) =>
    isJsonObject(v) && Object.keys(v).length === 2 && typeof v.kind === "string" &&
    typeof v.message === "string",
  latency_ms: (v) => typeof v === "number" && v >= 0,
  censored: (v) => typeof v === "boolean",
  scheduled_ms: (v) => typeof v === "number" && v >= 0,
};

/** An observation in its written form (ints as ints), or undefined to let the schema judge. */
function quickObservation(v: JsonValue): Observation | undefined {
  if (!isJsonObject(v)) return undefined;
  const item = v.item, attempts = v.attempts, metrics = v.metrics;
  if (
    typeof item !== "bigint" || item < 0n || item > 9007199254740991n ||
    typeof attempts !== "bigint" || attempts < 0n || attempts > 9007199254740991n ||
    typeof v.id !== "string" || typeof v.ok !== "boolean" || !isJsonObject(metrics)
  ) return undefined;
  for (const x of Object.values(metrics)) if (x !== null && typeof x !== "number") return undefined;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "item" || k === "attempts") o[k] = Number(x);
    else if (k === "id" || k === "ok" || k === "metrics") o[k] = x;
    else if (OPTIONAL[k]?.(x)) o[k] = x;
    else return undefined;
  }
  return o as Observation;
}

/**
 * Read an observations file: one JSON object per line (a last line without `\n` is read too;
 * empty lines are not allowed), each an observation whose `item` is its 0-based line number.
 * Throws {@link ObservationsFormatError} naming the first line that is not.
 *
 * @example
 * ```ts
 * import { observationsJsonl, readObservations } from "./bundle.ts";
 * import assert from "node:assert/strict";
 * const obs = [{ item: 0, id: "a", ok: true, attempts: 1, metrics: { ok: 1 } }];
 * assert.deepEqual(readObservations(observationsJsonl(obs)), obs);
 * assert.throws(() => readObservations(new TextEncoder().encode("{}\n")), /line 1/);
 * ```
 */
export function readObservations(bytes: Uint8Array): Observation[] {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const out: Observation[] = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    let value: JsonValue;
    try {
      value = parseJson(lines[i]);
    } catch (e) {
      throw new ObservationsFormatError(i + 1, (e as Error).message);
    }
    // The common shape is checked by hand (zod took a quarter of a 100,000-line audit); anything
    // else goes through the schema, which also says what is wrong.
    const o = quickObservation(value) ??
      (() => {
        const r = ObservationSchema.safeParse(plainNumbers(value));
        if (!r.success) {
          const issue = r.error.issues[0];
          const where = issue.path.length > 0 ? ` at /${issue.path.join("/")}` : "";
          throw new ObservationsFormatError(i + 1, `not an observation${where}: ${issue.message}`);
        }
        return r.data;
      })();
    if (o.item !== i) {
      throw new ObservationsFormatError(
        i + 1,
        `item is ${o.item}, but observations are in corpus order: line ${i + 1} is item ${i}`,
      );
    }
    out[i] = o;
  }
  return out;
}
