// OpenTelemetry against a real OpenTelemetry Collector (built by .ci/build-otelcol with ocb): each
// OTLP protocol (http/protobuf, http/json, grpc) in process and through the CLI's
// OTEL_EXPORTER_OTLP_PROTOCOL; a failing exporter reported once on stderr and never on stdout
// (`mcp serve` over stdio); W3C trace context continued by the server-span helpers and carried
// by the client spans of CloudEvents and OpenLineage posts.
import assert from "node:assert/strict";
import { SpanKind, trace } from "@opentelemetry/api";
import {
  type ExportFailure,
  type OtlpProtocol,
  setupOtel,
  type Telemetry,
} from "../../src/telemetry/otel.ts";
import { SPAN_NAMES } from "../../src/telemetry/instrument.ts";
import { startHttpServerSpan, withHttpServerSpan } from "../../src/telemetry/http.ts";
import { withMcpServerSpan } from "../../src/telemetry/mcp.ts";
import { canonicalizeValue } from "../../src/ops/canonicalize_value.ts";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
import { postCloudEvent, wrap } from "../../src/export/cloudevents.ts";
import { postOpenLineageEvent, toOpenLineageEvent } from "../../src/export/openlineage.ts";
import { CLI_FLAGS, runCli } from "../support/run_cli.ts";
import {
  collectedMetricNames,
  type CollectedSpan,
  collectedSpans,
  type Collector,
  freePort,
  otelcolAvailable,
  startCollector,
} from "../support/otelcol.ts";
import { FIXTURE_KEY, fixtureText, ROOT, startReceiver } from "../export/support.ts";

const available = await otelcolAvailable();

const PROTOCOLS: OtlpProtocol[] = ["http/protobuf", "http/json", "grpc"];

function endpointFor(c: Collector, protocol: OtlpProtocol): string {
  return protocol === "grpc" ? c.grpcEndpoint : c.httpEndpoint;
}

