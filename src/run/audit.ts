/**
 * `empiric audit`: re-check a proof from its bundle. The record's hashes must seal the
 * observations and the scenario given beside it; then every evidence entry, the verdict and the
 * pillar entities of the provenance are recomputed from the observations under the
 * pre-registered plan, by the same code the run used (`analyze`, `pillarEntities`), and every
 * difference is reported with its JSON pointer in the record.
 *
 * A comparative record (`analysis.comparison`) lists a third part, the baseline's observations
 * (dataset `baseline`, `<record>.baseline.observations.jsonl`): it must hash to that dataset's
 * `content_hash`, and both sides are recomputed by the same `analyze(…)` call the run made,
 * paired as the record says (`empiric:paired` of the baseline dataset entity).
 *
 * @module
 */
import { sha256Hex } from "../crypto/hash.ts";
import { asEmpiricError, type Problem } from "../errors/errors.ts";
import { canonicalize, jsonPointer } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { type PlainJson, toPlainJson } from "../json/plain.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/value.ts";
import { type CheckStatus, verifyRecord } from "../record/verify.ts";
import { configHash, normalizeScenario } from "../scenario/load.ts";
import type { Scenario } from "../scenario/types.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import {
  type Analysis,
  analysisPlanText,
  analyze,
  type BaselineInput,
  failedAnalysis,
  thresholdOf,
} from "./analyze.ts";
import { BASELINE_DATASET } from "./baseline.ts";
import { OBSERVATIONS_DATASET, ObservationsFormatError, readObservations } from "./bundle.ts";
import type { Observation } from "./observation.ts";
import { pillarEntities } from "./provenance.ts";

/** One place where the record and the recomputation (or the bundle) disagree. */
export interface AuditDifference {
  /** JSON pointer into the record. */
  pointer: string;
  /** `bundle_mismatch` (a hash or count) or `evidence_mismatch` (a recomputed value). */
  code: "bundle_mismatch" | "evidence_mismatch";
  message: string;
  /** The record's value there (null when absent). */
  recorded: PlainJson;
  /** The recomputed value (null when it should be absent). */
  recomputed: PlainJson;
}

/** What an audit found. */
export interface AuditResult {
  /** True when every check passed and nothing differs. */
  agrees: boolean;
  proof_id: string | null;
  /** The signature was checked under a key and verifies. */
  verified: boolean;
  checks: {
    /** Parse, schema, proof_id, verdict consistency (and the signature, with a key). */
    record: CheckStatus;
    signature: CheckStatus;
    /** The observations file hashes to the record's content_hash, has n_records lines, parses. */
    observations: CheckStatus;
    /**
     * Comparative records: the baseline's observations file hashes to the `baseline` dataset's
     * content_hash, has n_records lines, parses, and pairs as recorded (skipped otherwise).
     */
    baseline: CheckStatus;
    /** The scenario's canonical form hashes to config_hash and it loads. */
    scenario: CheckStatus;
    /** Claim and analysis plan are the scenario's. */
    plan: CheckStatus;
    /** Every evidence entry recomputed. */
    evidence: CheckStatus;
    /** The verdict recomputed. */
    verdict: CheckStatus;
    /** The pillar entities (and the run's counts) recomputed. */
    provenance: CheckStatus;
  };
  /** The recomputed outcome and observed value (null when nothing could be recomputed). */
  recomputed: { outcome: string; observed_value: number; measured: number } | null;
  differences: AuditDifference[];
  /** Problems that stopped or spoiled the audit (the record's own, malformed files). */
  problems: Problem[];
  notes: string[];
}

/** Inputs of {@link auditProof}. */
export interface AuditInputs {
  /** The record file's text or bytes. */
  record: string | Uint8Array;
  /** The observations file's exact bytes. */
  observations: Uint8Array;
  /** The scenario file's bytes (the normalized scenario beside the record). */
  scenario: Uint8Array;
  /**
   * Comparative records: the baseline's observations file's exact bytes
   * (`<record>.baseline.observations.jsonl`).
   */
  baseline?: Uint8Array;
  /** Check the signature under this key too. */
  key?: Uint8Array<ArrayBuffer>;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}

