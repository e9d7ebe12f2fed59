/**
 * W3C Trace Context (`traceparent`, `tracestate`) in and out of empiric: reading it from
 * incoming HTTP headers and from an MCP request's `_meta`, and writing it into outgoing HTTP
 * and NATS headers. Uses `@opentelemetry/core`'s `W3CTraceContextPropagator` directly, so it
 * works whether or not {@link ./otel.ts} `setupOtel` installed the global propagator.
 *
 * Without an installed SDK a span started under an extracted context is non-recording but keeps
 * the caller's trace id; there is then no context manager to carry it across `await`s, and with
 * no valid span context nothing is injected (empiric never invents a trace id it does not
 * record).
 *
 * @module
 */
import {
  type Context,
  context,
  type TextMapGetter,
  type TextMapPropagator,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

/** The W3C Trace Context propagator empiric uses (also installed globally by `setupOtel`). */
export const W3C_PROPAGATOR: TextMapPropagator = new W3CTraceContextPropagator();

/** Header (and MCP `_meta` key) names of W3C Trace Context. */
export const TRACEPARENT = "traceparent";
/** See {@link TRACEPARENT}. */
export const TRACESTATE = "tracestate";

/**
 * Incoming headers in any of the shapes servers hand them over: web `Headers`, a plain object
 * (Node's `IncomingHttpHeaders`, with string or string-array values; any letter case), or a Map.
 */
export type HeaderCarrier =
  | Headers
  | Map<string, string>
  | Record<string, string | readonly string[] | undefined>;

function headerValue(carrier: HeaderCarrier, name: string): string | undefined {
  if (carrier instanceof Headers) return carrier.get(name) ?? undefined;
  if (carrier instanceof Map) {
    for (const [k, v] of carrier) if (k.toLowerCase() === name) return v;
    return undefined;
  }
  for (const [k, v] of Object.entries(carrier)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    // Repeated headers: W3C Trace Context allows several tracestate headers (joined with ",");
    // a repeated traceparent is invalid and the propagator then ignores it.
    return typeof v === "string" ? v : v.join(",");
  }
  return undefined;
}

const headerGetter: TextMapGetter<HeaderCarrier> = {
  keys: (c) =>
    c instanceof Headers ? [...c.keys()] : c instanceof Map ? [...c.keys()] : Object.keys(c),
  get: (c, key) => headerValue(c, key.toLowerCase()),
};

/**
 * The context an incoming request continues: `base` (default: the active context) with the
 * remote span of a valid `traceparent` header (and its `tracestate`). An absent or malformed
 * `traceparent` leaves `base` as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trace } from "@opentelemetry/api";
 * import { extractTraceContext } from "./propagation.ts";
 * const ctx = extractTraceContext(
 *   new Headers({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }),
 * );
 * const parent = trace.getSpanContext(ctx);
 * assert.equal(parent?.traceId, "0af7651916cd43dd8448eb211c80319c");
 * assert.equal(parent?.isRemote, true);
 * assert.equal(trace.getSpanContext(extractTraceContext({ traceparent: "junk" })), undefined);
 * ```
 */
export function extractTraceContext(
  headers: HeaderCarrier | null | undefined,
  base: Context = context.active(),
): Context {
  if (!headers) return base;
  return W3C_PROPAGATOR.extract(base, headers, headerGetter);
}

/**
 * The context an MCP request continues: the `traceparent` and `tracestate` members of its
 * `params._meta` (as MCP clients that propagate trace context send them), over `base` (default:
 * the active context, e.g. the HTTP server span of a Streamable HTTP request). Anything that is
 * not an object with a valid string `traceparent` leaves `base` as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trace } from "@opentelemetry/api";
 * import { extractMcpTraceContext } from "./propagation.ts";
 * const meta = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
 * assert.equal(trace.getSpanContext(extractMcpTraceContext(meta))?.spanId, "b7ad6b7169203331");
 * assert.equal(trace.getSpanContext(extractMcpTraceContext({ traceparent: 42 })), undefined);
 * ```
 */
export function extractMcpTraceContext(
  meta: unknown,
  base: Context = context.active(),
): Context {
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return base;
  const m = meta as Record<string, unknown>;
  const carrier: Record<string, string> = {};
  if (typeof m[TRACEPARENT] === "string") carrier[TRACEPARENT] = m[TRACEPARENT] as string;
  else return base;
  if (typeof m[TRACESTATE] === "string") carrier[TRACESTATE] = m[TRACESTATE] as string;
  return W3C_PROPAGATOR.extract(base, carrier, headerGetter);
}

/**
 * The W3C Trace Context headers of `ctx` (default: the active context): `traceparent`, and
 * `tracestate` when there is one. Empty when `ctx` holds no valid span context.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
 * import { traceContextHeaders } from "./propagation.ts";
 * const ctx = trace.setSpanContext(ROOT_CONTEXT, {
 *   traceId: "0af7651916cd43dd8448eb211c80319c",
 *   spanId: "b7ad6b7169203331",
 *   traceFlags: TraceFlags.SAMPLED,
 * });
 * assert.deepEqual(traceContextHeaders(ctx), {
 *   traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
 * });
 * assert.deepEqual(traceContextHeaders(ROOT_CONTEXT), {});
 * ```
 */
export function traceContextHeaders(ctx: Context = context.active()): Record<string, string> {
  const out: Record<string, string> = {};
  W3C_PROPAGATOR.inject(ctx, out, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
  return out;
}

/** Whether `ctx` carries a valid span context (a trace to continue or join). */
export function hasSpanContext(ctx: Context): boolean {
  const sc = trace.getSpanContext(ctx);
  return sc !== undefined && trace.isSpanContextValid(sc);
}
