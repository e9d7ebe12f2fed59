/**
 * HTTP spans following the OpenTelemetry HTTP semantic conventions (stable attributes from
 * `@opentelemetry/semantic-conventions`):
 *
 * - server side, {@link startHttpServerSpan} / {@link withHttpServerSpan}: a SERVER span that
 *   continues the caller's W3C `traceparent`, named `{method} {http.route}`;
 * - client side, {@link tracedFetch}: a CLIENT span around one outgoing request, whose context
 *   travels in the request's `traceparent` header (CloudEvents sinks, OpenLineage collectors).
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_CLIENT_PORT,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import { EmpiricError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { INSTRUMENTATION_SCOPE } from "./instrument.ts";
import { extractTraceContext, traceContextHeaders } from "./propagation.ts";

function tracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE, EMPIRIC_VERSION);
}

const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/** `http.request.method` (and `http.request.method_original` for a method outside the list). */
function methodAttributes(method: string): { name: string; attrs: Attributes } {
  if (KNOWN_METHODS.has(method)) {
    return { name: method, attrs: { [ATTR_HTTP_REQUEST_METHOD]: method } };
  }
  return {
    name: "HTTP",
    attrs: { [ATTR_HTTP_REQUEST_METHOD]: "_OTHER", [ATTR_HTTP_REQUEST_METHOD_ORIGINAL]: method },
  };
}

function defaultPort(scheme: string): number | undefined {
  return scheme === "http" ? 80 : scheme === "https" ? 443 : undefined;
}

/** `error.type` of an exception: an empiric error's stable code, else the error's class name. */
export function errorType(e: unknown): string {
  if (e instanceof EmpiricError) return e.code;
  if (e instanceof Error) return e.name === "Error" ? e.constructor.name : e.name;
  return "_OTHER";
}

/** Record an exception on a span: the exception event, `error.type`, status ERROR. */
export function recordSpanError(span: Span, e: unknown): void {
  span.recordException(e instanceof Error ? e : new Error(String(e)));
  span.setAttribute(ATTR_ERROR_TYPE, errorType(e));
  span.setStatus({ code: SpanStatusCode.ERROR, message: String((e as Error)?.message ?? e) });
}

/** Options of {@link startHttpServerSpan}. */
export interface HttpServerSpanOptions {
  /** The matched route template (`http.route`, e.g. `/proofs/{proof_id}`), when known at start. */
  route?: string;
  /** The peer's address (`client.address`), e.g. from `Deno.ServeHandlerInfo.remoteAddr`. */
  clientAddress?: string;
  /** The peer's port (`client.port`). */
  clientPort?: number;
  /** `network.protocol.version` (`1.1`, `2`). */
  protocolVersion?: string;
  /**
   * The context to continue when the request carries no valid `traceparent` (default: the
   * active context).
   */
  parent?: Context;
  /** More attributes for the span (e.g. empiric's own). */
  attributes?: Attributes;
}

/** A started HTTP server span. */
export interface HttpServerSpan {
  /** The span (kind SERVER). */
  readonly span: Span;
  /** The context to run the handler in: the span inside the caller's trace. */
  readonly context: Context;
  /** Set `http.route` once the router knows it, and rename the span `{method} {route}`. */
  setRoute(route: string): void;
  /**
   * End the span with the response status (`http.response.status_code`; 5xx sets the status
   * ERROR and `error.type` to the code) or the exception the handler threw (`error.type`, the
   * exception event, status ERROR). Later calls do nothing.
   */
  end(outcome: { status?: number; error?: unknown }): void;
}

/**
 * Start the SERVER span of an incoming request, continuing the W3C `traceparent` (and
 * `tracestate`) it carries. Attributes: `http.request.method`, `url.scheme`, `url.path`,
 * `url.query` (when there is one), `server.address`, `server.port`, `user_agent.original`,
 * `http.route`, `client.address`, `client.port`, `network.protocol.version` as given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trace } from "@opentelemetry/api";
 * import { startHttpServerSpan } from "./http.ts";
 * const req = new Request("http://127.0.0.1:8080/verify", {
 *   method: "POST",
 *   headers: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
 * });
 * const s = startHttpServerSpan(req, { route: "/verify" });
 * // Without an SDK the span does not record, but the handler runs inside the caller's trace.
 * assert.equal(trace.getSpanContext(s.context)?.traceId, "0af7651916cd43dd8448eb211c80319c");
 * s.end({ status: 200 });
 * ```
 */
