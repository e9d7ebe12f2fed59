/**
 * OpenLineage 2.0 RunEvents of proof records and of running scenarios (SPEC "OpenLineage 2.0
 * RunEvent mapping" and "Run lifecycle"), and posting them to a lineage collector.
 *
 * Events are typed JSON values: ints are `PyInt`, floats are `number`. Write them with
 * {@link openLineageEventJson} (the canonical writer keeps `50.0` a float); `JSON.stringify`
 * works too.
 *
 * @module
 */
import { tracedFetch } from "../telemetry/http.ts";
import { PROOF_RECORD_SCHEMA } from "../schema/validate.ts";
import { v5 as uuidv5, v7 as uuidv7 } from "uuid";
import { asEmpiricError, IoError, UsageError } from "../errors/errors.ts";
import { canonicalize } from "../json/canonical.ts";
import type { JsonObject, JsonValue, PyInt } from "../json/value.ts";
import type { Claim, ProofRecord } from "../record/types.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { loadProof, type ProofInput, scenarioNameOf, withPyInts } from "./common.ts";

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

/** Progress of a running scenario (SPEC: `percent_complete`, `cycles_completed`, ...). */
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

function baseEvent(
  eventType: EventType,
  runId: string,
  jobName: string,
  options: EventOptions,
  runFacets: JsonObject,
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
 * A fresh run id for a lifecycle (SPEC `new_run_id()`): a UUIDv7, as OpenLineage recommends
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
 * import { proofRunId } from "./openlineage.ts";
 * console.assert(proofRunId("0".repeat(64)) === proofRunId("0".repeat(64)));
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
 * One terminal RunEvent for a signed record (SPEC `to_openlineage_event(proof, job_name=)`,
 * the single-event path): VALIDATED and REFUTED give COMPLETE, INCONCLUSIVE gives FAIL.
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
 * import { toOpenLineageEvent } from "./openlineage.ts";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const ev = await toOpenLineageEvent(text);
 * console.assert(ev.eventType === "COMPLETE" && ev.job.name === "latency.p95");
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
  const ev = baseEvent(
    eventType,
    proofRunId(record.identity.proof_id),
    options.jobName ?? record.evidence[0]?.pillar ?? scenarioNameOf(record),
    { ...options, producer, eventTime: options.eventTime ?? record.identity.created_at },
    parts.runFacets,
  );
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

/**
 * The START event of a run (SPEC `to_openlineage_start_event(run_id, scenario_name, claim,
 * datasets, analysis_plan)`), sent before measurement begins: job name = the scenario, inputs
 * = its datasets, run facet `empiric_claim` with the claim and the analysis plan.
 */
export function toOpenLineageStartEvent(
  runId: string,
  scenarioName: string,
  claim: ScenarioClaim,
  datasets: readonly LineageDataset[],
  analysisPlan: string,
  options: EventOptions = {},
): OpenLineageEvent {
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const ev = baseEvent("START", runId, scenarioName, { ...options, producer }, {
    empiric_claim: claimFacet(producer, claim, {
      scenario: scenarioName,
      analysis_plan: analysisPlan,
    }),
  });
  return withPyInts({
    ...ev,
    inputs: datasets.map((d) => inputDataset(d, producer)),
  }) as OpenLineageEvent;
}

/**
 * A RUNNING heartbeat (SPEC `to_openlineage_running_event(run_id, scenario_name, progress)`)
 * with the `empiric_progress` facet.
 */
export function toOpenLineageRunningEvent(
  runId: string,
  scenarioName: string,
  progress: LineageProgress,
  options: EventOptions = {},
): OpenLineageEvent {
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
  const ev = baseEvent("RUNNING", runId, scenarioName, { ...options, producer }, {
    empiric_progress: facet("empiric_progress", producer, body),
  });
  return withPyInts(ev) as OpenLineageEvent;
}

/** Options of {@link toOpenLineageCompleteEvent}. */
export interface CompleteEventOptions extends EventOptions {
  /** `job.name`; default: the scenario named in the record's reproduction command. */
  jobName?: string;
}

/**
 * The COMPLETE event of a run that produced a signed proof (SPEC
 * `to_openlineage_complete_event(run_id, proof)`), whatever its verdict: inputs, the proof as
 * output, `empiric_claim` and `empiric_verdict`. The job name defaults to the scenario (as in
 * START), read from the record's reproduction command.
 */
export async function toOpenLineageCompleteEvent(
  runId: string,
  proof: ProofInput,
  options: CompleteEventOptions = {},
): Promise<OpenLineageEvent> {
  const { record } = await loadProof(proof);
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const parts = proofEventParts(record, producer);
  const ev = baseEvent(
    "COMPLETE",
    runId,
    options.jobName ?? scenarioNameOf(record),
    { ...options, producer },
    parts.runFacets,
  );
  return withPyInts({ ...ev, inputs: parts.inputs, outputs: parts.outputs }) as OpenLineageEvent;
}

/**
 * The FAIL event of a run that crashed before producing a proof (SPEC
 * `to_openlineage_fail_event(run_id, scenario_name, error_message, error_type)`): run facets
 * `empiric_error` and the standard `errorMessage`.
 */
export function toOpenLineageFailEvent(
  runId: string,
  scenarioName: string,
  errorMessage: string,
  errorType: string,
  options: EventOptions = {},
): OpenLineageEvent {
  const producer = options.producer ?? OPENLINEAGE_PRODUCER;
  const ev = baseEvent("FAIL", runId, scenarioName, { ...options, producer }, {
    empiric_error: facet("empiric_error", producer, {
      error_message: errorMessage,
      error_type: errorType,
    }),
    errorMessage: facet("errorMessage", producer, {
      message: errorMessage,
      programmingLanguage: "TypeScript",
    }),
  });
  return withPyInts(ev) as OpenLineageEvent;
}

/** The JSON text of an event (canonical form: compact, keys sorted, floats kept as floats). */
export function openLineageEventJson(event: OpenLineageEvent): string {
  return canonicalize(event as JsonValue);
}

/** Options of {@link postOpenLineageEvent}. */
export interface LineagePostOptions {
  fetch?: typeof fetch;
  /** Sent as `Authorization: Bearer <apiKey>` (as the OpenLineage clients do). */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Give up after this many milliseconds (default 10 000). */
  timeoutMs?: number;
}

/**
 * POST one event as JSON to a collector (for Marquez: `http://host:5000/api/v1/lineage`; the
 * URL is used as given). Resolves with the status; non-2xx or no answer is an `io_error`.
 * The request is made in an OpenTelemetry CLIENT span whose W3C `traceparent` it carries
 * (docs/telemetry.md).
 */
export async function postOpenLineageEvent(
  url: string,
  event: OpenLineageEvent,
  options: LineagePostOptions = {},
): Promise<number> {
  let res: Response;
  try {
    res = await tracedFetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      body: openLineageEventJson(event),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    }, {
      fetch: options.fetch,
      attributes: {
        "openlineage.event_type": event.eventType,
        "openlineage.run_id": event.run.runId,
      },
    });
  } catch (e) {
    throw new IoError(
      "io_error",
      `cannot POST the OpenLineage ${event.eventType} event to ${url}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  await res.body?.cancel();
  if (!res.ok) {
    throw new IoError(
      "io_error",
      `the lineage collector ${url} answered ${res.status} to the ${event.eventType} event`,
    );
  }
  return res.status;
}

// ---------------------------------------------------------------------------------------------
// The lifecycle of one run, posted as it goes.

/** What a run knows before measurement begins (what `runScenarioOp` passes to `onStart`). */
export interface LineageRunStart {
  scenario: string;
  claim: ScenarioClaim;
  datasets: readonly LineageDataset[];
  analysis_plan: string;
}

/** Progress as the run pipeline reports it. */
export interface RunProgressLike {
  phase: string;
  done: number;
  total: number;
  failures: number;
}

/** Options of {@link OpenLineageRunEmitter}. */
export interface EmitterOptions extends LineagePostOptions {
  namespace?: string;
  /** Minimum time between RUNNING heartbeats within a phase (default 5000 ms). */
  heartbeatMs?: number;
  /** Called when a POST fails; the run goes on (default: ignore). */
  onError?: (error: Error) => void;
  /** Clock for heartbeats (default `performance.now`). */
  monotonic?: () => number;
}

/**
 * Posts one run's lifecycle to a collector as the run goes: {@link start} (START), then
 * {@link progress} (RUNNING heartbeats: one when a phase begins, then at most one per
 * `heartbeatMs`), then {@link complete} (COMPLETE with the proof) or {@link fail} (FAIL with
 * `empiric_error`). Events are posted in order, one at a time; a failed POST is reported to
 * `onError` and does not stop the run.
 */
export class OpenLineageRunEmitter {
  /** The run id, minted once with {@link newRunId}. */
  readonly runId: string = newRunId();
  #url: string;
  #options: EmitterOptions;
  #queue: Promise<void> = Promise.resolve();
  #scenario: string | undefined;
  #phase: string | undefined;
  #lastBeat = -Infinity;
  #ended = false;

  constructor(url: string, options: EmitterOptions = {}) {
    this.#url = url;
    this.#options = options;
  }

  /** The scenario name once START was sent (undefined before). */
  get scenario(): string | undefined {
    return this.#scenario;
  }

  /** True once START was queued. */
  get started(): boolean {
    return this.#scenario !== undefined;
  }

  #post(event: OpenLineageEvent): Promise<void> {
    this.#queue = this.#queue.then(async () => {
      try {
        await postOpenLineageEvent(this.#url, event, this.#options);
      } catch (e) {
        this.#options.onError?.(asEmpiricError(e));
      }
    });
    return this.#queue;
  }

  /** Send START (before measurement begins). */
  start(info: LineageRunStart): Promise<void> {
    this.#scenario = info.scenario;
    return this.#post(
      toOpenLineageStartEvent(
        this.runId,
        info.scenario,
        info.claim,
        info.datasets,
        info.analysis_plan,
        { namespace: this.#options.namespace },
      ),
    );
  }

  /** Report progress; sends a RUNNING heartbeat when one is due. Never blocks the run. */
  progress(p: RunProgressLike): void {
    if (!this.#scenario || this.#ended || p.phase === "done") return;
    const now = (this.#options.monotonic ?? (() => performance.now()))();
    const newPhase = p.phase !== this.#phase;
    if (!newPhase && now - this.#lastBeat < (this.#options.heartbeatMs ?? 5000)) return;
    this.#phase = p.phase;
    this.#lastBeat = now;
    const total = Math.max(0, p.total);
    void this.#post(
      toOpenLineageRunningEvent(this.runId, this.#scenario, {
        percent_complete: total > 0 ? p.done / total : 0,
        cycles_completed: p.done,
        cycles_total: total,
        message: `${p.phase}: ${p.done} of ${total}${
          p.failures > 0 ? ` (${p.failures} failed)` : ""
        }`,
        phase: p.phase,
        failures: p.failures,
      }, { namespace: this.#options.namespace }),
    );
  }

  /** Send COMPLETE with the signed proof and wait until every event was posted. */
  async complete(proof: ProofInput): Promise<void> {
    if (this.#ended) return await this.#queue;
    this.#ended = true;
    const ev = await toOpenLineageCompleteEvent(this.runId, proof, {
      namespace: this.#options.namespace,
      jobName: this.#scenario,
    });
    await this.#post(ev);
  }

  /** Send FAIL with `empiric_error` (the error's stable code and message) and wait. */
  async fail(error: unknown): Promise<void> {
    if (this.#ended || !this.#scenario) return await this.#queue;
    this.#ended = true;
    const err = asEmpiricError(error);
    await this.#post(
      toOpenLineageFailEvent(this.runId, this.#scenario, err.message, err.code, {
        namespace: this.#options.namespace,
      }),
    );
  }

  /** Wait until every queued event was posted. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
