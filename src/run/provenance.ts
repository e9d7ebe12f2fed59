/**
 * The record's section 8: a W3C PROV-JSON document linking the datasets, the scenario, the
 * substrate, the run activity and the result.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/value.ts";
import type { LoadedDataset, Scenario } from "../scenario/types.ts";
import type { LineageLink } from "../record/lineage.ts";
import type { Analysis } from "./analyze.ts";
import { UNBOUNDED } from "./analyze.ts";
import type { HarnessCalibration } from "./execute.ts";
import type { BaselineSource } from "./baseline.ts";
import type { DatasetRef } from "../record/types.ts";
import { interleaveSeed } from "./interleave.ts";

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
  /** The scenario and its analysis: one entity per pillar (docs/statistics.md, "Provenance"). */
  scenario?: Scenario;
  analysis?: Analysis;
  /** The harness's own overhead, measured before the run (latency scenarios). */
  harness?: HarnessCalibration;
  /** Comparative claims: where the baseline came from, its observations dataset, pairing. */
  baseline?: { source: BaselineSource; dataset: DatasetRef; paired: boolean };
  /** The observations file the run generated (the record's `observations` dataset). */
  observations?: { name: string; content_hash: string; n_records: bigint; source: string };
}

const qn = (name: string): JsonObject => ({ "$": name, "type": "prov:QUALIFIED_NAME" });
const bounded = (x: number) => Math.abs(x) < UNBOUNDED && Number.isFinite(x);

/**
 * The pillar entities: every number and rule that decides, as `empiric:` attributes a verifier
 * reads without running statistics. Ints are ints, reals floats.
 */
