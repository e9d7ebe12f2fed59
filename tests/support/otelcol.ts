// A real OpenTelemetry Collector for the telemetry tests: the `otelcol-empiric` binary built by
// .ci/build-otelcol with the collector builder (ocb) from the Go module proxy (OTLP receiver for
// HTTP and gRPC, file exporter). Each test starts its own on 127.0.0.1 with free ports and reads
// what the file exporter wrote: one OTLP/JSON export request per line.
import { peer } from "./peers.ts";

/** The collector version .ci/build-otelcol builds. */
export const OTELCOL_VERSION = "v0.161.0";

function home(): string {
  return Deno.env.get("HOME") ?? "/root";
}

/** Where the collector binary is: `EMPIRIC_OTELCOL`, else the CI cache. */
export const OTELCOL_BIN = Deno.env.get("EMPIRIC_OTELCOL") ??
  `${
    Deno.env.get("EMPIRIC_CI_CACHE") ?? `${home()}/.cache/empiric-ci`
  }/otelcol-${OTELCOL_VERSION}/otelcol-empiric`;

/** Whether the collector is built (ignored with the build command when not; CI requires it). */
export function otelcolAvailable(): Promise<boolean> {
  return peer(
    `the OpenTelemetry Collector (${OTELCOL_BIN})`,
    async () => {
      try {
        return (await new Deno.Command(OTELCOL_BIN, {
          args: ["components"],
          stdout: "null",
          stderr: "null",
        }).output()).success;
      } catch {
        return false;
      }
    },
    "bash .ci/build-otelcol (needs Go; or set EMPIRIC_OTELCOL)",
  );
}

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitForPort(port: number, deadline: number, proc: Deno.ChildProcess) {
  let exited = false;
  proc.status.then(() => exited = true);
  while (Date.now() < deadline) {
    if (exited) throw new Error("the collector exited during start-up");
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`the collector did not listen on 127.0.0.1:${port} in time`);
}

/** A running collector. */
export interface Collector {
  /** `http://127.0.0.1:<port>` of the OTLP/HTTP receiver. */
  readonly httpEndpoint: string;
  /** `http://127.0.0.1:<port>` of the OTLP/gRPC receiver. */
  readonly grpcEndpoint: string;
  /** Every export request the file exporter wrote so far (parsed OTLP/JSON lines). */
  records(): Promise<Record<string, unknown>[]>;
  /** Wait until `ready(records)` holds (polling the file), or fail after `timeoutMs`. */
  waitFor(
    ready: (records: Record<string, unknown>[]) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>[]>;
  /** What the collector wrote on standard error (its log). */
  log(): string;
  /** Stop the collector and remove its files. */
  close(): Promise<void>;
}

/** Start a collector on free loopback ports with the OTLP receiver and the file exporter. */
export async function startCollector(): Promise<Collector> {
  const dir = await Deno.makeTempDir({ prefix: "empiric-otelcol-" });
  const out = `${dir}/export.jsonl`;
  const grpcPort = freePort();
  const httpPort = freePort();
  // The collector's own telemetry is off (no fixed port 8888 shared between test runs).
  const config = `
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${grpcPort}
      http:
        endpoint: 127.0.0.1:${httpPort}
exporters:
  file:
    path: ${out}
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
    metrics:
      receivers: [otlp]
      exporters: [file]
`;
  await Deno.writeTextFile(`${dir}/config.yaml`, config);
  const proc = new Deno.Command(OTELCOL_BIN, {
    args: ["--config", `${dir}/config.yaml`],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const logDone = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr) log += dec.decode(chunk, { stream: true });
  })();
  try {
    const deadline = Date.now() + 30_000;
    await waitForPort(httpPort, deadline, proc);
    await waitForPort(grpcPort, deadline, proc);
  } catch (e) {
    try {
      proc.kill("SIGKILL");
    } catch { /* already gone */ }
    await proc.status;
    await logDone;
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
    throw new Error(`${(e as Error).message}:\n${log}`);
  }

  const records = async () => {
    let text = "";
    try {
      text = await Deno.readTextFile(out);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
  };
  return {
    httpEndpoint: `http://127.0.0.1:${httpPort}`,
    grpcEndpoint: `http://127.0.0.1:${grpcPort}`,
    records,
    async waitFor(ready, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await records();
        if (ready(r)) return r;
        if (Date.now() > deadline) {
          throw new Error(
            `the collector's file exporter did not write what was expected in ${timeoutMs} ms; it has ${r.length} records:\n${
              JSON.stringify(r).slice(0, 2000)
            }\ncollector log:\n${log}`,
          );
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    },
    log: () => log,
    async close() {
      try {
        proc.kill("SIGTERM");
      } catch { /* already gone */ }
      await proc.status;
      await logDone;
      await Deno.remove(dir, { recursive: true }).catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reading OTLP/JSON (what the file exporter writes)

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};
type KeyValue = { key: string; value: AnyValue };

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return undefined;
}

/** OTLP attributes as a plain object. */
export function otlpAttrs(kvs: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));
}

/** A span as the file exporter writes it, with its attributes and resource flattened. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number; message?: string };
  events?: { name: string }[];
  attrs: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string;
}

/** Every span in the collected export requests. */
export function collectedSpans(records: Record<string, unknown>[]): CollectedSpan[] {
  const out: CollectedSpan[] = [];
  for (const r of records) {
    for (const rs of (r.resourceSpans as Record<string, unknown>[] | undefined) ?? []) {
      const resource = otlpAttrs((rs.resource as { attributes?: KeyValue[] })?.attributes);
      for (const ss of (rs.scopeSpans as Record<string, unknown>[] | undefined) ?? []) {
        const scope = (ss.scope as { name?: string })?.name ?? "";
        for (const s of (ss.spans as Record<string, unknown>[] | undefined) ?? []) {
          out.push({
            ...(s as unknown as CollectedSpan),
            attrs: otlpAttrs(s.attributes as KeyValue[]),
            resource,
            scope,
          });
        }
      }
    }
  }
  return out;
}

/** Names of every metric in the collected export requests. */
export function collectedMetricNames(records: Record<string, unknown>[]): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    for (const rm of (r.resourceMetrics as Record<string, unknown>[] | undefined) ?? []) {
      for (const sm of (rm.scopeMetrics as Record<string, unknown>[] | undefined) ?? []) {
        for (const m of (sm.metrics as { name: string }[] | undefined) ?? []) out.add(m.name);
      }
    }
  }
  return out;
}
