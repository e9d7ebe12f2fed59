/**
 * Builders of OpenLineage 2.0 RunEvents: one terminal event for a signed record, and the
 * START / RUNNING / COMPLETE / FAIL events of a running scenario. Pure functions: no I/O.
 *
 * Events are typed JSON values: ints are `PyInt`, floats are `number`. Write them with
 * {@link openLineageEventJson} (the canonical writer keeps `50.0` a float); `JSON.stringify`
 * works too.
 *
 * @module
 */
import { PROOF_RECORD_SCHEMA } from "../../schema/validate.ts";
import { v5 as uuidv5, v7 as uuidv7 } from "uuid";
import { UsageError } from "../../errors/errors.ts";
import { canonicalize } from "../../json/canonical.ts";
import type { JsonObject, JsonValue, PyInt } from "../../json/value.ts";
import type { Claim, ProofRecord } from "../../record/types.ts";
import { EMPIRIC_VERSION } from "../../version.ts";
import { loadProof, type ProofInput, scenarioNameOf, withPyInts } from "../common.ts";

/** `schemaURL` of every event: the RunEvent definition of the OpenLineage 2-0-2 spec. */
export const OPENLINEAGE_SCHEMA_URL =
  "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";
/** Base of the `producer` URI; the producer is this base, `/`, and empiric's version. */
export const OPENLINEAGE_PRODUCER_URL_BASE = "https://empiric.dev/empiric";
/** The producer URI of this build. */
export const OPENLINEAGE_PRODUCER = `${OPENLINEAGE_PRODUCER_URL_BASE}/${EMPIRIC_VERSION}`;
/** Default `job.namespace`. */
export const DEFAULT_NAMESPACE = "empiric";
/** Namespace of the output dataset (the proof record). */
export const PROOFS_NAMESPACE = "empiric.proofs";
/**
 * The pinned namespace UUID under which a proof's runId is derived:
 * `runId = UUIDv5(PROOFSVC_RUNID_NAMESPACE, proof_id)`. It is itself
 * `UUIDv5(URL namespace, "https://empiric.dev/openlineage/run-id")`. Never change it: the same
 * proof must give the same runId on every machine.
 */
export const PROOFSVC_RUNID_NAMESPACE = "aff98ba7-4f0e-53df-ba76-8b46e591708c";
/** Base URL of the `_schemaURL` of empiric's custom facets (versioned, immutable). */
export const EMPIRIC_FACETS_SCHEMA_BASE = "https://empiric.dev/spec/openlineage/facets/1-0-0/";

const OL_FACETS = "https://openlineage.io/spec/facets/";

/** `_schemaURL` of every facet empiric writes, by facet key. */
export const FACET_SCHEMA_URLS = {
  empiric_claim:
    `${EMPIRIC_FACETS_SCHEMA_BASE}EmpiricClaimRunFacet.json#/$defs/EmpiricClaimRunFacet`,
  empiric_verdict:
    `${EMPIRIC_FACETS_SCHEMA_BASE}EmpiricVerdictRunFacet.json#/$defs/EmpiricVerdictRunFacet`,
  empiric_progress:
    `${EMPIRIC_FACETS_SCHEMA_BASE}EmpiricProgressRunFacet.json#/$defs/EmpiricProgressRunFacet`,
  empiric_error:
    `${EMPIRIC_FACETS_SCHEMA_BASE}EmpiricErrorRunFacet.json#/$defs/EmpiricErrorRunFacet`,
  empiric_dataset:
    `${EMPIRIC_FACETS_SCHEMA_BASE}EmpiricDatasetDatasetFacet.json#/$defs/EmpiricDatasetDatasetFacet`,
  dataSource: `${OL_FACETS}1-0-1/DatasourceDatasetFacet.json#/$defs/DatasourceDatasetFacet`,
  schema: `${OL_FACETS}1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet`,
  errorMessage: `${OL_FACETS}1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet`,
  jobType: `${OL_FACETS}2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet`,
} as const;

/** OpenLineage event types. */
export type EventType = "START" | "RUNNING" | "COMPLETE" | "ABORT" | "FAIL" | "OTHER";