function spansOf(records: Record<string, unknown>[], service: string): CollectedSpan[] {
  return collectedSpans(records).filter((s) => s.resource["service.name"] === service);
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;

async function withCollector(fn: (c: Collector) => Promise<void>): Promise<void> {
  const c = await startCollector();
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

Deno.test({
  name: "collector: spans and metrics arrive over http/protobuf, http/json and grpc",
  ignore: !available,
  fn: () =>
    withCollector(async (c) => {
      for (const protocol of PROTOCOLS) {
        const failures: ExportFailure[] = [];
        const service = `empiric-${protocol.replace("/", "-")}`;
        const t = await setupOtel({
          otlpEndpoint: endpointFor(c, protocol),
          protocol,
          serviceName: service,
          metricExportIntervalMs: 3_600_000,
          onExportFailure: (f) => failures.push(f),
        });
        assert.equal(t.tracesProtocol, protocol);
        assert.equal(
          t.tracesEndpoint,
          protocol === "grpc" ? c.grpcEndpoint : `${c.httpEndpoint}/v1/traces`,
        );
        try {
          await canonicalizeValue('{"b": 1.0, "a": [1, 2]}');
          await verifyProofImpl(fixtureText("valid.json"), { key: FIXTURE_KEY });
        } finally {
          await t.shutdown();
        }
        assert.deepEqual(failures, [], `${protocol}: ${JSON.stringify(failures)}`);
        const records = await c.waitFor((r) =>
          spansOf(r, service).length >= 2 &&
          r.some((x) =>
            JSON.stringify(x).includes(service) && JSON.stringify(x).includes("resourceMetrics")
          )
        );
        const spans = spansOf(records, service);
        const enc = spans.find((s) => s.name === SPAN_NAMES.canonicalEncode);
        assert.ok(enc, `${protocol}: no ${SPAN_NAMES.canonicalEncode} span`);
        assert.equal(enc.attrs["empiric.canonical.bytes"], 19);
        assert.equal(enc.scope, "empiric");
        assert.equal(enc.resource["service.version"], "0.1.0");
        const ver = spans.find((s) => s.name === SPAN_NAMES.verify);
        assert.ok(ver, `${protocol}: no verify span`);
        assert.equal(ver.attrs["empiric.verified"], true);
        assert.equal(ver.attrs["empiric.outcome"], "VALIDATED");
        const metricRecords = records.filter((r) =>
          JSON.stringify(r.resourceMetrics ?? []).includes(service)
        );
        const names = collectedMetricNames(metricRecords);
        assert.ok(names.has("empiric_canonical_bytes_encoded"), `${protocol}: ${[...names]}`);
        assert.ok(names.has("empiric_proofs_verified_total"), `${protocol}: ${[...names]}`);
      }
    }),
});

Deno.test({
  name: "collector: the CLI honours OTEL_EXPORTER_OTLP_PROTOCOL and the per-signal protocols",
  ignore: !available,
  fn: () =>
    withCollector(async (c) => {
      const grpc = await runCli(["canonicalize", "-"], {
        stdin: "[1, 2.0]",
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: c.grpcEndpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
          OTEL_SERVICE_NAME: "cli-grpc",
        },
      });
      assert.equal(grpc.code, 0, grpc.stderr);
      assert.equal(grpc.stdout, "[1,2.0]");
      assert.equal(grpc.stderr, "");
      // Traces over gRPC, metrics over http/json, each to its own endpoint.
      const mixed = await runCli(["canonicalize", "-"], {
        stdin: "{}",
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: c.grpcEndpoint,
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc",
          OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${c.httpEndpoint}/v1/metrics`,
          OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "cli-mixed",
        },
      });
      assert.equal(mixed.code, 0, mixed.stderr);
      assert.equal(mixed.stderr, "");
      const records = await c.waitFor((r) =>
        spansOf(r, "cli-grpc").length > 0 && spansOf(r, "cli-mixed").length > 0 &&
        r.some((x) => JSON.stringify(x.resourceMetrics ?? []).includes("cli-mixed"))
      );
      assert.deepEqual(spansOf(records, "cli-grpc").map((s) => s.name), [
        SPAN_NAMES.canonicalEncode,
      ]);
      assert.deepEqual(spansOf(records, "cli-mixed").map((s) => s.name), [
        SPAN_NAMES.canonicalEncode,
      ]);

      // An unknown protocol: a warning, the command still works, nothing is sent.
      const bad = await runCli(["canonicalize", "-"], {
        stdin: "[]",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: c.httpEndpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "udp" },
      });
      assert.equal(bad.code, 0);
      assert.equal(bad.stdout, "[]");
      assert.match(
        bad.stderr,
        /OpenTelemetry export is off: OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json, grpc, got "udp"/,
      );
    }),
});

Deno.test({
  name: "a failing exporter is reported once per signal, with its endpoint and protocol",
  // No collector needed: nothing listens on the port.
  fn: async () => {
    for (const protocol of PROTOCOLS) {
      const port = freePort();
      const failures: ExportFailure[] = [];
      const t: Telemetry = await setupOtel({
        otlpEndpoint: `http://127.0.0.1:${port}`,
        protocol,
        spanExportDelayMs: 10,
        exportTimeoutMs: 2000,
        onExportFailure: (f) => failures.push(f),
      });
      try {
        for (let i = 0; i < 3; i++) {
          await canonicalizeValue(`[${i}]`);
          await t.forceFlush().catch(() => undefined);
        }
      } finally {
        await t.shutdown();
      }
      const bySignal = failures.map((f) => f.signal).sort();
      assert.deepEqual(bySignal, ["metrics", "traces"], `${protocol}: ${JSON.stringify(failures)}`);
      const traces = failures.find((f) => f.signal === "traces")!;
      assert.equal(traces.protocol, protocol);
      assert.equal(
        traces.endpoint,
        protocol === "grpc" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1/traces`,
      );
      assert.ok(traces.message.includes(traces.endpoint), traces.message);
      assert.ok(traces.message.includes(`(${protocol})`), traces.message);
    }
  },
});

async function mcpStdioCall(env: Record<string, string>): Promise<{
  stdout: string[];
  stderr: string;
  code: number;
}> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, `${ROOT}mcp.ts`],
    env: {
      NO_COLOR: "1",
      HOME: Deno.env.get("HOME") ?? "/root",
      PATH: Deno.env.get("PATH") ?? "",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      ...env,
    },
    clearEnv: true,
    cwd: await Deno.makeTempDir({ prefix: "empiric-mcp-otel-" }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  const lines: string[] = [];
  let buf = "";
  const until = async (id: number) => {
    for (;;) {
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stdout ended before the response ${id}`);
        buf += value;
      }
      const line = buf.slice(0, buf.indexOf("\n"));
      buf = buf.slice(buf.indexOf("\n") + 1);
      lines.push(line);
      if (JSON.parse(line).id === id) return;
    }
  };
  const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "otel-test", version: "1" },
    },
  });
  await until(1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "canonicalize_value", arguments: { value_json: "[1, 2.0]" } },
  });
  await until(2);
  await w.close();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
  }
  lines.push(...buf.split("\n").filter((l) => l !== ""));
  const status = await child.status;
  return { stdout: lines, stderr: await stderr, code: status.code };
}

