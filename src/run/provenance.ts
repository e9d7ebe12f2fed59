/**
 * The record's section 8: a W3C PROV-JSON document linking the datasets, the scenario, the
 * substrate, the run activity and the result.
 *
 * @module
 */
import type { JsonObject } from "../json/value.ts";
import type { LoadedDataset } from "../scenario/types.ts";
import type { LineageLink } from "../record/lineage.ts";

/** Inputs of {@link buildProvenance}. */
export interface ProvenanceInputs {
  runId: string;
  scenarioName: string;
  configHash: string;
  dataHash: string;
  datasets: readonly LoadedDataset[];
  substrateName: string;
  substrateCommit: string;
  substrateSpec: string;
  empiricVersion: string;
  empiricCommit: string;
  startedAt: string;
  endedAt: string;
  lineage: readonly LineageLink[];
  /** A signed pre-registration the run was checked against (its digest is in `lineage`). */
  registration?: { digest: string; registered_at: string; keyids: readonly string[] } | null;
}

/**
 * Build the PROV-JSON graph. Identifiers use the `empiric:` namespace; the result entity is
 * `empiric:run/<run id>/result` (the proof_id cannot name it: it hashes this graph).
 *
 * @example
 * ```ts ignore
 * const prov = buildProvenance({ runId, scenarioName, ... });
 * ```
 */
export function buildProvenance(i: ProvenanceInputs): JsonObject {
  const run = `empiric:run/${i.runId}`;
  const result = `${run}/result`;
  const scenario = `empiric:scenario/${i.scenarioName}`;
  const substrate = `empiric:substrate/${encodeURIComponent(i.substrateName)}`;
  const software = `empiric:software/empiric/${i.empiricVersion}`;
  const entity: JsonObject = {
    [scenario]: {
      "prov:type": { "$": "empiric:Scenario", "type": "prov:QUALIFIED_NAME" },
      "prov:label": i.scenarioName,
      "empiric:config_hash": i.configHash,
    },
    [result]: {
      "prov:type": { "$": "empiric:ProofRecord", "type": "prov:QUALIFIED_NAME" },
      "empiric:data_hash": i.dataHash,
    },
  };
  const used: JsonObject = {
    [`_:used/scenario`]: {
      "prov:activity": run,
      "prov:entity": scenario,
      "prov:time": i.startedAt,
    },
  };
  const derived: JsonObject = {};
  for (const d of i.datasets) {
    const id = `empiric:dataset/${encodeURIComponent(d.spec.name)}`;
    entity[id] = {
      "prov:type": { "$": "empiric:Dataset", "type": "prov:QUALIFIED_NAME" },
      "prov:label": d.spec.name,
      "empiric:kind": d.spec.kind,
      "empiric:content_hash": d.content_hash,
      "empiric:n_records": BigInt(d.items.length),
      "prov:location": d.source,
    };
    used[`_:used/${d.spec.name}`] = {
      "prov:activity": run,
      "prov:entity": id,
      "prov:time": i.startedAt,
    };
    derived[`_:derived/${d.spec.name}`] = { "prov:generatedEntity": result, "prov:usedEntity": id };
  }
  const reg = i.registration;
  if (reg) {
    const id = `empiric:registration/${reg.digest}`;
    entity[id] = {
      "prov:type": { "$": "empiric:Registration", "type": "prov:QUALIFIED_NAME" },
      "empiric:registered_at": reg.registered_at,
      "empiric:signed_by": reg.keyids.join(" "),
    };
    used[`_:used/registration`] = {
      "prov:activity": run,
      "prov:entity": id,
      "prov:time": i.startedAt,
    };
  }
  // An earlier proof is the same node its own graph gave its result (when known), so the
  // graphs of a lineage join; its proof_id is an attribute.
  for (const earlier of i.lineage) {
    if (earlier.proof_id === reg?.digest) continue;
    const id = earlier.entity ?? `empiric:proof/${earlier.proof_id}`;
    entity[id] = {
      "prov:type": { "$": "empiric:ProofRecord", "type": "prov:QUALIFIED_NAME" },
      "empiric:proof_id": earlier.proof_id,
    };
    derived[`_:lineage/${earlier.proof_id}`] = {
      "prov:generatedEntity": result,
      "prov:usedEntity": id,
    };
  }
  return {
    prefix: { empiric: "https://empiric.dev/ns/prov#" },
    entity,
    activity: {
      [run]: {
        "prov:startTime": i.startedAt,
        "prov:endTime": i.endedAt,
        "prov:type": { "$": "empiric:ScenarioRun", "type": "prov:QUALIFIED_NAME" },
      },
    },
    agent: {
      [substrate]: {
        "prov:type": { "$": "prov:SoftwareAgent", "type": "prov:QUALIFIED_NAME" },
        "prov:label": i.substrateName,
        "empiric:git_commit": i.substrateCommit,
        "empiric:spec": i.substrateSpec,
      },
      [software]: {
        "prov:type": { "$": "prov:SoftwareAgent", "type": "prov:QUALIFIED_NAME" },
        "prov:label": "empiric",
        "empiric:version": i.empiricVersion,
        "empiric:git_commit": i.empiricCommit,
      },
    },
    used,
    wasGeneratedBy: {
      "_:generated": { "prov:entity": result, "prov:activity": run, "prov:time": i.endedAt },
    },
    wasAssociatedWith: {
      "_:assoc/substrate": { "prov:activity": run, "prov:agent": substrate },
      "_:assoc/empiric": { "prov:activity": run, "prov:agent": software },
    },
    wasAttributedTo: { "_:attributed": { "prov:entity": result, "prov:agent": software } },
    wasDerivedFrom: derived,
  };
}
