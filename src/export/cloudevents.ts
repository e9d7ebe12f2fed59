/**
 * CloudEvents 1.0 envelope of a proof record (SPEC "CloudEvents envelope"; `wrap` / `unwrap`),
 * built and validated with the `cloudevents` SDK, and its HTTP binding (structured and binary
 * content modes) for posting to a sink.
 *
 * The record travels as **bytes**: `data_base64` in the JSON event format, the raw body in
 * binary mode, with `datacontenttype: application/json`. The bytes are the record's canonical
 * form (wire-format rules R1–R11), so floats stay floats (`50.0`), ints stay exact, and
 * `unwrap(wrap(p))` verifies under the record's key. A JSON `data` member would not survive:
 * the SDK, like every `JSON.parse`, writes `50.0` back as `50`.
 *
 * Needs `--allow-env` (the SDK reads `CE_USE_BIG_INT`).
 *
 * @module
 */
import { CloudEvent, HTTP, ValidationError } from "cloudevents";
import { IoError, RecordError } from "../errors/errors.ts";
import { tracedFetch } from "../telemetry/http.ts";
import { canonicalBytes } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import { toPlainJson } from "../json/plain.ts";
import { isJsonObject, type JsonObject, type JsonValue, setMember } from "../json/value.ts";
import { type ProofRecord, SECTION_ORDER } from "../record/types.ts";
import {
  base64Decode,
  loadProof,
  type ProofInput,
  reproductionParts,
  requireText,
} from "./common.ts";

/** The CloudEvents `type` of a proof event (reverse-DNS, versioned). */
export const PROOF_EVENT_TYPE = "dev.empiric.proof.v1";
/** `dataschema`: the `$id` of the proof record JSON Schema the data conforms to. */
export const PROOF_EVENT_DATASCHEMA = "https://empiric.dev/schemas/proof-record/1.0/schema.json";
/** `datacontenttype` of a proof event: the data bytes are a JSON document. */
export const PROOF_EVENT_DATACONTENTTYPE = "application/json";
/** The CloudEvents spec version written. */
export const CLOUDEVENTS_SPECVERSION = "1.0";
/** Media type of the JSON event format (structured mode, files). */
export const CLOUDEVENTS_JSON_MEDIA_TYPE = "application/cloudevents+json";
/** Example stream/topic name for proof events (SPEC). */
export const PROOF_EVENT_TOPIC = "empiric.proofs";
export { DEFAULT_EVENT_SOURCE } from "./common.ts";

/**
 * Extension attributes of a proof event (lowercase alphanumeric names, at most 20 characters,
 * string values) so that routers can filter without decoding the data.
 */
export const PROOF_EVENT_EXTENSIONS = {
  /** `verdict.outcome`: VALIDATED, REFUTED or INCONCLUSIVE. */
  outcome: "empiricoutcome",
  /** `claim.threshold.metric`. */
  metric: "empiricmetric",
  /** The scenario of the run (from `reproduction.command`); absent when the command is unusual. */
  scenario: "empiricscenario",
  /** The `--substrate` of the run (from `reproduction.command`). */
  substrate: "empiricsubstrate",
  /** `identity.schema_version` of the record. */
  schemaVersion: "empiricschemaversion",
  /**
   * The record's observations file by reference: `sha256:<content_hash>` of its `observations`
   * dataset (the file beside the record, `GET /proofs/{proof_id}/observations`); absent for
   * records made before observations were kept.
   */
  observations: "empiricobservations",
} as const;

/** Options of {@link wrap}. */
export interface WrapOptions {
  /** CloudEvents `source`: a URI-reference naming the producer (e.g. `urn:empiric:ci`). */
  source: string;
  /** More extension attributes (lowercase alphanumeric names; string, boolean or int values). */
  extensions?: Record<string, string | boolean | number>;
}

/** A proof event: a CloudEvent whose data is the record's canonical bytes. */
export type ProofEvent = CloudEvent<Uint8Array>;

/**
 * Wrap a signed record in a CloudEvents 1.0 event (SPEC `wrap(proof, source=<uri>)`).
 *
 * | attribute | value |
 * | --- | --- |
 * | `specversion` | `1.0` |
 * | `type` | {@link PROOF_EVENT_TYPE} |
 * | `source` | the given URI-reference |
 * | `id` | `identity.proof_id` (the same record always gives the same event: receivers deduplicate on source + id) |
 * | `time` | `identity.created_at` (as the SDK writes it: UTC, milliseconds) |
 * | `subject` | `identity.proof_id` |
 * | `datacontenttype` | `application/json` |
 * | `dataschema` | {@link PROOF_EVENT_DATASCHEMA} |
 * | `data_base64` | the record's canonical bytes |
 * | extensions | {@link PROOF_EVENT_EXTENSIONS} |
 *
 * The record is checked first (schema and proof_id; no key needed). The SDK validates the
 * event when it is built.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unwrap, wrap } from "./cloudevents.ts";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const event = await wrap(text, { source: "urn:empiric:example" });
 * const back = unwrap(event.toString());
 * assert.equal(back.identity.proof_id, event.id);
 * ```
 */