export function startHttpServerSpan(
  request: Request,
  options: HttpServerSpanOptions = {},
): HttpServerSpan {
  const url = new URL(request.url);
  const scheme = url.protocol.replace(/:$/, "");
  const method = methodAttributes(request.method.toUpperCase());
  const attrs: Attributes = {
    ...method.attrs,
    [ATTR_URL_SCHEME]: scheme,
    [ATTR_URL_PATH]: url.pathname,
    [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, "$1"),
  };
  const port = url.port ? Number(url.port) : defaultPort(scheme);
  if (port !== undefined) attrs[ATTR_SERVER_PORT] = port;
  if (url.search.length > 1) attrs[ATTR_URL_QUERY] = url.search.slice(1);
  const ua = request.headers.get("user-agent");
  if (ua) attrs[ATTR_USER_AGENT_ORIGINAL] = ua;
  if (options.route) attrs[ATTR_HTTP_ROUTE] = options.route;
  if (options.clientAddress) attrs[ATTR_CLIENT_ADDRESS] = options.clientAddress;
  if (options.clientPort !== undefined) attrs[ATTR_CLIENT_PORT] = options.clientPort;
  if (options.protocolVersion) attrs[ATTR_NETWORK_PROTOCOL_VERSION] = options.protocolVersion;
  Object.assign(attrs, options.attributes);

  const parent = extractTraceContext(request.headers, options.parent ?? context.active());
  const name = (route?: string) => route ? `${method.name} ${route}` : method.name;
  const span = tracer().startSpan(
    name(options.route),
    { kind: SpanKind.SERVER, attributes: attrs },
    parent,
  );
  let ended = false;
  return {
    span,
    context: trace.setSpan(parent, span),
    setRoute(route) {
      span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.updateName(name(route));
    },
    end({ status, error }) {
      if (ended) return;
      ended = true;
      if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (error !== undefined) {
        recordSpanError(span, error);
      } else if (status !== undefined && status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

/**
 * Run an HTTP handler inside the SERVER span of its request ({@link startHttpServerSpan}): the
 * handler sees the span as the active context (so spans it starts, and outgoing calls made with
 * {@link tracedFetch}, are its children), and the span ends with the response status or the
 * exception thrown (which is re-thrown).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withHttpServerSpan } from "./http.ts";
 * const res = await withHttpServerSpan(
 *   new Request("http://localhost/health"),
 *   { route: "/health" },
 *   () => Promise.resolve(new Response("ok")),
 * );
 * assert.equal(await res.text(), "ok");
 * ```
 */
export async function withHttpServerSpan(
  request: Request,
  options: HttpServerSpanOptions,
  handler: (span: HttpServerSpan) => Promise<Response>,
): Promise<Response> {
  const s = startHttpServerSpan(request, options);
  try {
    const res = await context.with(s.context, () => handler(s));
    s.end({ status: res.status });
    return res;
  } catch (e) {
    s.end({ error: e });
    throw e;
  }
}

/** Options of {@link tracedFetch}. */
export interface TracedFetchOptions {
  /** The fetch to call (default the global `fetch`). */
  fetch?: typeof fetch;
  /** More attributes for the client span (e.g. `cloudevents.event_id`). */
  attributes?: Attributes;
}

/** `url.full` without user name and password (the semantic conventions' redaction). */
function redactedUrl(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const u = new URL(url.href);
  u.username = "REDACTED";
  u.password = u.password ? "REDACTED" : "";
  return u.href;
}

/**
 * `fetch` inside a CLIENT span named after the method (`POST`), with the span's W3C Trace
 * Context in the request's `traceparent` (and `tracestate`) header. Attributes:
 * `http.request.method`, `url.full` (credentials redacted), `server.address`, `server.port`,
 * `http.response.status_code`; a status of 400 or more, or a network failure, sets the status
 * ERROR and `error.type`. The response (or the failure) is returned as `fetch` gives it.
 *
 * Without an installed SDK and without an active trace, no header is added.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tracedFetch } from "./http.ts";
 * let seen: Headers | undefined;
 * const fakeFetch = (_: RequestInfo | URL, init?: RequestInit) => {
 *   seen = new Headers(init?.headers);
 *   return Promise.resolve(new Response(null, { status: 204 }));
 * };
 * const res = await tracedFetch("http://127.0.0.1:9/sink", { method: "POST", body: "{}" }, {
 *   fetch: fakeFetch as typeof fetch,
 * });
 * assert.equal(res.status, 204);
 * assert.equal(seen?.has("traceparent"), false); // no SDK, no active trace: nothing invented
 * ```
 */
export async function tracedFetch(
  input: string | URL,
  init: RequestInit = {},
  options: TracedFetchOptions = {},
): Promise<Response> {
  const url = new URL(input);
  const scheme = url.protocol.replace(/:$/, "");
  const method = methodAttributes((init.method ?? "GET").toUpperCase());
  const attrs: Attributes = {
    ...method.attrs,
    [ATTR_URL_FULL]: redactedUrl(url),
    [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    ...options.attributes,
  };
  const port = url.port ? Number(url.port) : defaultPort(scheme);
  if (port !== undefined) attrs[ATTR_SERVER_PORT] = port;
  const span = tracer().startSpan(method.name, { kind: SpanKind.CLIENT, attributes: attrs });
  const ctx = trace.setSpan(context.active(), span);
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(traceContextHeaders(ctx))) headers.set(k, v);
  const f = options.fetch ?? fetch;
  try {
    const res = await context.with(ctx, () => f(url, { ...init, headers }));
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.status);
    if (res.status >= 400) {
      span.setAttribute(ATTR_ERROR_TYPE, String(res.status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return res;
  } catch (e) {
    recordSpanError(span, e);
    throw e;
  } finally {
    span.end();
  }
}
