/**
 * Proof events on a real stream: CloudEvents published to NATS JetStream following the
 * CloudEvents NATS protocol binding, with the official `@nats-io` clients
 * (`@nats-io/transport-node`, `@nats-io/jetstream`; they run under Deno through its Node
 * compatibility). `--events-url nats://host:port/subject` on the command line.
 *
 * | content mode | NATS headers | payload |
 * | --- | --- | --- |
 * | structured (default) | `Content-Type: application/cloudevents+json; charset=utf-8` | the JSON event format (the record as `data_base64`) |
 * | binary | every attribute as `ce-<name>`, percent-encoded (`ce-datacontenttype: application/json`) | the record's canonical bytes |
 *
 * Both modes also carry `Nats-Msg-Id` = the event id (the proof_id), so JetStream drops a
 * second publish of the same record inside the stream's duplicate window, and the
 * `traceparent` of the PRODUCER span when telemetry is on. The stream itself is the operator's:
 * a subject no stream captures is an error, not a silent drop.
 *
 * @module
 */
import { connect, headers as natsHeaders, type NatsConnection } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { IoError, RecordError, UsageError } from "../errors/errors.ts";
import { withProducerSpan } from "../telemetry/messaging.ts";
import {
  CLOUDEVENTS_JSON_MEDIA_TYPE,
  cloudEventSpanAttributes,
  encodeHeaderValue,
  type HttpMode,
  type ProofEvent,
  toHttpMessage,
  unwrap,
  unwrapBinary,
} from "./cloudevents.ts";
import type { ProofRecord } from "../record/types.ts";

/** Default port of a NATS server. */
export const NATS_DEFAULT_PORT = 4222;

/** Where `--events-url nats://...` points. */
export interface NatsTarget {
  /** `host:port` of the server (as the client is given it). */
  readonly server: string;
  /** The server's host name or address (IPv6 without brackets). */
  readonly host: string;
  /** The server's port. */
  readonly port: number;
  /** The subject to publish on. */
  readonly subject: string;
  /** User and password from the URL, if any. */
  readonly user?: string;
  /** See {@link user}. */
  readonly pass?: string;
  /** A token given as the URL's user part alone (`nats://token@host`). */
  readonly token?: string;
  /** The URL with credentials removed, for messages. */
  readonly display: string;
}

// A subject: tokens of printable ASCII without space, '.', '*' or '>', joined by '.'. Wildcards
// subscribe; a publish needs a literal subject.
const SUBJECT = /^[!-)+,\-/-=?-~]+(\.[!-)+,\-/-=?-~]+)*$/;

/**
 * Read `nats://[user:pass@ | token@]host[:port]/subject` (port default 4222). A missing or
 * wildcard subject, another scheme, or a query or fragment is a `usage_error`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseNatsUrl } from "./nats.ts";
 * const t = parseNatsUrl("nats://ci:s3cret@127.0.0.1:4222/empiric.proofs");
 * assert.equal(t.server, "127.0.0.1:4222");
 * assert.equal(t.subject, "empiric.proofs");
 * assert.equal(t.user, "ci");
 * assert.equal(t.display, "nats://127.0.0.1:4222/empiric.proofs");
 * assert.throws(() => parseNatsUrl("nats://localhost/empiric.*"));
 * ```
 */