export async function wrap(proof: ProofInput, options: WrapOptions): Promise<ProofEvent> {
  const source = requireText(options?.source, "source");
  const { record } = await loadProof(proof);
  const parts = reproductionParts(record.reproduction.command);
  const ext: Record<string, string | boolean | number> = {
    [PROOF_EVENT_EXTENSIONS.outcome]: record.verdict.outcome,
    [PROOF_EVENT_EXTENSIONS.metric]: record.claim.threshold.metric,
    [PROOF_EVENT_EXTENSIONS.schemaVersion]: record.identity.schema_version,
  };
  if (parts.scenario) ext[PROOF_EVENT_EXTENSIONS.scenario] = parts.scenario;
  if (parts.substrate) ext[PROOF_EVENT_EXTENSIONS.substrate] = parts.substrate;
  const observations = record.data.datasets.find((d) =>
    d.kind === "observations" && d.name === "observations"
  );
  if (observations) {
    ext[PROOF_EVENT_EXTENSIONS.observations] = `sha256:${observations.content_hash}`;
  }
  Object.assign(ext, options.extensions ?? {});
  try {
    return new CloudEvent<Uint8Array>({
      ...ext,
      specversion: CLOUDEVENTS_SPECVERSION,
      id: record.identity.proof_id,
      source,
      type: PROOF_EVENT_TYPE,
      time: record.identity.created_at,
      subject: record.identity.proof_id,
      datacontenttype: PROOF_EVENT_DATACONTENTTYPE,
      dataschema: PROOF_EVENT_DATASCHEMA,
      data: canonicalBytes(record as unknown as JsonValue),
    }, true);
  } catch (e) {
    throw envelopeError(e, "cannot build the CloudEvent");
  }
}

/** The JSON event format text of an event (what `application/cloudevents+json` carries). */
export function envelopeJson(event: ProofEvent): string {
  return event.toString();
}

function envelopeError(e: unknown, what: string): RecordError {
  if (e instanceof ValidationError) {
    const details = (e.errors ?? []).map((x) =>
      typeof x === "string"
        ? x
        : `${(x as { instancePath?: string }).instancePath || "/"} ${
          (x as { message?: string }).message ?? ""
        }`.trim()
    );
    return new RecordError(
      "schema_invalid",
      `${what}: ${e.message.split("\n")[0]}${details.length ? ` (${details.join("; ")})` : ""}`,
      { cause: e },
    );
  }
  if (e instanceof RecordError) return e;
  return new RecordError("schema_invalid", `${what}: ${(e as Error)?.message ?? e}`, { cause: e });
}

function isJsonMediaType(ct: string): boolean {
  const base = ct.split(";")[0].trim().toLowerCase();
  return base === "application/json" || base === "text/json" || /^[a-z0-9.+-]+\/[^;]*\+json$/
    .test(base);
}

/** Validate the context attributes of a parsed envelope with the SDK (strict mode). */
function validateAttributes(attrs: Record<string, unknown>): void {
  for (const name of ["id", "source", "specversion", "type"]) {
    if (typeof attrs[name] !== "string" || attrs[name] === "") {
      throw new RecordError(
        "schema_invalid",
        `not a CloudEvent: the required attribute ${name} is missing or not a non-empty string`,
        { pointer: `/${name}` },
      );
    }
  }
  if (attrs.specversion !== CLOUDEVENTS_SPECVERSION) {
    throw new RecordError(
      "schema_invalid",
      `unsupported CloudEvents specversion ${JSON.stringify(attrs.specversion)} (expected "1.0")`,
      { pointer: "/specversion" },
    );
  }
  try {
    new CloudEvent(attrs, true);
  } catch (e) {
    throw envelopeError(e, "not a valid CloudEvent");
  }
  if (attrs.type !== PROOF_EVENT_TYPE) {
    throw new RecordError(
      "schema_invalid",
      `not a proof event: type is ${JSON.stringify(attrs.type)}, expected ${PROOF_EVENT_TYPE}`,
      { pointer: "/type" },
    );
  }
  const ct = attrs.datacontenttype;
  if (ct !== undefined && ct !== null && !(typeof ct === "string" && isJsonMediaType(ct))) {
    throw new RecordError(
      "schema_invalid",
      `the event's datacontenttype ${JSON.stringify(ct)} is not JSON`,
      { pointer: "/datacontenttype" },
    );
  }
}

