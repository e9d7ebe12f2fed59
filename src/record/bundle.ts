/**
 * The parts stored beside a record (its bundle) checked against what the signed record says
 * about them: the observations file must hash to the `content_hash` of the record's
 * `observations` dataset, and the normalized scenario's canonical form must hash to
 * `pre_registration.config_hash`; a comparative record's baseline observations must hash to the
 * `content_hash` of its `baseline` dataset. A part nothing in the record vouches for is refused, so a
 * store never serves evidence beside a record that the record does not seal.
 *
 * @module
 */
import { sha256Hex } from "../crypto/hash.ts";
import type { Problem } from "../errors/errors.ts";
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonValue } from "../json/value.ts";

/** Bundle parts as exact bytes (`observations`, `scenario`, `baseline`). */
export interface BundleBytes {
  observations?: Uint8Array;
  scenario?: Uint8Array;
  baseline?: Uint8Array;
}

function datasets(record: JsonValue): { kind: unknown; content_hash: unknown }[] {
  if (!isJsonObject(record) || !isJsonObject(record.data)) return [];
  const d = record.data.datasets;
  return Array.isArray(d)
    ? d.map((x) => (isJsonObject(x) ? x : {}) as { kind: unknown; content_hash: unknown })
    : [];
}

/**
 * Problems of bundle parts against their (already verified) record; empty when they belong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkBundleParts } from "./bundle.ts";
 * const obs = new TextEncoder().encode('{"id":"1","value":0.5}\n');
 * const record = { data: { datasets: [{ kind: "observations", content_hash:
 *   "c4a91d4b1bd5c0f1e3faf3a12dfaa7cbe07ab3adc2e7bff7aafcc6fff91b4b8e" }] } };
 * const problems = await checkBundleParts(record, { observations: obs });
 * assert.equal(problems.length, 1);
 * assert.equal(problems[0].code, "bundle_mismatch");
 * assert.deepEqual(await checkBundleParts(record, {}), []);
 * ```
 */
export async function checkBundleParts(
  record: JsonValue,
  parts: BundleBytes,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const kind of ["observations", "baseline"] as const) {
    const bytes = parts[kind];
    if (bytes === undefined) continue;
    const what = kind === "observations" ? "observations" : "baseline observations";
    const all = datasets(record);
    const index = all.findIndex((d) => d.kind === kind);
    if (index < 0) {
      problems.push({
        code: "bundle_mismatch",
        message:
          `${what} were given but the record names no dataset of kind ${kind}, so nothing it signs vouches for them`,
        pointer: "/data/datasets",
      });
    } else {
      const hash = await sha256Hex(new Uint8Array(bytes));
      const matching = all.some((d) => d.kind === kind && d.content_hash === hash);
      if (!matching) {
        problems.push({
          code: "bundle_mismatch",
          message:
            `the ${what} hash to ${hash}, not to the content_hash the record gives its ${kind} dataset (${
              String(all[index].content_hash)
            })`,
          pointer: `/data/datasets/${index}/content_hash`,
        });
      }
    }
  }
  if (parts.scenario !== undefined) {
    const expected = isJsonObject(record) && isJsonObject(record.pre_registration)
      ? record.pre_registration.config_hash
      : undefined;
    let hash: string | undefined;
    try {
      hash = await sha256Hex(
        new TextEncoder().encode(canonicalize(parseJson(parts.scenario))),
      );
    } catch (e) {
      problems.push({
        code: "bundle_mismatch",
        message: `the scenario is not canonical-form JSON: ${(e as Error).message}`,
      });
    }
    if (hash !== undefined && hash !== expected) {
      problems.push({
        code: "bundle_mismatch",
        message:
          `the scenario's canonical form hashes to ${hash}, not to the record's pre_registration.config_hash (${
            String(expected)
          })`,
        pointer: "/pre_registration/config_hash",
      });
    }
  }
  return problems;
}