export function parseNatsUrl(url: string): NatsTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== "nats:") {
    throw new UsageError(`a NATS URL starts with nats://, got ${JSON.stringify(url)}`);
  }
  if (u.search || u.hash) {
    throw new UsageError(`a NATS URL has no query or fragment: ${JSON.stringify(url)}`);
  }
  if (!u.hostname) throw new UsageError(`the NATS URL ${JSON.stringify(url)} names no host`);
  const subject = decodeURIComponent(u.pathname.replace(/^\//, ""));
  if (subject === "") {
    throw new UsageError(
      `the NATS URL ${JSON.stringify(url)} names no subject: use nats://host:port/subject`,
    );
  }
  if (!SUBJECT.test(subject)) {
    throw new UsageError(
      `${
        JSON.stringify(subject)
      } is not a NATS subject to publish on (dot-separated tokens, no spaces or wildcards)`,
    );
  }
  const port = u.port ? Number(u.port) : NATS_DEFAULT_PORT;
  const server = `${u.hostname}:${port}`;
  const user = u.username ? decodeURIComponent(u.username) : undefined;
  const pass = u.password ? decodeURIComponent(u.password) : undefined;
  return {
    server,
    host: u.hostname.replace(/^\[(.*)\]$/, "$1"),
    port,
    subject,
    ...(user !== undefined && pass !== undefined ? { user, pass } : {}),
    ...(user !== undefined && pass === undefined ? { token: user } : {}),
    display: `nats://${server}/${subject}`,
  };
}

/** A NATS message: headers and payload. */
export interface NatsMessage {
  /** Header names as the binding writes them. */
  readonly headers: Record<string, string>;
  /** The payload bytes. */
  readonly data: Uint8Array<ArrayBuffer>;
}

/**
 * The NATS message of a proof event in a content mode (see the module's table).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wrap } from "./cloudevents.ts";
 * import { toNatsMessage, unwrapNats } from "./nats.ts";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const event = await wrap(text, { source: "urn:empiric:example" });
 * const m = toNatsMessage(event, "binary");
 * assert.equal(m.headers["ce-id"], event.id);
 * assert.equal(m.headers["ce-datacontenttype"], "application/json");
 * assert.equal(unwrapNats(m).identity.proof_id, event.id);
 * ```
 */
export function toNatsMessage(event: ProofEvent, mode: HttpMode = "structured"): NatsMessage {
  if (mode === "structured") {
    return {
      headers: { "Content-Type": `${CLOUDEVENTS_JSON_MEDIA_TYPE}; charset=utf-8` },
      data: new TextEncoder().encode(event.toString()),
    };
  }
  // The HTTP binding's ce- headers (already percent-encoded); NATS also maps datacontenttype to a
  // ce- header, leaving Content-Type to mark structured messages.
  const http = toHttpMessage(event, "binary");
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(http.headers)) if (k.startsWith("ce-")) headers[k] = v;
  if (event.datacontenttype) {
    headers["ce-datacontenttype"] = encodeHeaderValue(event.datacontenttype);
  }
  return { headers, data: http.body as Uint8Array<ArrayBuffer> };
}

/** Header shapes a NATS message arrives with: the client's `MsgHdrs`, or a plain object. */
export type NatsHeaderInput =
  | { keys(): string[]; get(name: string): string }
  | Record<string, string>
  | undefined;

function lowerHeaders(h: NatsHeaderInput): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (typeof (h as { keys?: unknown }).keys === "function") {
    const m = h as { keys(): string[]; get(name: string): string };
    for (const k of m.keys()) out[k.toLowerCase()] = m.get(k);
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, string>)) out[k.toLowerCase()] = v;
  return out;
}

/**
 * Recover the record from a NATS message in either content mode: structured when the
 * `Content-Type` header is a CloudEvents media type, or when the message has neither a
 * `Content-Type` nor a `ce-specversion` header (a publisher from before NATS headers); binary
 * otherwise. The record is returned as carried: verify it with the record key.
 */
export function unwrapNats(message: { headers?: NatsHeaderInput; data: Uint8Array }): ProofRecord {
  const h = lowerHeaders(message.headers);
  const ct = (h["content-type"] ?? "").toLowerCase();
  if (ct.startsWith("application/cloudevents-batch")) {
    throw new RecordError("schema_invalid", "batched CloudEvents are not supported");
  }
  if (ct.startsWith("application/cloudevents") || (ct === "" && !("ce-specversion" in h))) {
    return unwrap(message.data);
  }
  return unwrapBinary(h, message.data);
}

/** Options of {@link publishNatsCloudEvent}. */
export interface NatsPublishOptions {
  /** Content mode (default structured). */
  mode?: HttpMode;
  /** Give up connecting, or waiting for the stream's acknowledgement, after this many ms (default 10 000). */
  timeoutMs?: number;
}