/**
 * The data bytes of an envelope in the JSON event format, after checking its attributes
 * (required attributes, spec version, the SDK's validation, `type` = {@link PROOF_EVENT_TYPE},
 * a JSON `datacontenttype`). `data_base64` gives its exact bytes; a `data` member that is a
 * JSON string gives that string's UTF-8; a `data` member that is a JSON value gives its
 * canonical form (read with the typed parser, so floats and big ints survive even then).
 */
export function unwrapBytes(envelopeText: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const value = parseJson(envelopeText);
  if (!isJsonObject(value)) {
    throw new RecordError("schema_invalid", "not a CloudEvent: the envelope is not a JSON object");
  }
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "data" || k === "data_base64") continue;
    attrs[k] = toPlainJson(v);
  }
  validateAttributes(attrs);
  const hasB64 = Object.hasOwn(value, "data_base64") && value.data_base64 !== null;
  const hasData = Object.hasOwn(value, "data") && value.data !== null;
  if (hasB64 && hasData) {
    throw new RecordError(
      "schema_invalid",
      "the envelope has both data and data_base64 (they are mutually exclusive)",
    );
  }
  if (hasB64) {
    const b = typeof value.data_base64 === "string" ? base64Decode(value.data_base64) : null;
    if (!b) {
      throw new RecordError("schema_invalid", "data_base64 is not valid base64", {
        pointer: "/data_base64",
      });
    }
    return b;
  }
  if (hasData) {
    const d = value.data;
    if (typeof d === "string") return new TextEncoder().encode(d);
    return canonicalBytes(d as JsonValue);
  }
  throw new RecordError("schema_invalid", "the event carries no data (no record inside)");
}

/**
 * Recover the record from an envelope in the JSON event format (SPEC `unwrap(envelope_text)`).
 * Returns the typed record as carried; it is not checked here: verify it with the record key
 * (`verifyRecord` / `verifyProofImpl`). Throws `schema_invalid` for an envelope that is not a
 * valid proof event, and a parse code when the data is not JSON.
 */
export function unwrap(envelopeText: string | Uint8Array): ProofRecord {
  return recordFromBytes(unwrapBytes(envelopeText));
}

// The data is canonical (keys sorted): put the sections back in file order (this changes no
// byte of the canonical form, so the signature is unaffected).
function recordFromBytes(bytes: Uint8Array): ProofRecord {
  const v = parseJson(bytes);
  if (!isJsonObject(v)) {
    throw new RecordError("schema_invalid", "the event's data is not a JSON object");
  }
  const out: JsonObject = {};
  for (const k of SECTION_ORDER) if (Object.hasOwn(v, k)) out[k] = v[k];
  for (const k of Object.keys(v)) if (!Object.hasOwn(out, k)) setMember(out, k, v[k]);
  return out as unknown as ProofRecord;
}

// ---------------------------------------------------------------------------------------------
// HTTP binding

/** HTTP content modes of the CloudEvents HTTP binding. */
export type HttpMode = "structured" | "binary";

/** An HTTP message: headers (lowercase names) and body. */
export interface HttpMessage {
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer>;
}

/**
 * A binary-mode header value (HTTP and NATS protocol bindings): space, `"`, `%` and everything
 * outside U+0021..U+007E percent-encoded as UTF-8 bytes, upper-case hex.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeHeaderValue } from "./cloudevents.ts";
 * assert.equal(encodeHeaderValue("Euro \u20ac \u{1F600}"), "Euro%20%E2%82%AC%20%F0%9F%98%80");
 * ```
 */