const plain = (v: JsonValue | undefined): PlainJson => (v === undefined ? null : toPlainJson(v));

function describe(v: JsonValue | undefined): string {
  if (v === undefined) return "absent";
  try {
    const text = canonicalize(v);
    return text.length > 120 ? text.slice(0, 117) + "..." : text;
  } catch {
    return String(v);
  }
}

/** The record's run id: the `empiric:run/<id>` activity of its provenance. */
function runIdOf(record: JsonObject): string | undefined {
  const prov = isJsonObject(record.provenance) ? record.provenance : {};
  const activity = isJsonObject(prov.activity) ? prov.activity : {};
  const key = Object.keys(activity).find((k) => /^empiric:run\/[^/]+$/.test(k));
  return key?.slice("empiric:run/".length);
}

/** What {@link readBaseline} found. */
interface BaselinePart {
  status: CheckStatus;
  /** The baseline as the run gave it to `analyze` (undefined: none, or unreadable). */
  input?: BaselineInput;
  problems: Problem[];
  differences: AuditDifference[];
}

/**
 * Check the baseline part of a comparative record's bundle against the record's `baseline`
 * dataset, and read the pairing the run used from the provenance (`empiric:paired` of the
 * baseline dataset entity). A baseline measured in the run (a baseline substrate) is always
 * paired; a paired baseline has the candidate's item ids, in order.
 */
async function readBaseline(
  record: JsonObject,
  datasets: JsonObject[],
  scenario: Scenario,
  observations: readonly Observation[],
  bytes: Uint8Array | undefined,
): Promise<BaselinePart> {
  const problems: Problem[] = [];
  const differences: AuditDifference[] = [];
  const index = datasets.findIndex((d) => d.kind === "baseline" && d.name === BASELINE_DATASET);
  const comparative = scenario.analysis.comparison !== undefined;
  if (index < 0 && !comparative) {
    if (bytes !== undefined) {
      problems.push({
        code: "bundle_mismatch",
        message:
          "a baseline observations file was given, but the record lists no baseline dataset (it is not a comparative claim)",
        pointer: "/data/datasets",
      });
      return { status: "fail", problems, differences };
    }
    return { status: "skipped", problems, differences };
  }
  if (index < 0) {
    problems.push({
      code: "bundle_mismatch",
      message: `the scenario makes a comparative claim (analysis.comparison: ${
        scenario.analysis.comparison!.kind
      }), but the record lists no baseline dataset`,
      pointer: "/data/datasets",
    });
    return { status: "fail", problems, differences };
  }
  const ref = datasets[index];
  if (bytes === undefined) {
    problems.push({
      code: "bundle_mismatch",
      message:
        "the record compares with a baseline: its observations (<record>.baseline.observations.jsonl, or baseline_jsonl) are needed to recompute the evidence",
      pointer: `/data/datasets/${index}`,
    });
    return { status: "fail", problems, differences };
  }
  let status: CheckStatus = "pass";
  const hash = await sha256Hex(new Uint8Array(bytes));
  if (hash !== ref.content_hash) {
    status = "fail";
    differences.push({
      pointer: `/data/datasets/${index}/content_hash`,
      code: "bundle_mismatch",
      message: `the baseline observations file hashes to ${hash}, not to the recorded ${
        String(ref.content_hash)
      }: it is not the file this record seals`,
      recorded: plain(ref.content_hash),
      recomputed: hash,
    });
  }
  let baseline: Observation[];
  try {
    baseline = readObservations(bytes);
  } catch (e) {
    problems.push({
      code: "dataset_invalid",
      message: e instanceof ObservationsFormatError
        ? `baseline observations file, ${e.message}`
        : `baseline observations file: ${(e as Error).message}`,
    });
    return { status: "fail", problems, differences };
  }
  if (BigInt(baseline.length) !== ref.n_records) {
    status = "fail";
    differences.push({
      pointer: `/data/datasets/${index}/n_records`,
      code: "bundle_mismatch",
      message: `the baseline observations file has ${baseline.length} lines, the record says ${
        String(ref.n_records)
      }`,
      recorded: plain(ref.n_records),
      recomputed: plain(BigInt(baseline.length)),
    });
  }
  // The pairing the run used, as its provenance records it.
  const prov = isJsonObject(record.provenance) ? record.provenance : {};
  const entities = isJsonObject(prov.entity) ? prov.entity : {};
  const id = `empiric:dataset/${encodeURIComponent(BASELINE_DATASET)}`;
  const entity = isJsonObject(entities[id]) ? entities[id] : {};
  const recordedPaired = entity["empiric:paired"];
  const pointer = jsonPointer(["provenance", "entity", id, "empiric:paired"]);
  if (typeof recordedPaired !== "boolean") {
    problems.push({
      code: "bundle_mismatch",
      message:
        `the provenance does not record whether the sides were paired (${id} has no boolean empiric:paired), so the comparison cannot be recomputed as the run made it`,
      pointer,
    });
    return { status: "fail", problems, differences };
  }
  const sameItems = observations.length === baseline.length &&
    observations.every((o, i) => o.id === baseline[i].id);
  const measuredHere = isJsonObject(prov.agent) &&
    Object.keys(prov.agent).some((k) => k.startsWith("empiric:baseline-substrate/"));
  if (recordedPaired && !sameItems) {
    status = "fail";
    differences.push({
      pointer,
      code: "evidence_mismatch",
      message:
        "the record pairs the sides, but the baseline's item ids are not the candidate's, in order",
      recorded: true,
      recomputed: false,
    });
  } else if (!recordedPaired && measuredHere) {
    status = "fail";
    differences.push({
      pointer,
      code: "evidence_mismatch",
      message:
        "a baseline substrate measured in the same run is measured on the same items: the sides are paired",
      recorded: false,
      recomputed: true,
    });
  }
  return {
    status,
    input: { observations: baseline, paired: recordedPaired },
    problems,
    differences,
  };
}

