// OpenTelemetry: spans and metrics of run_scenario, verify_proof and canonicalize_value
// received by a loopback OTLP/HTTP receiver (the http/json protocol, whose bodies these tests
// read), in process (setupOtel) and through the CLI entry point (OTEL_EXPORTER_OTLP_ENDPOINT);
// nothing is sent when it is off. The other protocols, against a real OpenTelemetry Collector,
// are in collector_test.ts.
import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import { activeTelemetry, initTelemetryFromEnv, setupOtel } from "../../src/telemetry/otel.ts";
import { ATTR, METRIC_NAMES, SPAN_NAMES } from "../../src/telemetry/instrument.ts";
import { canonicalizeValue } from "../../src/ops/canonicalize_value.ts";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { runCli } from "../support/run_cli.ts";
import { TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import {
  FIXTURE_KEY,
  fixtureText,
  type Received,
  RECORDS,
  startReceiver,
} from "../export/support.ts";

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};
type KeyValue = { key: string; value: AnyValue };
interface OtlpSpan {
  name: string;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
  events?: { name: string }[];
}
interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: { dataPoints: OtlpPoint[]; isMonotonic?: boolean };
  histogram?: { dataPoints: OtlpPoint[] };
}
interface OtlpPoint {
  attributes?: KeyValue[];
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
  sum?: number;
  explicitBounds?: number[];
}

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return undefined;
}

function attrs(kvs: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));
}

function spansOf(
  requests: Received[],
): (OtlpSpan & { attrs: Record<string, unknown>; resource: Record<string, unknown> })[] {
  const out = [];
  for (const r of requests.filter((r) => r.path === "/v1/traces")) {
    assert.match(r.headers["content-type"], /^application\/json/);
    const body = JSON.parse(r.text);
    for (const rs of body.resourceSpans ?? []) {
      const resource = attrs(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        assert.equal(ss.scope?.name, "empiric");
        for (const s of ss.spans ?? []) out.push({ ...s, attrs: attrs(s.attributes), resource });
      }
    }
  }
  return out;
}

function metricsOf(requests: Received[]): Map<string, OtlpMetric> {
  const out = new Map<string, OtlpMetric>();
  for (const r of requests.filter((r) => r.path === "/v1/metrics")) {
    assert.match(r.headers["content-type"], /^application\/json/);
    const body = JSON.parse(r.text);
    for (const rm of body.resourceMetrics ?? []) {
      for (const sm of rm.scopeMetrics ?? []) {
        for (const m of sm.metrics ?? []) out.set(m.name, m);
      }
    }
  }
  return out;
}

function points(
  m: OtlpMetric | undefined,
): { attrs: Record<string, unknown>; value: number; p: OtlpPoint }[] {
  const dps = m?.sum?.dataPoints ?? m?.histogram?.dataPoints ?? [];
  return dps.map((p) => ({
    attrs: attrs(p.attributes),
    value: Number(p.asInt ?? p.asDouble ?? p.count),
    p,
  }));
}

