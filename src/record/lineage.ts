/**
 * Links between records: a run names its direct predecessor (and any `--after` proofs) in
 * `reproduction.lineage_chain`, and its provenance graph refers to each one by the very node
 * id the earlier record gave its own result (`empiric:run/<run id>/result`), so the graphs of
 * a lineage join into one.
 *
 * @module
 */
import { isJsonObject, type JsonValue } from "../json/value.ts";

/** One earlier proof a run follows. */
export interface LineageLink {
  /** Its `identity.proof_id`. */
  proof_id: string;
  /** The node id of its result entity in its provenance graph, when known. */
  entity?: string;
}

/**
 * The id of a record's result entity: the entity its provenance says the run generated.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resultEntityOf } from "./lineage.ts";
 * const record = {
 *   provenance: { wasGeneratedBy: { "_:generated": { "prov:entity": "empiric:run/ab/result" } } },
 * };
 * assert.equal(resultEntityOf(record), "empiric:run/ab/result");
 * assert.equal(resultEntityOf({}), undefined);
 * ```
 */
export function resultEntityOf(record: JsonValue | Record<string, unknown>): string | undefined {
  const rec = record as JsonValue;
  if (!isJsonObject(rec) || !isJsonObject(rec.provenance)) return undefined;
  const gen = rec.provenance.wasGeneratedBy;
  if (!isJsonObject(gen)) return undefined;
  for (const v of Object.values(gen)) {
    if (isJsonObject(v) && typeof v["prov:entity"] === "string") {
      const id = v["prov:entity"];
      if (/^empiric:run\/[0-9a-f]+\/result$/.test(id)) return id;
    }
  }
  return undefined;
}
