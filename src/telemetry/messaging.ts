/**
 * PRODUCER spans for messages empiric publishes (CloudEvents to NATS JetStream), following the
 * OpenTelemetry messaging semantic conventions (development status; names spelled here): named
 * `publish {destination}`, with the span's W3C Trace Context handed to the caller as message
 * headers (`traceparent`, `tracestate`), so a consumer can continue the trace.
 *
 * @module
 */
import { type Attributes, context, SpanKind, trace } from "@opentelemetry/api";
import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT } from "@opentelemetry/semantic-conventions";
import { EMPIRIC_VERSION } from "../version.ts";
import { recordSpanError } from "./http.ts";
import { INSTRUMENTATION_SCOPE } from "./instrument.ts";
import { traceContextHeaders } from "./propagation.ts";

/** Attribute names of the messaging semantic conventions used on producer spans. */
export const MESSAGING_ATTR = {
  system: "messaging.system",
  destination: "messaging.destination.name",
  operationName: "messaging.operation.name",
  operationType: "messaging.operation.type",
  messageId: "messaging.message.id",
  bodySize: "messaging.message.body.size",
} as const;

/** Options of {@link withProducerSpan}. */
export interface ProducerSpanOptions {
  /** `messaging.system` (e.g. `nats`). */
  system: string;
  /** The subject, topic or queue (`messaging.destination.name`). */
  destination: string;
  /** `messaging.message.id`. */
  messageId?: string;
  /** `messaging.message.body.size` in bytes. */
  bodySize?: number;
  /** The broker's host (`server.address`). */
  serverAddress?: string;
  /** The broker's port (`server.port`). */
  serverPort?: number;
  /** More attributes (e.g. `cloudevents.event_id`). */
  attributes?: Attributes;
}

/**
 * Run `publish` inside a PRODUCER span `publish {destination}`; it receives the span's trace
 * context headers to put on the message (empty without an SDK and an active trace). A failure is
 * recorded on the span and re-thrown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withProducerSpan } from "./messaging.ts";
 * const sent = await withProducerSpan(
 *   { system: "nats", destination: "empiric.proofs" },
 *   (headers) => Promise.resolve(Object.keys(headers).length),
 * );
 * assert.equal(sent, 0); // no SDK and no active trace: no traceparent is invented
 * ```
 */
export async function withProducerSpan<T>(
  options: ProducerSpanOptions,
  publish: (traceHeaders: Record<string, string>) => Promise<T>,
): Promise<T> {
  const attrs: Attributes = {
    [MESSAGING_ATTR.system]: options.system,
    [MESSAGING_ATTR.destination]: options.destination,
    [MESSAGING_ATTR.operationName]: "publish",
    [MESSAGING_ATTR.operationType]: "send",
    ...options.attributes,
  };
  if (options.messageId) attrs[MESSAGING_ATTR.messageId] = options.messageId;
  if (options.bodySize !== undefined) attrs[MESSAGING_ATTR.bodySize] = options.bodySize;
  if (options.serverAddress) attrs[ATTR_SERVER_ADDRESS] = options.serverAddress;
  if (options.serverPort !== undefined) attrs[ATTR_SERVER_PORT] = options.serverPort;
  const span = trace.getTracer(INSTRUMENTATION_SCOPE, EMPIRIC_VERSION).startSpan(
    `publish ${options.destination}`,
    { kind: SpanKind.PRODUCER, attributes: attrs },
  );
  const ctx = trace.setSpan(context.active(), span);
  try {
    return await context.with(ctx, () => publish(traceContextHeaders(ctx)));
  } catch (e) {
    recordSpanError(span, e);
    throw e;
  } finally {
    span.end();
  }
}