/** JetStream's acknowledgement of a published event. */
export interface NatsPublishAck {
  /** The stream that stored it. */
  readonly stream: string;
  /** Its sequence number in the stream. */
  readonly seq: number;
  /** True when the stream already had a message with this id (nothing new was stored). */
  readonly duplicate: boolean;
}

function errorName(e: unknown): string {
  return (e as { name?: string })?.name ?? "";
}

/**
 * Publish a proof event to the NATS JetStream subject of `url` (`nats://host:port/subject`) and
 * wait for the stream's acknowledgement. Failures are `io_error`s naming the server: it cannot be
 * reached, no stream captures the subject (or JetStream is off), or no acknowledgement came in
 * time. The connection is closed before returning.
 */
export async function publishNatsCloudEvent(
  url: string,
  event: ProofEvent,
  options: NatsPublishOptions = {},
): Promise<NatsPublishAck> {
  const target = parseNatsUrl(url);
  const timeout = options.timeoutMs ?? 10_000;
  const msg = toNatsMessage(event, options.mode ?? "structured");
  let nc: NatsConnection;
  const release = absorbLateSocketResets();
  try {
    nc = await connect({
      servers: target.server,
      name: "empiric",
      timeout,
      reconnect: false,
      maxReconnectAttempts: 0,
      ...(target.user !== undefined ? { user: target.user, pass: target.pass } : {}),
      ...(target.token !== undefined ? { token: target.token } : {}),
    });
  } catch (e) {
    release();
    throw new IoError(
      "io_error",
      `cannot connect to the NATS server ${target.server} (${target.display}): ${
        (e as Error).message
      }`,
      { cause: e },
    );
  }
  try {
    return await withProducerSpan({
      system: "nats",
      destination: target.subject,
      messageId: event.id,
      bodySize: msg.data.length,
      serverAddress: target.host,
      serverPort: target.port,
      attributes: cloudEventSpanAttributes(event),
    }, async (traceHeaders) => {
      const h = natsHeaders();
      for (const [k, v] of Object.entries({ ...msg.headers, ...traceHeaders })) h.set(k, v);
      try {
        const ack = await jetstream(nc, { timeout }).publish(target.subject, msg.data, {
          headers: h,
          msgID: event.id,
          timeout,
        });
        return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
      } catch (e) {
        const name = errorName(e);
        if (name === "JetStreamNotEnabled" || name === "NoRespondersError") {
          throw new IoError(
            "io_error",
            `no JetStream stream on ${target.server} captures the subject ${target.subject} (or JetStream is not enabled there): create one, e.g. \`nats stream add PROOFS --subjects '${target.subject}'\``,
            { cause: e },
          );
        }
        throw new IoError(
          "io_error",
          `cannot publish the CloudEvent to ${target.display}: ${(e as Error).message}`,
          { cause: e },
        );
      }
    });
  } finally {
    await nc.close().catch(() => undefined);
    release();
  }
}

/** How long after a NATS connection ends a reset of its socket is still expected (ms). */
const LATE_RESET_GRACE_MS = 2_000;
let guards = 0;

function isSocketReset(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE";
}

function onLateReset(ev: ErrorEvent): void {
  if (isSocketReset(ev.error)) ev.preventDefault();
}

/**
 * While a NATS connection is open, and for a short grace after it ends, a reset of its socket is
 * not a crash. The NATS client removes its socket listeners when it closes a connection (for
 * example after the server's `-ERR 'Authorization Violation'`), and under Deno's `node:net` a
 * read still pending on that socket may then fail with `ECONNRESET` as an uncaught error, after
 * the publish has already been answered with an `io_error`. Returns the release function.
 */
function absorbLateSocketResets(): () => void {
  if (guards++ === 0) globalThis.addEventListener("error", onLateReset);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const t = setTimeout(() => {
      if (--guards === 0) globalThis.removeEventListener("error", onLateReset);
    }, LATE_RESET_GRACE_MS);
    Deno.unrefTimer(t);
  };
}