/** An OpenLineage RunEvent (a typed JSON object). */
export type OpenLineageEvent = JsonObject & {
  eventType: EventType;
  eventTime: string;
  producer: string;
  schemaURL: string;
  run: JsonObject & { runId: string };
  job: JsonObject & { namespace: string; name: string };
};

/** Options shared by the event builders. */
export interface EventOptions {
  /** `job.namespace` (default {@link DEFAULT_NAMESPACE}). */
  namespace?: string;
  /** `eventTime` (RFC 3339); default: now, or `created_at` for {@link toOpenLineageEvent}. */
  eventTime?: string;
  /** `producer` (default {@link OPENLINEAGE_PRODUCER}). */
  producer?: string;
}

/** A dataset as the lifecycle events describe it (hash and size once they are known). */
export interface LineageDataset {
  name: string;
  source: string;
  kind: string;
  content_hash?: string;
  n_records?: number | bigint;
}

/** Progress of a running scenario (`percent_complete`, `cycles_completed`, ...). */
export interface LineageProgress {
  /** Fraction of the current phase done, 0 to 1. */
  percent_complete: number;
  cycles_completed: number;
  cycles_total: number;
  message: string;
  phase?: string;
  failures?: number;
}

function facet(
  key: keyof typeof FACET_SCHEMA_URLS,
  producer: string,
  body: JsonObject,
): JsonObject {
  return { _producer: producer, _schemaURL: FACET_SCHEMA_URLS[key], ...body };
}

function nowIso(): string {
  return new Date().toISOString();
}

function ns(options: EventOptions): string {
  const n = options.namespace ?? DEFAULT_NAMESPACE;
  if (typeof n !== "string" || n === "") {
    throw new UsageError("namespace must be a non-empty string");
  }
  return n;
}

/** What every event has: its type, run, job and run facets. */
interface BaseEventParts {
  eventType: EventType;
  runId: string;
  jobName: string;
  options: EventOptions;
  runFacets: JsonObject;
}

function baseEvent(
  { eventType, runId, jobName, options, runFacets }: BaseEventParts,
): OpenLineageEvent {
  if (typeof jobName !== "string" || jobName === "") {
    throw new UsageError("the job name must be a non-empty string");
  }
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  return {
    eventType,
    eventTime: options.eventTime ?? nowIso(),
    producer,
    schemaURL: OPENLINEAGE_SCHEMA_URL,
    run: { runId, facets: runFacets },
    job: {
      namespace: ns(options),
      name: jobName,
      facets: {
        jobType: facet("jobType", producer, {
          processingType: "BATCH",
          integration: "EMPIRIC",
          jobType: "SCENARIO",
        }),
      },
    },
  };
}

/**
 * A fresh run id for a lifecycle (`new_run_id`): a UUIDv7, as OpenLineage recommends
 * (time-ordered).
 */
export function newRunId(): string {
  return uuidv7();
}

/**
 * The runId of a proof: `UUIDv5(PROOFSVC_RUNID_NAMESPACE, proof_id)`, the same on every
 * machine.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { proofRunId } from "./builders.ts";
 * equal(proofRunId("0".repeat(64)), proofRunId("0".repeat(64)));
 * equal(proofRunId("0".repeat(64)).length, 36);
 * ```
 */
