// W3C trace context and the span helpers (src/telemetry/propagation.ts, http.ts, mcp.ts,
// messaging.ts) in process, with the OpenTelemetry SDK's tracer provider and its in-memory span
// exporter: header shapes, malformed traceparents, method and URL rules of the HTTP semantic
// conventions, JSON-RPC errors on MCP spans. The end-to-end path through a real collector is in
// collector_test.ts.
import assert from "node:assert/strict";
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  extractMcpTraceContext,
  extractTraceContext,
  traceContextHeaders,
} from "../../src/telemetry/propagation.ts";
import { startHttpServerSpan, tracedFetch, withHttpServerSpan } from "../../src/telemetry/http.ts";
import { startMcpServerSpan, withMcpServerSpan } from "../../src/telemetry/mcp.ts";
import { withProducerSpan } from "../../src/telemetry/messaging.ts";
import { UsageError } from "../../src/errors/errors.ts";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const SPAN_ID = "b7ad6b7169203331";
const TP = `00-${TRACE_ID}-${SPAN_ID}-01`;

/** Install the SDK with an in-memory exporter for the duration of `fn`. */
async function withSdk(fn: (spans: () => ReadableSpan[]) => Promise<void>): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const cm = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(cm);
  trace.setGlobalTracerProvider(provider);
  try {
    await fn(() => exporter.getFinishedSpans() as ReadableSpan[]);
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

Deno.test("extractTraceContext: Headers, Node-style objects, Maps; malformed values are ignored", () => {
  const shapes = [
    new Headers({ traceparent: TP, tracestate: "a=1" }),
    { Traceparent: TP, tracestate: ["a=1"] },
    new Map([["TRACEPARENT", TP], ["tracestate", "a=1"]]),
  ];
  for (const h of shapes) {
    const sc = trace.getSpanContext(extractTraceContext(h, ROOT_CONTEXT));
    assert.equal(sc?.traceId, TRACE_ID);
    assert.equal(sc?.spanId, SPAN_ID);
    assert.equal(sc?.isRemote, true);
    assert.equal(sc?.traceState?.get("a"), "1");
  }
  for (
    const bad of [
      "junk",
      `00-${"0".repeat(32)}-${SPAN_ID}-01`, // all-zero trace id
      `00-${TRACE_ID}-${"0".repeat(16)}-01`, // all-zero span id
      `ff-${TRACE_ID}-${SPAN_ID}-01`, // version ff is invalid
      `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`, // upper-case hex
    ]
  ) {
    assert.equal(
      trace.getSpanContext(extractTraceContext({ traceparent: bad }, ROOT_CONTEXT)),
      undefined,
      bad,
    );
  }
  assert.equal(extractTraceContext(undefined, ROOT_CONTEXT), ROOT_CONTEXT);
  // Two traceparent headers are not one valid value.
  assert.equal(
    trace.getSpanContext(extractTraceContext({ traceparent: [TP, TP] }, ROOT_CONTEXT)),
    undefined,
  );
});

Deno.test("extractMcpTraceContext: only an object with a string traceparent counts", () => {
  const ok = extractMcpTraceContext({ traceparent: TP, tracestate: "v=2", other: 1 }, ROOT_CONTEXT);
  assert.equal(trace.getSpanContext(ok)?.traceId, TRACE_ID);
  assert.equal(trace.getSpanContext(ok)?.traceState?.get("v"), "2");
  for (const meta of [undefined, null, "x", [TP], { traceparent: 1 }, { tracestate: "v=2" }]) {
    assert.equal(extractMcpTraceContext(meta, ROOT_CONTEXT), ROOT_CONTEXT, JSON.stringify(meta));
  }
  // A round trip: what traceContextHeaders writes, extractTraceContext reads.
  assert.deepEqual(traceContextHeaders(ok), { traceparent: TP, tracestate: "v=2" });
});

Deno.test("HTTP server span: semantic-convention attributes, unknown methods, errors", async () => {
  await withSdk(async (spans) => {
    const s = startHttpServerSpan(
      new Request("https://[::1]/proofs/abc", { method: "PURGE", headers: { traceparent: TP } }),
      { clientAddress: "::1", clientPort: 50000 },
    );
    s.setRoute("/proofs/{proof_id}");
    s.end({ status: 404 });
    s.end({ status: 500 }); // ignored
    await assert.rejects(
      withHttpServerSpan(new Request("http://localhost:8080/run"), { route: "/run" }, () => {
        throw new UsageError("bad input");
      }),
      UsageError,
    );
    const [a, b] = spans();
    assert.equal(a.name, "HTTP /proofs/{proof_id}");
    assert.equal(a.kind, SpanKind.SERVER);
    assert.equal(a.spanContext().traceId, TRACE_ID);
    assert.equal(a.parentSpanContext?.spanId, SPAN_ID);
    assert.deepEqual(a.attributes, {
      "http.request.method": "_OTHER",
      "http.request.method_original": "PURGE",
      "url.scheme": "https",
      "url.path": "/proofs/abc",
      "server.address": "::1",
      "server.port": 443,
      "http.route": "/proofs/{proof_id}",
      "client.address": "::1",
      "client.port": 50000,
      "http.response.status_code": 404,
    });
    assert.equal(a.status.code, 0); // a 4xx is the client's error, not the server's
    assert.equal(b.name, "GET /run");
    assert.equal(b.attributes["error.type"], "usage_error");
    assert.equal(b.status.code, 2);
    assert.equal(b.events[0].name, "exception");
    assert.equal(b.parentSpanContext, undefined); // no traceparent: a new trace
  });
});

Deno.test("tracedFetch: client span, traceparent of the client span, redacted URL, failures", async () => {
  await withSdk(async (spans) => {
    const seen: Headers[] = [];
    const ok = ((_: unknown, init?: RequestInit) => {
      seen.push(new Headers(init?.headers));
      return Promise.resolve(new Response(null, { status: 503 }));
    }) as typeof fetch;
    const res = await tracedFetch("http://user:secret@sink.example:8088/e", {
      method: "post",
      headers: { "content-type": "application/json", traceparent: "stale" },
    }, { fetch: ok, attributes: { "cloudevents.event_id": "x" } });
    assert.equal(res.status, 503);
    const refused = (() => Promise.reject(new TypeError("connection refused"))) as typeof fetch;
    await assert.rejects(tracedFetch("http://127.0.0.1:9/", {}, { fetch: refused }), TypeError);
    const [a, b] = spans();
    assert.equal(a.kind, SpanKind.CLIENT);
    assert.equal(a.name, "POST");
    assert.equal(a.attributes["url.full"], "http://REDACTED:REDACTED@sink.example:8088/e");
    assert.equal(a.attributes["server.address"], "sink.example");
    assert.equal(a.attributes["server.port"], 8088);
    assert.equal(a.attributes["http.response.status_code"], 503);
    assert.equal(a.attributes["error.type"], "503");
    assert.equal(a.attributes["cloudevents.event_id"], "x");
    assert.equal(a.status.code, 2);
    // The header names the client span itself (replacing any traceparent the caller set).
    assert.equal(
      seen[0].get("traceparent"),
      `00-${a.spanContext().traceId}-${a.spanContext().spanId}-01`,
    );
    assert.equal(seen[0].get("content-type"), "application/json");
    assert.equal(b.name, "GET");
    assert.equal(b.attributes["error.type"], "TypeError");
    assert.equal(b.attributes["server.port"], 9);
  });
});

Deno.test("MCP server span: JSON-RPC errors, exceptions, HTTP transport", async () => {
  await withSdk(async (spans) => {
    const http = trace.getTracer("t").startSpan("POST /mcp");
    const parent = trace.setSpan(ROOT_CONTEXT, http);
    const s = startMcpServerSpan({
      method: "resources/read",
      resourceUri: "empiric://proofs/index",
      requestId: "r-1",
      sessionId: "s-1",
      protocolVersion: "2025-06-18",
      transport: "http",
      parent,
    });
    s.end({ jsonRpcErrorCode: -32602 });
    http.end();
    await assert.rejects(
      withMcpServerSpan({ method: "prompts/get", promptName: "explain_proof" }, () => {
        throw new Error("boom");
      }),
    );
    const mcp = spans().find((x) => x.name === "resources/read")!;
    assert.equal(mcp.kind, SpanKind.SERVER);
    assert.equal(mcp.parentSpanContext?.spanId, http.spanContext().spanId); // no _meta: the HTTP span
    assert.deepEqual(mcp.attributes, {
      "mcp.method.name": "resources/read",
      "jsonrpc.request.id": "r-1",
      "mcp.resource.uri": "empiric://proofs/index",
      "mcp.session.id": "s-1",
      "mcp.protocol.version": "2025-06-18",
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "rpc.response.status_code": "-32602",
      "error.type": "-32602",
    });
    const prompt = spans().find((x) => x.name === "prompts/get explain_proof")!;
    assert.equal(prompt.attributes["gen_ai.prompt.name"], "explain_proof");
    assert.equal(prompt.attributes["error.type"], "Error");
    assert.equal(prompt.status.code, 2);
  });
});

Deno.test("producer span: publish {destination}, headers of the producer span", async () => {
  await withSdk(async (spans) => {
    const headers = await withProducerSpan(
      {
        system: "nats",
        destination: "empiric.proofs",
        messageId: "m1",
        bodySize: 10,
        serverAddress: "127.0.0.1",
        serverPort: 4222,
      },
      (h) => Promise.resolve(h),
    );
    const [p] = spans();
    assert.equal(p.name, "publish empiric.proofs");
    assert.equal(p.kind, SpanKind.PRODUCER);
    assert.equal(headers.traceparent, `00-${p.spanContext().traceId}-${p.spanContext().spanId}-01`);
    assert.equal(p.attributes["messaging.system"], "nats");
    assert.equal(p.attributes["messaging.destination.name"], "empiric.proofs");
    assert.equal(p.attributes["messaging.operation.type"], "send");
    assert.equal(p.attributes["messaging.message.id"], "m1");
    assert.equal(p.attributes["server.port"], 4222);
  });
});