export function pillarEntities(
  runId: string,
  scenario: Scenario,
  analysis: Analysis,
): Record<string, JsonObject> {
  const a = scenario.analysis;
  const t = scenario.claim.threshold;
  const out: Record<string, JsonObject> = {};
  for (const p of analysis.pillars) {
    const iv = p.interval;
    const e = p.evidence;
    const attrs: Record<string, JsonValue> = {
      "prov:type": qn("empiric:Pillar"),
      "prov:label": p.spec.name,
      "empiric:pillar": p.spec.name,
      "empiric:metric": p.spec.metric,
      "empiric:metric_kind": scenario.metrics[p.spec.metric].kind,
      "empiric:statistic": e.statistic_name,
      "empiric:method": p.spec.interval,
      "empiric:n": BigInt(analysis.measured),
      "empiric:failures": BigInt(p.failed),
      "empiric:censored": BigInt(p.censored?.filter(Boolean).length ?? 0),
      "empiric:failure_policy": p.policy,
      "empiric:confidence": a.confidence,
      "empiric:one_sided_error": Number(((1 - a.confidence) / 2).toPrecision(12)),
      "empiric:estimate": e.statistic_value,
      "empiric:ci_low": e.ci_low,
      "empiric:ci_high": e.ci_high,
      "empiric:ci_low_bounded": bounded(e.ci_low),
      "empiric:ci_high_bounded": bounded(e.ci_high),
      "empiric:estimate_library": iv.estimate_library?.name ?? e.library,
      "empiric:estimate_library_version": iv.estimate_library?.version ?? e.library_version,
      "empiric:interval_library": iv.library,
      "empiric:interval_library_version": iv.library_version,
      "empiric:cross_check_agrees": p.crossCheckAgrees,
      "empiric:deciding": p.deciding,
    };
    if (p.statistic.kind === "quantile") attrs["empiric:p"] = p.statistic.p;
    if (p.statistic.kind === "median") attrs["empiric:p"] = 0.5;
    if (iv.distribution_library) {
      attrs["empiric:distribution_library"] = iv.distribution_library.name;
      attrs["empiric:distribution_library_version"] = iv.distribution_library.version;
    }
    if (iv.ranks) {
      attrs["empiric:rank_low"] = BigInt(iv.ranks.lower);
      attrs["empiric:rank_high"] = BigInt(iv.ranks.upper);
    }
    if (p.spec.interval.startsWith("bootstrap")) {
      attrs["empiric:seed"] = BigInt(p.seed);
      attrs["empiric:resamples"] = BigInt(a.resamples);
      attrs["empiric:rng"] = "MT19937 (pure-rand), indices by rejection sampling";
      if (iv.mc_se) {
        attrs["empiric:mc_se_low"] = iv.mc_se.low;
        attrs["empiric:mc_se_high"] = iv.mc_se.high;
      }
      if (iv.percentile_levels) {
        // The expanded percentile interval of a mean: where the bounds were read.
        attrs["empiric:percentile_low"] = iv.percentile_levels.low;
        attrs["empiric:percentile_high"] = iv.percentile_levels.high;
      }
    }
    if (iv.range) {
      attrs["empiric:range_low"] = iv.range[0];
      attrs["empiric:range_high"] = iv.range[1];
    }
    if (iv.skewness !== undefined) attrs["empiric:skewness"] = iv.skewness;
    if (p.estimateHigh !== undefined) {
      attrs["empiric:estimate_high"] = Number.isFinite(p.estimateHigh) ? p.estimateHigh : UNBOUNDED;
    }
    if (p.exactError !== undefined) attrs["empiric:exact_one_sided_error"] = p.exactError;
    const cmp = p.comparison;
    if (cmp && p.baseline) {
      attrs["empiric:comparison"] = cmp.kind;
      attrs["empiric:paired"] = cmp.paired;
      attrs["empiric:candidate_estimate"] = cmp.candidate.estimate;
      attrs["empiric:baseline_estimate"] = cmp.baseline.estimate;
      attrs["empiric:baseline_n"] = BigInt(analysis.baseline?.measured ?? cmp.baseline.n);
      attrs["empiric:baseline_failures"] = BigInt(p.baseline.failed);
      attrs["empiric:baseline_censored"] = BigInt(
        p.baseline.censored?.filter(Boolean).length ?? 0,
      );
      attrs["empiric:baseline_failure_policy"] = p.baseline.policy;
      for (const side of ["candidate", "baseline"] as const) {
        const siv = cmp[side].interval;
        if (!siv) continue;
        attrs[`empiric:${side}_ci_low`] = Number.isFinite(siv.low) ? siv.low : -UNBOUNDED;
        attrs[`empiric:${side}_ci_high`] = Number.isFinite(siv.high) ? siv.high : UNBOUNDED;
        attrs[`empiric:${side}_confidence`] = siv.confidence;
        if (siv.ranks) {
          attrs[`empiric:${side}_rank_low`] = BigInt(siv.ranks.lower);
          attrs[`empiric:${side}_rank_high`] = BigInt(siv.ranks.upper);
        }
      }
      if (cmp.mcnemar) {
        attrs["empiric:discordant_candidate_only"] = BigInt(cmp.mcnemar.candidate_only);
        attrs["empiric:discordant_baseline_only"] = BigInt(cmp.mcnemar.baseline_only);
        attrs["empiric:mcnemar_p"] = cmp.mcnemar.p_value;
        attrs["empiric:discordant_share_low"] = cmp.mcnemar.share.low;
        attrs["empiric:discordant_share_high"] = cmp.mcnemar.share.high;
        attrs["empiric:discordance_low"] = cmp.mcnemar.discordance.low;
        attrs["empiric:discordance_high"] = cmp.mcnemar.discordance.high;
      }
    }
    if (p.refused !== undefined) attrs["empiric:refused"] = p.refused;
    if (p.undecidable !== undefined) attrs["empiric:undecidable"] = p.undecidable;
    if (p.deciding) {
      const point = a.decision === "point";
      attrs["empiric:decision_rule"] = a.decision;
      attrs["empiric:comparator"] = t.comparator;
      attrs["empiric:threshold"] = t.value;
      attrs["empiric:min_n"] = BigInt(a.min_n);
      attrs["empiric:max_failure_rate"] = a.max_failure_rate;
      attrs["empiric:failed_items"] = BigInt(analysis.failures.length);
      if (analysis.baseline) {
        attrs["empiric:baseline_failed_items"] = BigInt(analysis.baseline.failures.length);
        if (t.comparator === "within") {
          attrs["empiric:within_center"] = scenario.analysis.comparison?.kind === "ratio"
            ? 1.0
            : 0.0;
        }
      }
      attrs["empiric:deciding_low"] = point ? e.statistic_value : e.ci_low;
      attrs["empiric:deciding_high"] = point
        ? (p.estimateHigh === undefined
          ? e.statistic_value
          : Number.isFinite(p.estimateHigh)
          ? p.estimateHigh
          : UNBOUNDED)
        : e.ci_high;
      attrs["empiric:outcome"] = analysis.outcome;
    }
    out[`empiric:run/${runId}/pillar/${p.spec.name}`] = attrs as JsonObject;
  }
  return out;
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
  const generated: JsonObject = {
    "_:generated": { "prov:entity": result, "prov:activity": run, "prov:time": i.endedAt },
  };
  if (i.observations) {
    // Generated by the run (not used by it); the result is derived from it.
    const o = i.observations;
    const id = `empiric:dataset/${encodeURIComponent(o.name)}`;
    entity[id] = {
      "prov:type": { "$": "empiric:Dataset", "type": "prov:QUALIFIED_NAME" },
      "prov:label": o.name,
      "empiric:kind": "observations",
      "empiric:content_hash": o.content_hash,
      "empiric:n_records": o.n_records,
      "prov:location": o.source,
    };
    generated[`_:generated/${o.name}`] = {
      "prov:entity": id,
      "prov:activity": run,
      "prov:time": i.endedAt,
    };
    derived[`_:derived/${o.name}`] = { "prov:generatedEntity": result, "prov:usedEntity": id };
  }
  if (i.scenario && i.analysis) {
    for (const [id, attrs] of Object.entries(pillarEntities(i.runId, i.scenario, i.analysis))) {
      entity[id] = attrs;
      const name = id.slice(id.lastIndexOf("/pillar/") + 8);
      generated[`_:generated/pillar/${name}`] = {
        "prov:entity": id,
        "prov:activity": run,
        "prov:time": i.endedAt,
      };
      derived[`_:derived/pillar/${name}`] = {
        "prov:generatedEntity": result,
        "prov:usedEntity": id,
      };
    }
  }
  const activityAttrs: JsonObject = {
    "prov:startTime": i.startedAt,
    "prov:endTime": i.endedAt,
    "prov:type": { "$": "empiric:ScenarioRun", "type": "prov:QUALIFIED_NAME" },
  };
  if (i.analysis) {
    activityAttrs["empiric:measured"] = BigInt(i.analysis.measured);
    activityAttrs["empiric:failed_items"] = BigInt(i.analysis.failures.length);
    activityAttrs["empiric:retried_items"] = BigInt(i.analysis.retried.length);
  }
  if (i.harness) {
    activityAttrs["empiric:harness_calls"] = BigInt(i.harness.calls);
    activityAttrs["empiric:harness_overhead_median_ms"] = i.harness.median_ms;
    activityAttrs["empiric:harness_overhead_max_ms"] = i.harness.max_ms;
  }
  const associations: JsonObject = {
    "_:assoc/substrate": {
      "prov:activity": run,
      "prov:agent": substrate,
      ...(i.baseline ? { "prov:hadRole": "empiric:candidate" } : {}),
    },
    "_:assoc/empiric": { "prov:activity": run, "prov:agent": software },
  };
  const agents: JsonObject = {};
  if (i.baseline) {
    // The baseline's observations: measured by this run (a baseline substrate, interleaved) or
    // taken from a stored proof (derived from that proof's result).
    const b = i.baseline;
    const id = `empiric:dataset/${encodeURIComponent(b.dataset.name)}`;
    entity[id] = {
      "prov:type": { "$": "empiric:Dataset", "type": "prov:QUALIFIED_NAME" },
      "prov:label": b.dataset.name,
      "empiric:kind": "baseline",
      "empiric:content_hash": b.dataset.content_hash,
      "empiric:n_records": b.dataset.n_records,
      "prov:location": b.dataset.source,
      "empiric:paired": b.paired,
    };
    derived[`_:derived/${b.dataset.name}`] = {
      "prov:generatedEntity": result,
      "prov:usedEntity": id,
    };
    if (b.source.kind === "substrate") {
      const agent = `empiric:baseline-substrate/${encodeURIComponent(b.source.name)}`;
      agents[agent] = {
        "prov:type": { "$": "prov:SoftwareAgent", "type": "prov:QUALIFIED_NAME" },
        "prov:label": b.source.name,
        "empiric:git_commit": b.source.commit,
        "empiric:spec": b.source.spec,
        "empiric:role": "baseline",
      };
      associations["_:assoc/baseline-substrate"] = {
        "prov:activity": run,
        "prov:agent": agent,
        "prov:hadRole": "empiric:baseline",
      };
      generated[`_:generated/${b.dataset.name}`] = {
        "prov:entity": id,
        "prov:activity": run,
        "prov:time": i.endedAt,
      };
      if (i.scenario) {
        activityAttrs["empiric:interleaved"] = true;
        activityAttrs["empiric:interleave_seed"] = BigInt(interleaveSeed(i.scenario.analysis.seed));
      }
    } else {
      used[`_:used/${b.dataset.name}`] = {
        "prov:activity": run,
        "prov:entity": id,
        "prov:time": i.startedAt,
      };
      const proofNode = b.source.entity ?? `empiric:proof/${b.source.proofId}`;
      derived[`_:baseline/${b.source.proofId}`] = {
        "prov:generatedEntity": id,
        "prov:usedEntity": proofNode,
      };
      entity[id] = {
        ...(entity[id] as JsonObject),
        "empiric:baseline_proof_id": b.source.proofId,
        "empiric:baseline_substrate_name": b.source.substrateName,
        "empiric:baseline_substrate_git_commit": b.source.substrateCommit,
      };
    }
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
    activity: { [run]: activityAttrs },
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
      ...agents,
    },
    used,
    wasGeneratedBy: generated,
    wasAssociatedWith: associations,
    wasAttributedTo: { "_:attributed": { "prov:entity": result, "prov:agent": software } },
    wasDerivedFrom: derived,
  };
}