export function encodeHeaderValue(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    out += b > 0x20 && b < 0x7f && b !== 0x22 && b !== 0x25
      ? String.fromCharCode(b)
      : "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/**
 * Decode a binary-mode header value: first the RFC 7230 quoted-string form (older senders), then
 * one round of percent-decoding (either case of hex); bytes that are not valid UTF-8 (such as an
 * overlong encoding) throw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeHeaderValue } from "./cloudevents.ts";
 * assert.equal(decodeHeaderValue("Euro%20%e2%82%ac"), "Euro \u20ac");
 * assert.equal(decodeHeaderValue('"a \\"quoted\\" value"'), 'a "quoted" value');
 * assert.throws(() => decodeHeaderValue("%C0%A0"));
 * ```
 */
export function decodeHeaderValue(value: string): string {
  let s = value.trim();
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    s = s.slice(1, -1).replace(/\\(.)/g, "$1");
  }
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...new TextEncoder().encode(s[i]));
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
}

/**
 * The HTTP message of an event: structured mode (`content-type:
 * application/cloudevents+json; charset=utf-8`, the JSON event as body) or binary mode (the
 * record bytes as body, `content-type: application/json`, every other attribute as a `ce-`
 * header, percent-encoded as the binding requires).
 */
export function toHttpMessage(event: ProofEvent, mode: HttpMode = "structured"): HttpMessage {
  if (mode === "structured") {
    const m = HTTP.structured(event);
    return { headers: lower(m.headers), body: m.body as string };
  }
  const m = HTTP.binary(event);
  const headers = lower(m.headers);
  for (const k of Object.keys(headers)) {
    if (k.startsWith("ce-")) headers[k] = encodeHeaderValue(String(headers[k]));
  }
  const body = m.body instanceof Uint8Array ? new Uint8Array(m.body) : new Uint8Array();
  return { headers, body };
}

function lower(h: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = String(v);
  return out;
}

/**
 * Recover the record from an HTTP message in either content mode (what a sink receives).
 * Structured mode is read as {@link unwrap} reads a file; in binary mode the body bytes are the
 * record and the `ce-` headers are decoded and validated with the SDK.
 */
export function unwrapHttp(message: {
  headers: Record<string, string> | Headers;
  body: string | Uint8Array;
}): ProofRecord {
  const headers: Record<string, string> = {};
  const src = message.headers instanceof Headers
    ? Object.fromEntries(message.headers.entries())
    : message.headers;
  for (const [k, v] of Object.entries(src)) headers[k.toLowerCase()] = v;
  const ct = headers["content-type"] ?? "";
  const body = typeof message.body === "string"
    ? new TextEncoder().encode(message.body)
    : message.body;
  if (ct.toLowerCase().startsWith("application/cloudevents-batch")) {
    throw new RecordError("schema_invalid", "batched CloudEvents are not supported");
  }
  if (ct.toLowerCase().startsWith(CLOUDEVENTS_JSON_MEDIA_TYPE)) return unwrap(body);
  return unwrapBinary(headers, body, ct !== "" ? ct : undefined);
}

/**
 * Recover the record from a binary-mode message of any protocol binding: `headers` (lowercase
 * names) holds the `ce-` attributes, `body` the record's bytes; `datacontenttype` is the
 * binding's content type when it carries the attribute outside the `ce-` headers (HTTP's
 * `Content-Type`). The attributes are decoded and validated with the SDK.
 */
export function unwrapBinary(
  headers: Record<string, string>,
  body: Uint8Array,
  datacontenttype?: string,
): ProofRecord {
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!k.startsWith("ce-")) continue;
    try {
      attrs[k.slice(3)] = decodeHeaderValue(v);
    } catch {
      throw new RecordError("schema_invalid", `the header ${k} is not valid percent-encoded UTF-8`);
    }
  }
  if (datacontenttype !== undefined) attrs.datacontenttype = datacontenttype;
  validateAttributes(attrs);
  return recordFromBytes(body);
}

/** Options of {@link postCloudEvent}. */
export interface PostOptions {
  /** Content mode (default structured). */
  mode?: HttpMode;
  /** The fetch to use (tests). */
  fetch?: typeof fetch;
  /** More request headers (e.g. authorization). */
  headers?: Record<string, string>;
  /** Give up after this many milliseconds (default 10 000). */
  timeoutMs?: number;
}

/**
 * The attributes of the OpenTelemetry CloudEvents semantic conventions for a span that sends or
 * receives `event`.
 */
export function cloudEventSpanAttributes(event: ProofEvent): Record<string, string> {
  const a: Record<string, string> = {
    "cloudevents.event_id": event.id,
    "cloudevents.event_source": event.source,
    "cloudevents.event_spec_version": event.specversion,
    "cloudevents.event_type": event.type,
  };
  if (event.subject) a["cloudevents.event_subject"] = event.subject;
  return a;
}

/**
 * POST an event to a CloudEvents sink over HTTP. Resolves with the response status; a non-2xx
 * answer or a network failure is an `io_error`. The request is made in an OpenTelemetry CLIENT
 * span (with the CloudEvents attributes) whose W3C `traceparent` it carries.
 */
export async function postCloudEvent(
  url: string,
  event: ProofEvent,
  options: PostOptions = {},
): Promise<number> {
  const msg = toHttpMessage(event, options.mode ?? "structured");
  let res: Response;
  try {
    res = await tracedFetch(url, {
      method: "POST",
      headers: { ...msg.headers, ...options.headers },
      body: msg.body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    }, { fetch: options.fetch, attributes: cloudEventSpanAttributes(event) });
  } catch (e) {
    throw new IoError("io_error", `cannot POST the CloudEvent to ${url}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  await res.body?.cancel();
  if (!res.ok) {
    throw new IoError("io_error", `the CloudEvents sink ${url} answered ${res.status}`);
  }
  return res.status;
}