Deno.test({
  name: "setupOtel: spans and metrics of the three operations reach an OTLP/HTTP receiver",
  fn: async () => {
    const rx = startReceiver();
    const telemetry = await setupOtel({
      otlpEndpoint: rx.url,
      protocol: "http/json",
      serviceName: "empiric-test",
      metricExportIntervalMs: 3_600_000,
    });
    assert.equal(activeTelemetry(), telemetry);
    assert.equal(telemetry.tracesEndpoint, `${rx.url}/v1/traces`);
    let runProofId = "";
    let canonicalBytes = 0;
    try {
      canonicalBytes = (await canonicalizeValue('{"b": 1.0, "a": [1, 2]}')).bytes;
      await canonicalizeValue("[1e400]").catch(() => undefined);
      const valid = fixtureText("valid.json");
      assert.equal((await verifyProofImpl(valid, { key: FIXTURE_KEY })).verified, true);
      await verifyProofImpl(valid);
      await verifyProofImpl(fixtureText("tampered-float-to-int.json"), { key: FIXTURE_KEY });
      const env = await testEnv();
      const run = await runScenarioForTest(
        { scenario: "arithmetic-accuracy", substrate: "builtin:calculator" },
        { env, key: TEST_SIGN_KEY },
      );
      runProofId = run.proof_id;
      await assert.rejects(
        runScenarioForTest(
          { scenario: "arithmetic-accuracy", substrate: "cmd:empiric-no-such-program-xyz" },
          { env, key: TEST_SIGN_KEY },
        ),
        (e) => e instanceof EmpiricError && e.code === "substrate_unavailable",
      );
      await assert.rejects(
        runScenarioForTest({ scenario: "no-such-scenario-xyz" }, { env, key: TEST_SIGN_KEY }),
      );
    } finally {
      await telemetry.shutdown();
      await rx.close();
    }
    assert.equal(activeTelemetry(), undefined);
    // After shutdown the global tracer is the no-op one again.
    assert.equal(trace.getTracer("t").startSpan("s").isRecording(), false);

    const spans = spansOf(rx.requests);
    assert.ok(spans.length > 0, "no spans received");
    assert.equal(spans[0].resource["service.name"], "empiric-test");
    assert.equal(spans[0].resource["service.version"], "0.1.0");

    const enc = spans.filter((s) => s.name === SPAN_NAMES.canonicalEncode);
    assert.equal(SPAN_NAMES.canonicalEncode, "empiric.canonical.encode");
    assert.equal(enc.length, 2);
    assert.equal(enc[0].attrs[ATTR.canonicalBytes], canonicalBytes);
    assert.equal(enc[0].attrs["empiric.canonical.bytes"], 19); // {"a":[1,2],"b":1.0}
    assert.equal(enc[1].status?.code, 2); // ERROR
    assert.equal(enc[1].attrs["error.type"], "non_finite_number");

    const ver = spans.filter((s) => s.name === "empiric.proof.verify");
    assert.equal(ver.length, 3);
    assert.deepEqual(
      ver.map((
        s,
      ) => [s.attrs["empiric.verified"], s.attrs["empiric.valid"], s.attrs["empiric.reason"]]),
      [[true, true, undefined], [false, true, undefined], [false, false, "proof_id_mismatch"]],
    );
    assert.match(ver[0].attrs["empiric.proof_id"] as string, /^[0-9a-f]{64}$/);
    assert.equal(ver[0].attrs["empiric.outcome"], "VALIDATED");
    assert.equal(ver[0].attrs["empiric.key_given"], true);
    assert.equal(ver[1].attrs["empiric.key_given"], false);

    const run = spans.find((s) =>
      s.name === "empiric.scenario.run.arithmetic-accuracy" && !s.status?.code
    );
    assert.ok(run, `no run span among ${spans.map((s) => s.name)}`);
    assert.equal(run.attrs["empiric.scenario"], "arithmetic-accuracy");
    assert.equal(run.attrs["empiric.substrate"], "builtin:calculator");
    assert.equal(run.attrs["empiric.proof_id"], runProofId);
    assert.match(run.attrs["empiric.outcome"] as string, /^(VALIDATED|REFUTED|INCONCLUSIVE)$/);
    assert.ok((run.attrs["empiric.measured"] as number) > 0);
    const failed = spans.find((s) =>
      s.name === "empiric.scenario.run.arithmetic-accuracy" && s.status?.code === 2
    );
    assert.ok(failed, "no span for the failed run");
    assert.equal(failed.attrs["error.type"], "substrate_unavailable");
    assert.equal(failed.attrs["empiric.outcome"], "error");
    assert.ok(failed.events?.some((e) => e.name === "exception"));
    // A name that matches no scenario never reaches telemetry (bounded cardinality).
    assert.ok(!spans.some((s) => s.name.includes("no-such-scenario-xyz")), "client name leaked");
    const unresolved = spans.find((s) => s.name === "empiric.scenario.run.(unresolved)");
    assert.ok(unresolved, "a run whose scenario does not resolve is named (unresolved)");

    const metrics = metricsOf(rx.requests);
    for (const name of Object.values(METRIC_NAMES)) assert.ok(metrics.has(name), `metric ${name}`);
    const runs = points(metrics.get("empiric_scenarios_run_total"));
    assert.equal(metrics.get("empiric_scenarios_run_total")!.sum!.isMonotonic, true);
    const byOutcome: Record<string, number> = Object.fromEntries(
      runs.filter((p) => p.attrs["empiric.scenario"] === "arithmetic-accuracy").map((
        p,
      ) => [p.attrs["empiric.outcome"], p.value]),
    );
    assert.equal(byOutcome.error, 1);
    assert.equal(Object.values(byOutcome).reduce((a, b) => a + b, 0), 2);
    assert.ok(
      runs.every((p) =>
        ["arithmetic-accuracy", "(unresolved)"].includes(p.attrs["empiric.scenario"] as string)
      ),
      "only known scenario names label the metrics",
    );
    const dur = metrics.get("empiric_scenario_duration_seconds")!;
    assert.equal(dur.unit, "s");
    assert.ok(dur.histogram, "duration is a histogram");
    const durPoints = points(dur);
    assert.equal(durPoints.reduce((a, p) => a + p.value, 0), 3);
    assert.ok(durPoints.every((p) => (p.p.sum ?? 0) < 600));
    assert.ok(durPoints[0].p.explicitBounds!.includes(1));
    const verified = points(metrics.get("empiric_proofs_verified_total"));
    const byResult = Object.fromEntries(verified.map((p) => [p.attrs["empiric.result"], p]));
    assert.equal(byResult.verified.value, 1);
    assert.equal(byResult.valid.value, 1);
    assert.equal(byResult.failed.value, 1);
    assert.equal(byResult.failed.attrs["empiric.reason"], "proof_id_mismatch");
    const bytes = metrics.get("empiric_canonical_bytes_encoded")!;
    assert.equal(bytes.unit, "By");
    assert.equal(points(bytes).reduce((a, p) => a + p.value, 0), 19);
  },
});

