/**
 * MCP server spans following the OpenTelemetry semantic conventions for MCP (status:
 * development, so the attribute names are spelled here rather than imported from the
 * `incubating` entry of `@opentelemetry/semantic-conventions`, as that package advises):
 * a SERVER span per request, named `{mcp.method.name} {target}` (`tools/call verify_proof`),
 * continuing the W3C Trace Context a client sends in the request's `params._meta`.
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
} from "@opentelemetry/api";
import { ATTR_ERROR_TYPE, ATTR_NETWORK_TRANSPORT } from "@opentelemetry/semantic-conventions";
import { EMPIRIC_VERSION } from "../version.ts";
import { recordSpanError } from "./http.ts";
import { INSTRUMENTATION_SCOPE } from "./instrument.ts";
import { extractMcpTraceContext } from "./propagation.ts";

/** Attribute names of the MCP semantic conventions used on MCP server spans. */
export const MCP_ATTR = {
  methodName: "mcp.method.name",
  sessionId: "mcp.session.id",
  protocolVersion: "mcp.protocol.version",
  resourceUri: "mcp.resource.uri",
  requestId: "jsonrpc.request.id",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  responseStatusCode: "rpc.response.status_code",
  networkProtocolName: "network.protocol.name",
} as const;

/** Options of {@link startMcpServerSpan}. */
export interface McpServerSpanOptions {
  /** The JSON-RPC method (`tools/call`, `resources/read`, `initialize`, ...). */
  method: string;
  /** The request's `params._meta` (read for `traceparent` / `tracestate`). */
  meta?: unknown;
  /** The JSON-RPC request id (absent for notifications). */
  requestId?: string | number;
  /** The tool called (`tools/call`). */
  toolName?: string;
  /** The prompt fetched (`prompts/get`). */
  promptName?: string;
  /** The resource read or subscribed to. */
  resourceUri?: string;
  /** `Mcp-Session-Id` of a Streamable HTTP session. */
  sessionId?: string;
  /** The negotiated MCP protocol version. */
  protocolVersion?: string;
  /** `stdio` (`network.transport` pipe) or `http` (tcp, `network.protocol.name` http). */
  transport?: "stdio" | "http";
  /**
   * The context to continue when `_meta` carries no valid `traceparent` (default: the active
   * context, e.g. the HTTP server span of the request that carried the message).
   */
  parent?: Context;
  /** More attributes. */
  attributes?: Attributes;
}

/** A started MCP server span. */
export interface McpServerSpan {
  /** The span (kind SERVER). */
  readonly span: Span;
  /** The context to run the handler in. */
  readonly context: Context;
  /**
   * End the span: `error` is an exception the handler threw (`error.type`, exception event,
   * status ERROR); `jsonRpcErrorCode` a JSON-RPC error answered (`rpc.response.status_code` and
   * `error.type` set to it); `toolError` a tool result with `isError: true` (`error.type`
   * `tool_error`). Later calls do nothing.
   */
  end(outcome?: { error?: unknown; jsonRpcErrorCode?: number; toolError?: boolean }): void;
}

/**
 * Start the SERVER span of one MCP request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trace } from "@opentelemetry/api";
 * import { startMcpServerSpan } from "./mcp.ts";
 * const s = startMcpServerSpan({
 *   method: "tools/call",
 *   toolName: "verify_proof",
 *   requestId: 7,
 *   transport: "stdio",
 *   meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
 * });
 * assert.equal(trace.getSpanContext(s.context)?.traceId, "0af7651916cd43dd8448eb211c80319c");
 * s.end();
 * ```
 */
export function startMcpServerSpan(options: McpServerSpanOptions): McpServerSpan {
  const attrs: Attributes = { [MCP_ATTR.methodName]: options.method };
  if (options.requestId !== undefined) attrs[MCP_ATTR.requestId] = String(options.requestId);
  if (options.toolName) {
    attrs[MCP_ATTR.toolName] = options.toolName;
    attrs[MCP_ATTR.operationName] = "execute_tool";
  }
  if (options.promptName) attrs[MCP_ATTR.promptName] = options.promptName;
  if (options.resourceUri) attrs[MCP_ATTR.resourceUri] = options.resourceUri;
  if (options.sessionId) attrs[MCP_ATTR.sessionId] = options.sessionId;
  if (options.protocolVersion) attrs[MCP_ATTR.protocolVersion] = options.protocolVersion;
  if (options.transport === "stdio") attrs[ATTR_NETWORK_TRANSPORT] = "pipe";
  if (options.transport === "http") {
    attrs[ATTR_NETWORK_TRANSPORT] = "tcp";
    attrs[MCP_ATTR.networkProtocolName] = "http";
  }
  Object.assign(attrs, options.attributes);
  const target = options.toolName ?? options.promptName;
  const parent = extractMcpTraceContext(options.meta, options.parent ?? context.active());
  const span = trace.getTracer(INSTRUMENTATION_SCOPE, EMPIRIC_VERSION).startSpan(
    target ? `${options.method} ${target}` : options.method,
    { kind: SpanKind.SERVER, attributes: attrs },
    parent,
  );
  let ended = false;
  return {
    span,
    context: trace.setSpan(parent, span),
    end(outcome = {}) {
      if (ended) return;
      ended = true;
      if (outcome.error !== undefined) recordSpanError(span, outcome.error);
      else if (outcome.jsonRpcErrorCode !== undefined) {
        const code = String(outcome.jsonRpcErrorCode);
        span.setAttributes({ [MCP_ATTR.responseStatusCode]: code, [ATTR_ERROR_TYPE]: code });
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (outcome.toolError) {
        span.setAttribute(ATTR_ERROR_TYPE, "tool_error");
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

/**
 * Run an MCP request handler inside its SERVER span ({@link startMcpServerSpan}). A result with
 * `isError: true` (a tool error) marks the span `tool_error`; an exception is recorded and
 * re-thrown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withMcpServerSpan } from "./mcp.ts";
 * const r = await withMcpServerSpan(
 *   { method: "tools/call", toolName: "list_scenarios" },
 *   () => Promise.resolve({ content: [], isError: false }),
 * );
 * assert.equal(r.isError, false);
 * ```
 */
export async function withMcpServerSpan<T>(
  options: McpServerSpanOptions,
  handler: (span: McpServerSpan) => Promise<T>,
): Promise<T> {
  const s = startMcpServerSpan(options);
  try {
    const r = await context.with(s.context, () => handler(s));
    const toolError = r !== null && typeof r === "object" &&
      (r as { isError?: unknown }).isError === true;
    s.end({ toolError });
    return r;
  } catch (e) {
    s.end({ error: e });
    throw e;
  }
}
