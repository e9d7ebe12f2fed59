// The servers continue their callers' traces: `empiric http serve` answers each request in a
// SERVER span (HTTP semantic conventions) continuing the request's W3C `traceparent`, and
// `empiric mcp serve` handles each tool call in a SERVER span continuing `_meta.traceparent`;
// the operations' own spans are their children. Checked with a real OpenTelemetry Collector.
import assert from "node:assert/strict";
import { collectedSpans, otelcolAvailable, startCollector } from "../support/otelcol.ts";
import { RECORDS, startServer } from "../http/support.ts";
import { childEnv, FIXTURE_KEY_TEXT, serveArgs, tempDirs } from "../mcp/support.ts";

const available = await otelcolAvailable();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;

Deno.test({
  name: "http serve: requests continue the caller's traceparent in SERVER spans",
  ignore: !available,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const c = await startCollector();
    const dir = await Deno.makeTempDir();
    const server = await startServer(["http", "serve", "--port", "0", "--store", `${dir}/s`], {
      env: {
        EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT,
        OTEL_EXPORTER_OTLP_ENDPOINT: c.httpEndpoint,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_SERVICE_NAME: "empiric-http-test",
      },
      cwd: dir,
    });
    try {
      const res = await fetch(`${server.url}/verify`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: TRACEPARENT },
        body: JSON.stringify({ proof_json: await Deno.readTextFile(`${RECORDS}valid.json`) }),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await (await fetch(`${server.url}/scenarios/echo-latency`)).body?.cancel();
      const records = await c.waitFor((r) =>
        collectedSpans(r).some((s) => s.name === "GET /scenarios/{name}")
      );
      const spans = collectedSpans(records);
      const http = spans.find((s) => s.name === "POST /verify");
      assert.ok(http, spans.map((s) => s.name).join(", "));
      assert.equal(http.traceId, TRACE, "the caller's trace continues");
      assert.equal(http.parentSpanId, PARENT);
      assert.equal(http.kind, 2, "SERVER");
      assert.equal(http.attrs["http.request.method"], "POST");
      assert.equal(http.attrs["http.route"], "/verify");
      assert.equal(http.attrs["http.response.status_code"], 200);
      assert.equal(http.attrs["url.path"], "/verify");
      const verify = spans.find((s) => s.name === "empiric.proof.verify");
      assert.ok(verify);
      assert.equal(verify.traceId, TRACE);
      assert.equal(verify.parentSpanId, http.spanId, "the operation's span is a child");
      const get = spans.find((s) => s.name === "GET /scenarios/{name}")!;
      assert.notEqual(get.traceId, TRACE, "a request without traceparent starts its own trace");
      assert.equal(get.attrs["url.path"], "/scenarios/echo-latency");
    } finally {
      await server.stop();
      await c.close();
    }
  },
});

Deno.test({
  name: "mcp serve: a tool call continues _meta.traceparent in a SERVER span",
  ignore: !available,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const c = await startCollector();
    const dirs = await tempDirs();
    const child = new Deno.Command(Deno.execPath(), {
      args: serveArgs(["--scenario-dir", dirs.scenarios]),
      env: childEnv({
        EMPIRIC_STORE: dirs.store,
        EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT,
        OTEL_EXPORTER_OTLP_ENDPOINT: c.httpEndpoint,
        OTEL_BSP_SCHEDULE_DELAY: "100",
      }),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      const w = child.stdin.getWriter();
      const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
      await send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      });
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "canonicalize_value",
          arguments: { value_json: "[1, 1.0]" },
          _meta: { traceparent: TRACEPARENT },
        },
      });
      const records = await c.waitFor((r) =>
        collectedSpans(r).some((s) => s.name === "tools/call canonicalize_value")
      );
      await w.close();
      await child.output();
      const spans = collectedSpans(records);
      const call = spans.find((s) => s.name === "tools/call canonicalize_value")!;
      assert.equal(call.traceId, TRACE);
      assert.equal(call.parentSpanId, PARENT);
      assert.equal(call.kind, 2);
      assert.equal(call.attrs["mcp.method.name"], "tools/call");
      const encode = spans.find((s) => s.name === "empiric.canonical.encode");
      assert.ok(encode);
      assert.equal(encode.parentSpanId, call.spanId);
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await c.close();
      await Deno.remove(dirs.root, { recursive: true }).catch(() => {});
    }
  },
});