/**
 * Audit a record against its observations and scenario. Never throws for bad input: what is
 * wrong is reported in the result.
 *
 * @example
 * ```ts ignore
 * const r = await auditProof({ record, observations, scenario });
 * if (!r.agrees) for (const d of r.differences) console.log(d.pointer, d.message);
 * ```
 */
export async function auditProof(inputs: AuditInputs): Promise<AuditResult> {
  const checks: AuditResult["checks"] = {
    record: "skipped",
    signature: "skipped",
    observations: "skipped",
    baseline: "skipped",
    scenario: "skipped",
    plan: "skipped",
    evidence: "skipped",
    verdict: "skipped",
    provenance: "skipped",
  };
  const differences: AuditDifference[] = [];
  const problems: Problem[] = [];
  const notes: string[] = [];
  const done = (recomputed: AuditResult["recomputed"], proofId: string | null, verified: boolean) =>
    ({
      agrees: problems.length === 0 && differences.length === 0 &&
        Object.values(checks).every((c) => c !== "fail"),
      proof_id: proofId,
      verified,
      checks,
      recomputed,
      differences,
      problems,
      notes,
    }) satisfies AuditResult;
  const differ = (
    code: AuditDifference["code"],
    pointer: string,
    recorded: JsonValue | undefined,
    recomputed: JsonValue | undefined,
    message?: string,
  ) =>
    differences.push({
      pointer,
      code,
      message: message ??
        `recorded ${describe(recorded)}, recomputed ${describe(recomputed)}`,
      recorded: plain(recorded),
      recomputed: plain(recomputed),
    });

  // 1. The record itself (with the key, its signature).
  const v = await verifyRecord(inputs.record, { key: inputs.key });
  checks.record = v.checks.parse === "fail" || v.checks.schema === "fail"
    ? "fail"
    : v.problems.length > 0
    ? "fail"
    : "pass";
  checks.signature = v.checks.signature;
  problems.push(...v.problems);
  notes.push(...v.notes);
  if (v.checks.parse !== "pass" || v.checks.schema !== "pass") return done(null, v.proof_id, false);
  const record = parseJson(inputs.record) as JsonObject;
  const identity = record.identity as JsonObject;
  if (identity.empiric_version !== EMPIRIC_VERSION) {
    notes.push(
      `the record was made by empiric ${
        String(identity.empiric_version)
      }, this is ${EMPIRIC_VERSION}: library versions and texts may differ`,
    );
  }

  // 2. The bundle: observations and scenario sealed by the record's hashes.
  const datasets = (record.data as JsonObject).datasets as JsonObject[];
  const index = datasets.findIndex((d) =>
    d.kind === "observations" && d.name === OBSERVATIONS_DATASET
  );
  if (index < 0) {
    checks.observations = "fail";
    problems.push({
      code: "bundle_mismatch",
      message:
        "the record lists no observations dataset (it was made before observations were kept beside records), so it cannot be audited",
      pointer: "/data/datasets",
    });
    return done(null, v.proof_id, v.verified);
  }
  const ref = datasets[index];
  const hash = await sha256Hex(new Uint8Array(inputs.observations));
  checks.observations = "pass";
  if (hash !== ref.content_hash) {
    checks.observations = "fail";
    differ(
      "bundle_mismatch",
      `/data/datasets/${index}/content_hash`,
      ref.content_hash,
      hash,
      `the observations file hashes to ${hash}, not to the recorded ${
        String(ref.content_hash)
      }: it is not the file this record seals`,
    );
  }
  let observations: Observation[];
  try {
    observations = readObservations(inputs.observations);
  } catch (e) {
    checks.observations = "fail";
    problems.push({
      code: "dataset_invalid",
      message: e instanceof ObservationsFormatError
        ? `observations file, ${e.message}`
        : `observations file: ${(e as Error).message}`,
    });
    return done(null, v.proof_id, v.verified);
  }
  if (BigInt(observations.length) !== ref.n_records) {
    checks.observations = "fail";
    differ(
      "bundle_mismatch",
      `/data/datasets/${index}/n_records`,
      ref.n_records,
      BigInt(observations.length),
      `the observations file has ${observations.length} lines, the record says ${
        String(ref.n_records)
      }`,
    );
  }

  const pre = record.pre_registration as JsonObject;
  let scenario: Scenario;
  try {
    const value = parseJson(inputs.scenario);
    scenario = normalizeScenario(value, "the scenario file", () => "");
    checks.scenario = "pass";
    const raw = await sha256Hex(new TextEncoder().encode(canonicalize(value)));
    const normalized = await configHash(scenario);
    if (raw !== pre.config_hash || normalized !== pre.config_hash) {
      checks.scenario = "fail";
      differ(
        "bundle_mismatch",
        "/pre_registration/config_hash",
        pre.config_hash,
        raw,
        raw !== pre.config_hash
          ? `the scenario's canonical form hashes to ${raw}, not to the recorded config_hash ${
            String(pre.config_hash)
          }: it is not the scenario this record registered`
          : `the scenario file is not normalized (normalized it hashes to ${normalized})`,
      );
    }
  } catch (e) {
    checks.scenario = "fail";
    const err = asEmpiricError(e);
    problems.push({
      code: err.code === "internal_error" ? "scenario_invalid" : err.code,
      message: `the scenario file: ${err.message}`,
    });
    return done(null, v.proof_id, v.verified);
  }

  // The baseline's observations of a comparative claim: the third part of the bundle.
  const base = await readBaseline(record, datasets, scenario, observations, inputs.baseline);
  checks.baseline = base.status;
  problems.push(...base.problems);
  differences.push(...base.differences);
  if (base.status === "fail" && base.input === undefined) return done(null, v.proof_id, v.verified);

  // 3. Recompute, by the code the run used.
  let analysis: Analysis;
  try {
    analysis = analyze(scenario, observations, undefined, base.input);
  } catch (e) {
    analysis = failedAnalysis(scenario, observations, e);
  }
  const recomputed = {
    outcome: analysis.outcome,
    observed_value: analysis.observed_value,
    measured: analysis.measured,
  };
  const count = differences.length;
  const compare = (pointer: string, recorded: JsonValue | undefined, value: JsonValue) => {
    if (!same(recorded, value)) differ("evidence_mismatch", pointer, recorded, value);
  };

  // Claim and plan: the record's are the scenario's.
  const claim = record.claim as JsonObject;
  compare("/claim/statement", claim.statement, scenario.claim.statement);
  compare("/claim/operationalization", claim.operationalization, scenario.claim.operationalization);
  compare("/claim/threshold", claim.threshold, thresholdOf(scenario) as unknown as JsonObject);
  compare("/claim/h0", claim.h0, scenario.claim.h0);
  compare("/claim/h1", claim.h1, scenario.claim.h1);
  compare("/pre_registration/analysis_plan", pre.analysis_plan, analysisPlanText(scenario));
  checks.plan = differences.length === count ? "pass" : "fail";

  // Evidence.
  let mark = differences.length;
  const evidence = record.evidence as JsonObject[];
  const fresh = analysis.pillars.map((p) => p.evidence);
  if (evidence.length !== fresh.length) {
    differ(
      "evidence_mismatch",
      "/evidence",
      BigInt(evidence.length),
      BigInt(fresh.length),
      `the record has ${evidence.length} evidence entries, the plan gives ${fresh.length}`,
    );
  }
  for (let i = 0; i < Math.min(evidence.length, fresh.length); i++) {
    const mine = fresh[i] as unknown as JsonObject;
    for (const key of new Set([...Object.keys(evidence[i]), ...Object.keys(mine)])) {
      compare(jsonPointer(["evidence", i, key]), evidence[i][key], mine[key]);
    }
  }
  checks.evidence = differences.length === mark ? "pass" : "fail";

  // Verdict.
  mark = differences.length;
  const verdict = record.verdict as JsonObject;
  compare("/verdict/outcome", verdict.outcome, analysis.outcome);
  compare("/verdict/observed_value", verdict.observed_value, analysis.observed_value);
  compare("/verdict/threshold", verdict.threshold, thresholdOf(scenario) as unknown as JsonObject);
  compare("/verdict/reasoning", verdict.reasoning, analysis.reasoning);
  checks.verdict = differences.length === mark ? "pass" : "fail";

  // Provenance: the pillar entities and the run's counts.
  mark = differences.length;
  const runId = runIdOf(record);
  const prov = record.provenance as JsonObject;
  const entities = isJsonObject(prov.entity) ? prov.entity : {};
  if (runId === undefined) {
    differ(
      "evidence_mismatch",
      "/provenance/activity",
      undefined,
      "empiric:run/<run id>",
      "the provenance has no empiric:run activity",
    );
  } else {
    const expected = pillarEntities(runId, scenario, analysis);
    const recordedIds = Object.keys(entities).filter((id) =>
      id.startsWith(`empiric:run/${runId}/pillar/`)
    );
    for (const id of new Set([...recordedIds, ...Object.keys(expected)])) {
      const have = entities[id];
      const want = expected[id];
      if (!isJsonObject(have) || want === undefined) {
        differ(
          "evidence_mismatch",
          jsonPointer(["provenance", "entity", id]),
          have,
          want,
          want === undefined
            ? `the plan has no pillar ${id.slice(id.lastIndexOf("/") + 1)}`
            : `the pillar entity ${id} is missing`,
        );
        continue;
      }
      for (const attr of new Set([...Object.keys(have), ...Object.keys(want)])) {
        compare(jsonPointer(["provenance", "entity", id, attr]), have[attr], want[attr]);
      }
    }
    const activity = (prov.activity as JsonObject)[`empiric:run/${runId}`] as JsonObject;
    const counts: [string, number][] = [
      ["empiric:measured", analysis.measured],
      ["empiric:failed_items", analysis.failures.length],
      ["empiric:retried_items", analysis.retried.length],
    ];
    for (const [attr, n] of counts) {
      compare(
        jsonPointer(["provenance", "activity", `empiric:run/${runId}`, attr]),
        activity[attr],
        BigInt(n),
      );
    }
  }
  checks.provenance = differences.length === mark ? "pass" : "fail";
  return done(recomputed, v.proof_id, v.verified);
}