Deno.test("mcp serve (stdio): a collector that is down is reported on stderr once per signal; stdout stays JSON-RPC", async () => {
  const port = freePort();
  const r = await mcpStdioCall({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_TIMEOUT: "2000",
  });
  for (const line of r.stdout) {
    const m = JSON.parse(line);
    assert.equal(m.jsonrpc, "2.0", line);
  }
  assert.ok(r.stdout.some((l) => l.includes("[1,2.0]")), r.stdout.join("\n"));
  const warnings = r.stderr.split("\n").filter((l) => l.includes("OpenTelemetry"));
  assert.deepEqual(warnings.map((l) => l.match(/OpenTelemetry (\w+) export/)?.[1]).sort(), [
    "metric",
    "trace",
  ], r.stderr);
  assert.ok(
    warnings.some((l) =>
      l.startsWith(
        `empiric: warning: OpenTelemetry trace export to http://127.0.0.1:${port}/v1/traces (http/protobuf) failed:`,
      )
    ),
    r.stderr,
  );
});

Deno.test({
  name:
    "collector: server spans continue an incoming traceparent (HTTP and MCP _meta); client spans carry it to CloudEvents and OpenLineage sinks",
  ignore: !available,
  fn: () =>
    withCollector(async (c) => {
      const sink = startReceiver();
      const t = await setupOtel({
        otlpEndpoint: c.httpEndpoint,
        serviceName: "empiric-propagation",
        metrics: false,
      });
      const record = fixtureText("valid.json");
      try {
        // An HTTP request arriving with a traceparent; its handler posts a CloudEvent.
        const res = await withHttpServerSpan(
          new Request("http://127.0.0.1:8080/proofs?limit=5", {
            method: "POST",
            headers: { traceparent: TRACEPARENT, "user-agent": "curl/8.0" },
          }),
          { clientAddress: "127.0.0.1", protocolVersion: "1.1" },
          async (s) => {
            s.setRoute("/proofs");
            await postCloudEvent(sink.url + "/events", await wrap(record, { source: "urn:t" }));
            return new Response(null, { status: 201 });
          },
        );
        assert.equal(res.status, 201);
        // A 5xx answer marks the server span as an error.
        const failed = startHttpServerSpan(new Request("http://127.0.0.1:8080/verify"), {
          route: "/verify",
        });
        failed.end({ status: 503 });
        // An MCP tools/call whose _meta carries the trace; the tool posts an OpenLineage event.
        await withMcpServerSpan(
          {
            method: "tools/call",
            toolName: "run_scenario",
            requestId: 3,
            transport: "stdio",
            meta: { traceparent: TRACEPARENT, tracestate: "vendor=1" },
          },
          async () => {
            await postOpenLineageEvent(sink.url + "/lineage", await toOpenLineageEvent(record));
            return { content: [], isError: true };
          },
        );
        // An outgoing post with no incoming trace starts a new trace, still propagated.
        await postCloudEvent(sink.url + "/solo", await wrap(record, { source: "urn:t" }));
      } finally {
        await t.shutdown();
        await sink.close();
      }
      const records = await c.waitFor((r) => spansOf(r, "empiric-propagation").length >= 6);
      const spans = spansOf(records, "empiric-propagation");
      const server = spans.find((s) => s.name === "POST /proofs");
      assert.ok(server, spans.map((s) => s.name).join(", "));
      assert.equal(server.kind, SpanKind.SERVER + 1); // OTLP enums count from UNSPECIFIED = 0
      assert.equal(server.traceId, TRACE_ID);
      assert.equal(server.parentSpanId, PARENT_SPAN_ID);
      assert.deepEqual(
        {
          method: server.attrs["http.request.method"],
          route: server.attrs["http.route"],
          path: server.attrs["url.path"],
          query: server.attrs["url.query"],
          scheme: server.attrs["url.scheme"],
          host: server.attrs["server.address"],
          port: server.attrs["server.port"],
          status: server.attrs["http.response.status_code"],
          ua: server.attrs["user_agent.original"],
          client: server.attrs["client.address"],
          version: server.attrs["network.protocol.version"],
        },
        {
          method: "POST",
          route: "/proofs",
          path: "/proofs",
          query: "limit=5",
          scheme: "http",
          host: "127.0.0.1",
          port: 8080,
          status: 201,
          ua: "curl/8.0",
          client: "127.0.0.1",
          version: "1.1",
        },
      );
      const bad = spans.find((s) => s.name === "GET /verify")!;
      assert.equal(bad.status?.code, 2);
      assert.equal(bad.attrs["error.type"], "503");

      const clients = spans.filter((s) => s.kind === SpanKind.CLIENT + 1);
      const ceClient = clients.find((s) => String(s.attrs["url.full"]).endsWith("/events"))!;
      assert.ok(ceClient, "no client span for the CloudEvent post");
      assert.equal(ceClient.name, "POST");
      assert.equal(ceClient.traceId, TRACE_ID);
      assert.equal(ceClient.parentSpanId, server.spanId);
      assert.equal(ceClient.attrs["http.response.status_code"], 200);
      assert.equal(ceClient.attrs["cloudevents.event_type"], "dev.empiric.proof.v1");
      const ceRequest = sink.requests.find((r) => r.path === "/events")!;
      assert.equal(ceRequest.headers.traceparent, `00-${TRACE_ID}-${ceClient.spanId}-01`);

      const mcp = spans.find((s) => s.name === "tools/call run_scenario")!;
      assert.ok(mcp, spans.map((s) => s.name).join(", "));
      assert.equal(mcp.kind, SpanKind.SERVER + 1);
      assert.equal(mcp.traceId, TRACE_ID);
      assert.equal(mcp.parentSpanId, PARENT_SPAN_ID);
      assert.equal(mcp.attrs["mcp.method.name"], "tools/call");
      assert.equal(mcp.attrs["gen_ai.tool.name"], "run_scenario");
      assert.equal(mcp.attrs["jsonrpc.request.id"], "3");
      assert.equal(mcp.attrs["network.transport"], "pipe");
      assert.equal(mcp.attrs["error.type"], "tool_error");
      const olClient = clients.find((s) => String(s.attrs["url.full"]).endsWith("/lineage"))!;
      assert.ok(olClient, "no client span for the OpenLineage post");
      assert.equal(olClient.parentSpanId, mcp.spanId);
      const olRequest = sink.requests.find((r) => r.path === "/lineage")!;
      assert.equal(olRequest.headers.traceparent, `00-${TRACE_ID}-${olClient.spanId}-01`);
      assert.equal(olRequest.headers.tracestate, "vendor=1");

      const solo = clients.find((s) => String(s.attrs["url.full"]).endsWith("/solo"))!;
      assert.equal(solo.parentSpanId ?? "", "");
      assert.notEqual(solo.traceId, TRACE_ID);
      const soloRequest = sink.requests.find((r) => r.path === "/solo")!;
      assert.equal(soloRequest.headers.traceparent, `00-${solo.traceId}-${solo.spanId}-01`);
    }),
});

// Telemetry off: spans are no-ops and there is no context manager, so nothing is propagated.
Deno.test("without an SDK: outgoing posts carry no traceparent", async () => {
  assert.equal(trace.getTracer("t").startSpan("s").isRecording(), false);
  const sink = startReceiver();
  try {
    const record = fixtureText("valid.json");
    await postCloudEvent(sink.url + "/plain", await wrap(record, { source: "urn:t" }));
    await withHttpServerSpan(
      new Request("http://localhost/x", { headers: { traceparent: TRACEPARENT } }),
      {},
      async () => {
        await postCloudEvent(sink.url + "/continued", await wrap(record, { source: "urn:t" }));
        return new Response("ok");
      },
    );
  } finally {
    await sink.close();
  }
  assert.equal(sink.requests.length, 2);
  for (const r of sink.requests) assert.equal(r.headers.traceparent, undefined, r.path);
});