Deno.test({
  name: "off by default: no SDK, non-recording spans, nothing sent",
  fn: async () => {
    assert.equal(activeTelemetry(), undefined);
    assert.equal(trace.getTracer("t").startSpan("s").isRecording(), false);
    const rx = startReceiver();
    try {
      await canonicalizeValue("[1, 2.0]");
      await verifyProofImpl(fixtureText("valid.json"), { key: FIXTURE_KEY });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(rx.requests.length, 0);
    } finally {
      await rx.close();
    }
    // initTelemetryFromEnv leaves it off without an endpoint, when disabled, and under OTEL_DENO.
    const env = (vars: Record<string, string>) => (n: string) => vars[n];
    assert.equal(await initTelemetryFromEnv(env({})), undefined);
    assert.equal(await initTelemetryFromEnv(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })), undefined);
    assert.equal(
      await initTelemetryFromEnv(
        env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_SDK_DISABLED: "true" }),
      ),
      undefined,
    );
    assert.equal(
      await initTelemetryFromEnv(
        env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_DENO: "true" }),
      ),
      undefined,
    );
    assert.equal(
      await initTelemetryFromEnv(
        env({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
          OTEL_TRACES_EXPORTER: "none",
          OTEL_METRICS_EXPORTER: "none",
        }),
      ),
      undefined,
    );
    await assert.rejects(
      initTelemetryFromEnv(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })),
      (e) => e instanceof EmpiricError && e.code === "usage_error",
    );
    await assert.rejects(
      setupOtel({}),
      (e) => e instanceof EmpiricError && e.code === "usage_error",
    );
    assert.equal(activeTelemetry(), undefined);
  },
});

Deno.test({
  name: "initTelemetryFromEnv: per-signal endpoint, headers, resource attributes",
  fn: async () => {
    const rx = startReceiver();
    const t = await initTelemetryFromEnv((n) =>
      ({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${rx.url}/custom/traces`,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=acme,authorization=Bearer%20t0k",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test,service.name=ignored",
        OTEL_SERVICE_NAME: "empiric-ci",
      } as Record<string, string>)[n]
    );
    assert.ok(t);
    assert.equal(t.metricsEndpoint, null);
    try {
      await canonicalizeValue("{}");
    } finally {
      await t.shutdown();
      await rx.close();
    }
    assert.deepEqual(rx.requests.map((r) => r.path), ["/custom/traces"]);
    assert.equal(rx.requests[0].headers["x-tenant"], "acme");
    assert.equal(rx.requests[0].headers.authorization, "Bearer t0k");
    const body = JSON.parse(rx.requests[0].text);
    const resource = attrs(body.resourceSpans[0].resource.attributes);
    assert.equal(resource["service.name"], "empiric-ci");
    assert.equal(resource["deployment.environment"], "test");
  },
});

Deno.test({
  name: "CLI: OTEL_EXPORTER_OTLP_ENDPOINT switches export on and flushes before exit",
  fn: async () => {
    const rx = startReceiver();
    try {
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
      const c = await runCli(["canonicalize", "-", "--sha256"], { stdin: '{"a": 1.0}', env });
      assert.equal(c.code, 0, c.stderr);
      const v = await runCli(["schema", "validate", `${RECORDS}valid.json`], { env });
      assert.equal(v.code, 0, v.stderr);
      const r = await runCli(
        ["run", "arithmetic-accuracy", "--substrate", "builtin:calculator", "--no-store", "-q"],
        { env: { ...env, EMPIRIC_SIGN_KEY: "empiric-test-signing-key-0123456789abcdef" } },
      );
      assert.equal(r.code, 0, r.stderr);
      const names = spansOf(rx.requests).map((s) => s.name);
      assert.deepEqual(names, [
        "empiric.canonical.encode",
        "empiric.proof.verify",
        "empiric.scenario.run.arithmetic-accuracy",
      ]);
      const metrics = metricsOf(rx.requests);
      for (const name of Object.values(METRIC_NAMES)) assert.ok(metrics.has(name), name);

      // Off: disabled, or no endpoint: nothing arrives.
      const before = rx.requests.length;
      const off = await runCli(["canonicalize", "-"], {
        stdin: "[]",
        env: { ...env, OTEL_SDK_DISABLED: "true" },
      });
      assert.equal(off.code, 0);
      const none = await runCli(["canonicalize", "-"], { stdin: "[]" });
      assert.equal(none.code, 0);
      assert.equal(rx.requests.length, before);

      // Traces only.
      const tracesOnly = await runCli(["canonicalize", "-"], {
        stdin: "[]",
        env: { ...env, OTEL_METRICS_EXPORTER: "none" },
      });
      assert.equal(tracesOnly.code, 0);
      assert.deepEqual(rx.requests.slice(before).map((q) => q.path), ["/v1/traces"]);

      // A bad endpoint only warns.
      const bad = await runCli(["canonicalize", "-"], {
        stdin: "[]",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" },
      });
      assert.equal(bad.code, 0);
      assert.equal(bad.stdout, "[]");
      assert.match(bad.stderr, /warning: OpenTelemetry export is off/);
    } finally {
      await rx.close();
    }
  },
});