export function proofRunId(proofId: string): string {
  return uuidv5(proofId, PROOFSVC_RUNID_NAMESPACE);
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

/**
 * The OpenLineage name of a dataset source: `scheme://host` and path for URLs, `file` and the
 * path for files, `empiric.builtin` and the path for built-in corpora.
 */
export function datasetName(source: string): { namespace: string; name: string } {
  const m = /^(https?):\/\/([^/?#]+)([^#]*)/i.exec(source);
  if (m) return { namespace: `${m[1].toLowerCase()}://${m[2]}`, name: m[3] || "/" };
  if (source.startsWith("builtin:")) {
    return { namespace: "empiric.builtin", name: source.slice("builtin:".length) };
  }
  if (source.startsWith("file://")) return { namespace: "file", name: source.slice(7) };
  return { namespace: "file", name: source };
}

function inputDataset(d: LineageDataset, producer: string): JsonObject {
  const { namespace, name } = datasetName(d.source);
  const dataSource: JsonObject = { name: d.name };
  if (URI.test(d.source)) dataSource.uri = d.source;
  const ds: JsonObject = { kind: d.kind, source: d.source };
  if (d.content_hash !== undefined) ds.content_hash = d.content_hash;
  if (d.n_records !== undefined) ds.n_records = BigInt(d.n_records);
  return {
    namespace,
    name,
    facets: {
      dataSource: facet("dataSource", producer, dataSource),
      empiric_dataset: facet("empiric_dataset", producer, ds),
    },
  };
}

type SchemaNode = {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: SchemaNode;
};

function resolveRef(node: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  const def =
    (PROOF_RECORD_SCHEMA.$defs as Record<string, SchemaNode>)[node.$ref.replace("#/$defs/", "")];
  return { ...resolveRef(def), description: node.description ?? def.description };
}

/** OpenLineage schema-facet fields of the properties of a JSON Schema object, in order. */
function fieldsOf(properties: Record<string, SchemaNode>): JsonObject[] {
  return Object.entries(properties).map(([name, raw], i) => {
    const node = resolveRef(raw);
    const items = node.items ? resolveRef(node.items) : undefined;
    const type = node.format === "date-time"
      ? "timestamp"
      : node.type === "object" && !node.properties && node.additionalProperties
      ? "map"
      : node.type ?? "string";
    const f: JsonObject = { name, type };
    if (node.description) f.description = node.description;
    const nested = node.properties ?? items?.properties;
    if (nested) f.fields = fieldsOf(nested);
    f.ordinal_position = BigInt(i + 1);
    return f;
  });
}

/**
 * The `schema` facet fields of a proof record: its nine sections and their members, derived
 * from the record's JSON Schema (src/schema/proof-record.schema.json), so they cannot drift.
 */
export const PROOF_RECORD_SCHEMA_FIELDS: JsonObject[] = fieldsOf(
  PROOF_RECORD_SCHEMA.properties as unknown as Record<string, SchemaNode>,
);

function claimFacet(
  producer: string,
  claim: Claim | ScenarioClaim,
  extra: { scenario?: string; analysis_plan?: string; config_hash?: string; data_hash?: string },
): JsonObject {
  const body: JsonObject = {
    statement: claim.statement,
    operationalization: claim.operationalization,
    threshold: { ...claim.threshold } as JsonObject,
    h0: claim.h0,
    h1: claim.h1,
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) body[k] = v;
  return facet("empiric_claim", producer, body);
}

function verdictFacet(producer: string, record: ProofRecord): JsonObject {
  return facet("empiric_verdict", producer, {
    proof_id: record.identity.proof_id,
    outcome: record.verdict.outcome,
    observed_value: record.verdict.observed_value,
    threshold: { ...record.verdict.threshold } as JsonObject,
    reasoning: record.verdict.reasoning,
    signature: record.signature.signature,
    schema_version: record.identity.schema_version,
    created_at: record.identity.created_at,
  });
}

function proofEventParts(record: ProofRecord, producer: string) {
  return {
    inputs: record.data.datasets.map((d) => inputDataset(d, producer)),
    outputs: [{
      namespace: PROOFS_NAMESPACE,
      name: record.identity.proof_id,
      facets: { schema: facet("schema", producer, { fields: PROOF_RECORD_SCHEMA_FIELDS }) },
    }],
    runFacets: {
      empiric_claim: claimFacet(producer, record.claim, {
        scenario: scenarioNameOf(record),
        analysis_plan: record.pre_registration.analysis_plan,
        config_hash: record.pre_registration.config_hash,
        data_hash: record.pre_registration.data_hash,
      }),
      empiric_verdict: verdictFacet(producer, record),
    },
  };
}

/** Options of {@link toOpenLineageEvent}. */
export interface ProofEventOptions extends EventOptions {
  /** `job.name` (default: the `pillar` of the first evidence entry). */
  jobName?: string;
}

/**
 * One terminal RunEvent for a signed record (`to_openlineage_event`, the single-event path): VALIDATED and REFUTED give COMPLETE, INCONCLUSIVE gives FAIL.
 *
 * - `run.runId` = {@link proofRunId}(proof_id); `eventTime` = `created_at` unless given, so the
 *   same proof always gives the same event;
 * - `job`: namespace (default `empiric`), name (default the first evidence pillar);
 * - `inputs`: one per dataset, facets `dataSource` and `empiric_dataset`;
 * - `outputs`: one, namespace `empiric.proofs`, name the proof_id, a `schema` facet;
 * - run facets `empiric_claim` and `empiric_verdict` (with the section 9 signature).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { toOpenLineageEvent } from "./builders.ts";
 * const text = await Deno.readTextFile(new URL("../../../fixtures/records/valid.json", import.meta.url));
 * const ev = await toOpenLineageEvent(text);
 * equal(ev.eventType, "COMPLETE");
 * equal(ev.job.name, "latency.p95");
 * ```
 */
export async function toOpenLineageEvent(
  proof: ProofInput,
  options: ProofEventOptions = {},
): Promise<OpenLineageEvent> {
  const { record } = await loadProof(proof);
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const parts = proofEventParts(record, producer);
  const eventType: EventType = record.verdict.outcome === "INCONCLUSIVE" ? "FAIL" : "COMPLETE";
  const ev = baseEvent({
    eventType,
    runId: proofRunId(record.identity.proof_id),
    jobName: options.jobName ?? record.evidence[0]?.pillar ?? scenarioNameOf(record),
    options: { ...options, producer, eventTime: options.eventTime ?? record.identity.created_at },
    runFacets: parts.runFacets,
  });
  return withPyInts({ ...ev, inputs: parts.inputs, outputs: parts.outputs }) as OpenLineageEvent;
}

/** A scenario's claim as the START event carries it (the record's claim section). */
export interface ScenarioClaim {
  statement: string;
  operationalization: string;
  threshold: { metric: string; comparator: string; value: number | bigint | PyInt; units: string };
  h0: string;
  h1: string;
}

/** What {@link toOpenLineageStartEvent} describes. */
export interface StartEventInput extends EventOptions {
  runId: string;
  /** The scenario's name: the job name. */
  scenario: string;
  claim: ScenarioClaim;
  datasets: readonly LineageDataset[];
  analysisPlan: string;
}

/**
 * The START event of a run (`to_openlineage_start_event`), sent before measurement begins:
 * job name = the scenario, inputs = its datasets, run facet `empiric_claim` with the claim and
 * the analysis plan.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { toOpenLineageStartEvent } from "./builders.ts";
 * const claim = { statement: "s", operationalization: "o", h0: "h0", h1: "h1",
 *   threshold: { metric: "latency.p95", comparator: "<=", value: 50, units: "ms" } };
 * const ev = toOpenLineageStartEvent({ runId: "r", scenario: "echo", claim, datasets: [], analysisPlan: "plan" });
 * equal(ev.eventType, "START");
 * equal(ev.job.name, "echo");
 * ```
 */
export function toOpenLineageStartEvent(input: StartEventInput): OpenLineageEvent {
  const { runId, scenario, claim, datasets, analysisPlan, ...options } = input;
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const ev = baseEvent({
    eventType: "START",
    runId,
    jobName: scenario,
    options: { ...options, producer },
    runFacets: {
      empiric_claim: claimFacet(producer, claim, { scenario, analysis_plan: analysisPlan }),
    },
  });
  return withPyInts({
    ...ev,
    inputs: datasets.map((d) => inputDataset(d, producer)),
  }) as OpenLineageEvent;
}

/** What {@link toOpenLineageRunningEvent} describes. */
export interface RunningEventInput extends EventOptions {
  runId: string;
  scenario: string;
  progress: LineageProgress;
}

/**
 * A RUNNING heartbeat (`to_openlineage_running_event`) with the `empiric_progress` facet.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { toOpenLineageRunningEvent } from "./builders.ts";
 * const progress = { percent_complete: 0.5, cycles_completed: 5, cycles_total: 10, message: "half" };
 * const ev = toOpenLineageRunningEvent({ runId: "r", scenario: "echo", progress });
 * equal(ev.eventType, "RUNNING");
 * ```
 */
export function toOpenLineageRunningEvent(input: RunningEventInput): OpenLineageEvent {
  const { runId, scenario, progress, ...options } = input;
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const pct = Math.min(1, Math.max(0, Number(progress.percent_complete)));
  const body: JsonObject = {
    percent_complete: Number.isFinite(pct) ? pct : 0,
    cycles_completed: BigInt(Math.max(0, Math.trunc(progress.cycles_completed))),
    cycles_total: BigInt(Math.max(0, Math.trunc(progress.cycles_total))),
    message: progress.message,
  };
  if (progress.phase !== undefined) body.phase = progress.phase;
  if (progress.failures !== undefined) body.failures = BigInt(Math.max(0, progress.failures));
  const ev = baseEvent({
    eventType: "RUNNING",
    runId,
    jobName: scenario,
    options: { ...options, producer },
    runFacets: { empiric_progress: facet("empiric_progress", producer, body) },
  });
  return withPyInts(ev) as OpenLineageEvent;
}

/** What {@link toOpenLineageCompleteEvent} describes. */
export interface CompleteEventInput extends EventOptions {
  runId: string;
  /** The signed record (text, bytes or parsed). */
  proof: ProofInput;
  /** `job.name`; default: the scenario named in the record's reproduction command. */
  jobName?: string;
}

/**
 * The COMPLETE event of a run that produced a signed proof (`to_openlineage_complete_event`),
 * whatever its verdict: inputs, the proof as output, `empiric_claim` and `empiric_verdict`.
 * The job name defaults to the scenario (as in START), read from the record's reproduction
 * command.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { toOpenLineageCompleteEvent } from "./builders.ts";
 * const proof = await Deno.readTextFile(new URL("../../../fixtures/records/valid.json", import.meta.url));
 * const ev = await toOpenLineageCompleteEvent({ runId: "r", proof });
 * equal(ev.eventType, "COMPLETE");
 * ```
 */
export async function toOpenLineageCompleteEvent(
  input: CompleteEventInput,
): Promise<OpenLineageEvent> {
  const { runId, proof, jobName, ...options } = input;
  const { record } = await loadProof(proof);
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const parts = proofEventParts(record, producer);
  const ev = baseEvent({
    eventType: "COMPLETE",
    runId,
    jobName: jobName ?? scenarioNameOf(record),
    options: { ...options, producer },
    runFacets: parts.runFacets,
  });
  return withPyInts({ ...ev, inputs: parts.inputs, outputs: parts.outputs }) as OpenLineageEvent;
}

/** What {@link toOpenLineageFailEvent} describes. */
export interface FailEventInput extends EventOptions {
  runId: string;
  scenario: string;
  errorMessage: string;
  /** The error's stable code (`substrate_unavailable`, ...). */
  errorType: string;
}

/**
 * The FAIL event of a run that crashed before producing a proof (`to_openlineage_fail_event`):
 * run facets `empiric_error` and the standard `errorMessage`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { toOpenLineageFailEvent } from "./builders.ts";
 * const ev = toOpenLineageFailEvent({ runId: "r", scenario: "echo", errorMessage: "down", errorType: "substrate_unavailable" });
 * equal(ev.eventType, "FAIL");
 * ```
 */
export function toOpenLineageFailEvent(input: FailEventInput): OpenLineageEvent {
  const { runId, scenario, errorMessage, errorType, ...options } = input;
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const ev = baseEvent({
    eventType: "FAIL",
    runId,
    jobName: scenario,
    options: { ...options, producer },
    runFacets: {
      empiric_error: facet("empiric_error", producer, {
        error_message: errorMessage,
        error_type: errorType,
      }),
      errorMessage: facet("errorMessage", producer, {
        message: errorMessage,
        programmingLanguage: "TypeScript",
      }),
    },
  });
  return withPyInts(ev) as OpenLineageEvent;
}

/** The JSON text of an event (canonical form: compact, keys sorted, floats kept as floats). */
export function openLineageEventJson(event: OpenLineageEvent): string {
  return canonicalize(event as JsonValue);
}
