/**
 * The baseline of a comparative claim (`analysis.comparison`): either a second substrate measured
 * in the same run, interleaved item by item (`--baseline-substrate`), or the observations of a
 * stored proof (`--baseline PROOF`), which the caller has verified and matched to their hash.
 *
 * The record lists the baseline's observations as the dataset `baseline` (kind `baseline`,
 * `content_hash` = SHA-256 of the observations file, `n_records` = its lines); the file is kept
 * beside the record as `<record>.baseline.observations.jsonl`, in the same canonical JSON Lines
 * form as the record's own observations, so an audit recomputes both sides. A stored baseline's
 * file is copied byte for byte, so its hash is the baseline proof's own observations hash.
 *
 * @module
 */
import { sha256Hex } from "../crypto/hash.ts";
import { canonicalize } from "../json/canonical.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import type { DatasetRef } from "../record/types.ts";
import type { LoadedDataset } from "../scenario/types.ts";
import type { Substrate } from "../substrate/types.ts";
import type { Observation } from "./observation.ts";

/** The `name` of the dataset that lists the baseline's observations. */
export const BASELINE_DATASET = "baseline";

/** A corpus dataset of the baseline proof (for pairing). */
export interface BaselineCorpus {
  name: string;
  content_hash: string;
  kind: string;
}

/** Where the baseline comes from. */
export type BaselineSource =
  | {
    kind: "substrate";
    /** The `--baseline-substrate` argument as given. */
    spec: string;
    substrate: Substrate;
    /** Name and revision recorded for it. */
    name: string;
    commit: string;
  }
  | {
    kind: "proof";
    /** The baseline proof's id. */
    proofId: string;
    /** Its result entity in its own provenance graph, when known. */
    entity?: string;
    /** Its substrate, as its record names it. */
    substrateName: string;
    substrateCommit: string;
    /** Its corpus and synthetic datasets, as its record lists them. */
    corpus: BaselineCorpus[];
    /** Its observations, read from `bytes`. */
    observations: Observation[];
    /** The exact bytes of its observations file (their SHA-256 is its record's hash). */
    bytes: Uint8Array<ArrayBuffer>;
  };

function observationValue(o: Observation): JsonObject {
  const v: JsonObject = {};
  for (const [k, x] of Object.entries(o)) {
    if (x === undefined) continue;
    v[k] = k === "item" || k === "attempts" ? BigInt(x as number) : x as JsonValue;
  }
  return v;
}

/**
 * Observations as a canonical JSON Lines file: one canonical object per line (ints `item` and
 * `attempts`, every other number a float), each line ending with `\n`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { baselineObservationsBytes } from "./baseline.ts";
 * const bytes = baselineObservationsBytes([
 *   { item: 0, id: "a", ok: true, attempts: 1, metrics: { ok: 1 } },
 * ]);
 * assert.equal(
 *   new TextDecoder().decode(bytes),
 *   '{"attempts":1,"id":"a","item":0,"metrics":{"ok":1.0},"ok":true}\n',
 * );
 * ```
 */
export function baselineObservationsBytes(
  observations: readonly Observation[],
): Uint8Array<ArrayBuffer> {
  let text = "";
  for (const o of observations) text += canonicalize(observationValue(o)) + "\n";
  return new TextEncoder().encode(text);
}

/** The section 4 dataset reference of the baseline's observations. */
export async function baselineDataset(
  bytes: Uint8Array<ArrayBuffer>,
  count: number,
  source: string,
): Promise<DatasetRef> {
  return {
    name: BASELINE_DATASET,
    content_hash: await sha256Hex(bytes),
    n_records: BigInt(count),
    source,
    kind: "baseline",
  };
}

/** The `source` of the baseline dataset: the baseline substrate, or the baseline proof. */
export function baselineSourceText(b: BaselineSource): string {
  return b.kind === "substrate" ? `substrate ${b.spec}` : `proof ${b.proofId}`;
}

/**
 * Whether a stored baseline measured the same items as this run, in the same order: the same
 * corpus datasets (names, kinds and content hashes, in order) and the same item ids.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pairedWith } from "./baseline.ts";
 * const datasets = [{ spec: { name: "c", kind: "corpus" }, content_hash: "ab" }] as never;
 * const obs = [{ item: 0, id: "x", ok: true, attempts: 1, metrics: {} }];
 * const corpus = [{ name: "c", kind: "corpus", content_hash: "ab" }];
 * assert.ok(pairedWith(datasets, obs, { corpus, observations: obs }));
 * assert.ok(!pairedWith(datasets, obs, { corpus: [{ ...corpus[0], content_hash: "cd" }], observations: obs }));
 * ```
 */
export function pairedWith(
  datasets: readonly LoadedDataset[],
  observations: readonly Observation[],
  baseline: { corpus: readonly BaselineCorpus[]; observations: readonly Observation[] },
): boolean {
  const ours = datasets.filter((d) => d.spec.kind === "corpus" || d.spec.kind === "synthetic");
  if (ours.length !== baseline.corpus.length) return false;
  for (let i = 0; i < ours.length; i++) {
    const b = baseline.corpus[i];
    if (
      ours[i].spec.name !== b.name || ours[i].spec.kind !== b.kind ||
      ours[i].content_hash !== b.content_hash
    ) return false;
  }
  if (observations.length !== baseline.observations.length) return false;
  return observations.every((o, i) => o.id === baseline.observations[i].id);
}
