/**
 * Installing OpenTelemetry export (`setupOtel({ otlpEndpoint })`): the npm
 * OpenTelemetry SDK (traces and metrics) with the official OTLP exporter of the chosen protocol:
 *
 * | protocol | package | where it sends |
 * | --- | --- | --- |
 * | `http/protobuf` (default, as the OpenTelemetry specification says) | `@opentelemetry/exporter-{trace,metrics}-otlp-proto` | `<endpoint>/v1/traces`, `<endpoint>/v1/metrics` |
 * | `http/json` | `@opentelemetry/exporter-{trace,metrics}-otlp-http` | the same paths, JSON bodies |
 * | `grpc` | `@opentelemetry/exporter-{trace,metrics}-otlp-grpc` (on `@grpc/grpc-js`) | the endpoint itself (e.g. `http://localhost:4317`) |
 *
 * Off by default. Entry points (the CLI, `empiric http serve`, `empiric mcp serve`) call
 * {@link initTelemetryFromEnv} once at start and {@link Telemetry.shutdown} before exit; it
 * switches export on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint) is set.
 * The SDK and the exporter are loaded only then.
 *
 * An exporter that fails (collector down, wrong protocol, refused) is reported once, on standard
 * error (never standard output: `empiric mcp serve` speaks JSON-RPC there), naming the signal,
 * the endpoint and the protocol; the work it instruments goes on.
 *
 * @module
 */
import * as otelApi from "@opentelemetry/api";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { UsageError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { W3C_PROPAGATOR } from "./propagation.ts";
import { activeTelemetry, setActiveTelemetry } from "./active.ts";
import { useOtelApi } from "./instrument.ts";

useOtelApi(otelApi);

/** OTLP transport protocols (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json", "grpc"] as const;
/** An OTLP transport protocol. */
export type OtlpProtocol = typeof OTLP_PROTOCOLS[number];
/** The protocol used when none is given: `http/protobuf`, the OpenTelemetry specification's default. */
export const DEFAULT_OTLP_PROTOCOL: OtlpProtocol = "http/protobuf";

/** A telemetry signal empiric exports. */
export type OtelSignal = "traces" | "metrics";

/** What {@link OtelOptions.onExportFailure} is told the first time an exporter fails. */
export interface ExportFailure {
  /** The signal whose export failed. */
  readonly signal: OtelSignal;
  /** Where it was sent. */
  readonly endpoint: string;
  /** How it was sent. */
  readonly protocol: OtlpProtocol;
  /** Why it failed, as the exporter says it. */
  readonly reason: string;
  /** One line for a person: signal, endpoint, protocol and reason. */
  readonly message: string;
}

/** Options of {@link setupOtel}. */
export interface OtelOptions {
  /**
   * Base URL of an OTLP receiver (e.g. `http://localhost:4318` for HTTP, `http://localhost:4317`
   * for gRPC); over HTTP `/v1/traces` and `/v1/metrics` are appended, over gRPC it is used as is.
   */
  otlpEndpoint?: string;
  /** Full URL for traces (used verbatim; default from `otlpEndpoint`). */
  tracesEndpoint?: string;
  /** Full URL for metrics (used verbatim; default from `otlpEndpoint`). */
  metricsEndpoint?: string;
  /** Transport protocol of both signals (default {@link DEFAULT_OTLP_PROTOCOL}). */
  protocol?: OtlpProtocol;
  /** Transport protocol of traces (default `protocol`). */
  tracesProtocol?: OtlpProtocol;
  /** Transport protocol of metrics (default `protocol`). */
  metricsProtocol?: OtlpProtocol;
  /** Export traces (default true). */
  traces?: boolean;
  /** Export metrics (default true). */
  metrics?: boolean;
  /** `service.name` of the resource (default `empiric`). */
  serviceName?: string;
  /** More resource attributes. */
  resourceAttributes?: Record<string, string>;
  /** Headers sent with every export request (gRPC: metadata). */
  headers?: Record<string, string>;
  /** Interval of periodic metric export in ms (default 60 000; a final export happens at shutdown). */
  metricExportIntervalMs?: number;
  /** Delay before a batch of spans is sent, in ms (default 1 000). */
  spanExportDelayMs?: number;
  /** Give up on one export after this many ms (default 10 000). */
  exportTimeoutMs?: number;
  /**
   * Told once per exporter, at its first failed export (later failures of the same exporter
   * are not reported again). Default: one line on standard error.
   */
  onExportFailure?: (failure: ExportFailure) => void;
}

/** An installed telemetry pipeline. */
export interface Telemetry {
  /** Where traces go (null when traces are off). */
  readonly tracesEndpoint: string | null;
  /** Where metrics go (null when metrics are off). */
  readonly metricsEndpoint: string | null;
  /** How traces are sent (null when traces are off). */
  readonly tracesProtocol: OtlpProtocol | null;
  /** How metrics are sent (null when metrics are off). */
  readonly metricsProtocol: OtlpProtocol | null;
  /** Send everything recorded so far. */
  forceFlush(): Promise<void>;
  /**
   * Send everything recorded so far (waiting at most `timeoutMs`, default 5 000), stop, and
   * unregister the global providers.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

export { activeTelemetry };

function join(base: string, path: string): string {
  return base.replace(/\/+$/, "") + path;
}

function checkUrl(url: string, what: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${what} is not a URL: ${JSON.stringify(url)}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new UsageError(`${what} must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  return url;
}

function checkProtocol(p: string | undefined, what: string): OtlpProtocol | undefined {
  if (p === undefined) return undefined;
  if ((OTLP_PROTOCOLS as readonly string[]).includes(p)) return p as OtlpProtocol;
  throw new UsageError(
    `${what} must be one of ${OTLP_PROTOCOLS.join(", ")}, got ${JSON.stringify(p)}`,
  );
}

/** Where one signal goes: a per-signal URL verbatim, else the base (with the path over HTTP). */
function endpointOf(
  signal: OtelSignal,
  protocol: OtlpProtocol,
  base: string | undefined,
  specific: string | undefined,
): string | null {
  if (specific) return checkUrl(specific, `the ${signal} endpoint`);
  if (!base) return null;
  checkUrl(base, "the OTLP endpoint");
  return protocol === "grpc" ? base : join(base, `/v1/${signal}`);
}

/** The methods of an OTLP exporter this module calls (both signals' exporters have them). */
interface ExporterLike<T> {
  export(items: T, done: (result: { code: number; error?: Error }) => void): void;
}

function defaultFailureReport(f: ExportFailure): void {
  console.error(`empiric: warning: ${f.message}`);
}

/** Report the first failed export of `exporter` (once), then pass every result on unchanged. */
function reportFirstFailure<T, E extends ExporterLike<T>>(
  exporter: E,
  signal: OtelSignal,
  endpoint: string,
  protocol: OtlpProtocol,
  report: (f: ExportFailure) => void,
): E {
  const send = exporter.export.bind(exporter);
  let reported = false;
  exporter.export = (items, done) =>
    send(items, (result) => {
      if (result.code !== 0 && !reported) {
        reported = true;
        const reason = result.error?.message || "the export failed";
        const what = signal === "traces" ? "trace" : "metric";
        try {
          report({
            signal,
            endpoint,
            protocol,
            reason,
            message:
              `OpenTelemetry ${what} export to ${endpoint} (${protocol}) failed: ${reason}; later failures of this exporter are not reported`,
          });
        } catch {
          // A reporter that throws must not break the export pipeline.
        }
      }
      done(result);
    });
  return exporter;
}

async function grpcMetadata(headers: Record<string, string> | undefined) {
  if (!headers || Object.keys(headers).length === 0) return undefined;
  const { Metadata } = await import("@grpc/grpc-js");
  const m = new Metadata();
  for (const [k, v] of Object.entries(headers)) m.set(k.toLowerCase(), v);
  return m;
}

async function traceExporter(
  protocol: OtlpProtocol,
  url: string,
  options: OtelOptions,
): Promise<ExporterLike<unknown>> {
  const common = { url, timeoutMillis: options.exportTimeoutMs ?? 10_000 };
  if (protocol === "grpc") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-grpc");
    return new OTLPTraceExporter({ ...common, metadata: await grpcMetadata(options.headers) });
  }
  const { OTLPTraceExporter } = protocol === "http/json"
    ? await import("@opentelemetry/exporter-trace-otlp-http")
    : await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ ...common, headers: options.headers });
}

async function metricExporter(
  protocol: OtlpProtocol,
  url: string,
  options: OtelOptions,
): Promise<ExporterLike<unknown>> {
  const common = { url, timeoutMillis: options.exportTimeoutMs ?? 10_000 };
  if (protocol === "grpc") {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-grpc");
    return new OTLPMetricExporter({ ...common, metadata: await grpcMetadata(options.headers) });
  }
  const { OTLPMetricExporter } = protocol === "http/json"
    ? await import("@opentelemetry/exporter-metrics-otlp-http")
    : await import("@opentelemetry/exporter-metrics-otlp-proto");
  return new OTLPMetricExporter({ ...common, headers: options.headers });
}

/**
 * Install the OpenTelemetry SDK with OTLP exporters for traces and metrics and register it
 * globally (with the W3C Trace Context propagator), so that every `run_scenario`,
 * `verify_proof` and `canonicalize_value` call emits its span and metrics. Calling it again
 * replaces the previous pipeline (after flushing it).
 *
 * @example
 * ```ts ignore
 * import { setupOtel } from "./otel.ts";
 * const telemetry = await setupOtel({ otlpEndpoint: "http://localhost:4318" });
 * // ... work ...
 * await telemetry.shutdown();
 * ```
 */
export async function setupOtel(options: OtelOptions): Promise<Telemetry> {
  const wantTraces = options.traces ?? true;
  const wantMetrics = options.metrics ?? true;
  const protocol = checkProtocol(options.protocol, "the OTLP protocol") ?? DEFAULT_OTLP_PROTOCOL;
  const tracesProtocol = checkProtocol(options.tracesProtocol, "the traces protocol") ?? protocol;
  const metricsProtocol = checkProtocol(options.metricsProtocol, "the metrics protocol") ??
    protocol;
  const tracesUrl = wantTraces
    ? endpointOf("traces", tracesProtocol, options.otlpEndpoint, options.tracesEndpoint)
    : null;
  const metricsUrl = wantMetrics
    ? endpointOf("metrics", metricsProtocol, options.otlpEndpoint, options.metricsEndpoint)
    : null;
  if (tracesUrl === null && metricsUrl === null) {
    throw new UsageError("setupOtel needs an otlpEndpoint (or a traces or metrics endpoint)");
  }
  const report = options.onExportFailure ?? defaultFailureReport;
  await activeTelemetry()?.shutdown();

  const [{ resourceFromAttributes }, { AsyncLocalStorageContextManager }] = await Promise.all([
    import("@opentelemetry/resources"),
    import("@opentelemetry/context-async-hooks"),
  ]);
  const resource = resourceFromAttributes({
    "service.version": EMPIRIC_VERSION,
    ...options.resourceAttributes,
    "service.name": options.serviceName ?? options.resourceAttributes?.["service.name"] ??
      "empiric",
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(W3C_PROPAGATOR);

  let tracerProvider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined;
  if (tracesUrl) {
    const [{ TracerProvider, BatchSpanProcessor }, exporter] = await Promise.all([
      import("@opentelemetry/sdk-trace"),
      traceExporter(tracesProtocol, tracesUrl, options),
    ]);
    const provider = new TracerProvider({
      resource,
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: reportFirstFailure(exporter, "traces", tracesUrl, tracesProtocol, report) as // deno-lint-ignore no-explicit-any
          any,
          scheduledDelayMillis: options.spanExportDelayMs ?? 1000,
        }),
      ],
    });
    trace.setGlobalTracerProvider(provider);
    tracerProvider = provider;
  }
  let meterProvider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined;
  if (metricsUrl) {
    const [{ MeterProvider, PeriodicExportingMetricReader }, exporter] = await Promise.all([
      import("@opentelemetry/sdk-metrics"),
      metricExporter(metricsProtocol, metricsUrl, options),
    ]);
    const provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: reportFirstFailure(exporter, "metrics", metricsUrl, metricsProtocol, report) as // deno-lint-ignore no-explicit-any
          any,
          exportIntervalMillis: options.metricExportIntervalMs ?? 60_000,
          exportTimeoutMillis: Math.min(
            options.exportTimeoutMs ?? 10_000,
            options.metricExportIntervalMs ?? 60_000,
          ),
        }),
      ],
    });
    metrics.setGlobalMeterProvider(provider);
    meterProvider = provider;
  }

  let stopped = false;
  const telemetry: Telemetry = {
    tracesEndpoint: tracesUrl,
    metricsEndpoint: metricsUrl,
    tracesProtocol: tracesUrl ? tracesProtocol : null,
    metricsProtocol: metricsUrl ? metricsProtocol : null,
    async forceFlush() {
      if (stopped) return;
      await Promise.all([tracerProvider?.forceFlush(), meterProvider?.forceFlush()]);
    },
    async shutdown(timeoutMs = 5000) {
      if (stopped) return;
      stopped = true;
      if (activeTelemetry() === telemetry) setActiveTelemetry(undefined);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]),
        new Promise((r) => timer = setTimeout(r, timeoutMs)),
      ]);
      clearTimeout(timer);
      if (tracerProvider) trace.disable();
      if (meterProvider) metrics.disable();
      propagation.disable();
      context.disable();
      contextManager.disable();
    },
  };
  setActiveTelemetry(telemetry);
  return telemetry;
}

/** Reads an environment variable (the CLI passes its host's; default `Deno.env.get`). */
export type EnvReader = (name: string) => string | undefined;

function denoEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no --allow-env: telemetry stays off
  }
}

function parseHeaders(text: string | undefined): Record<string, string> | undefined {
  if (!text) return undefined;
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const i = part.indexOf("=");
    if (i <= 0) continue;
    out[decodeURIComponent(part.slice(0, i).trim())] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

function parseResourceAttributes(text: string | undefined): Record<string, string> | undefined {
  return parseHeaders(text);
}

/** Options of {@link initTelemetryFromEnv} that no environment variable sets. */
export interface TelemetryEnvOptions {
  /** See {@link OtelOptions.onExportFailure} (entry points pass their standard error). */
  onExportFailure?: (failure: ExportFailure) => void;
}

/**
 * Switch telemetry on from the standard environment variables, once per process. Returns the
 * pipeline, or undefined when telemetry stays off. Entry points call this at start and
 * `shutdown()` on the result before they exit.
 *
 * | variable | effect |
 * | --- | --- |
 * | `OTEL_EXPORTER_OTLP_ENDPOINT` | base URL; switches export on |
 * | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` | per-signal URLs (verbatim); either one switches export on |
 * | `OTEL_EXPORTER_OTLP_PROTOCOL` | `http/protobuf` (default), `http/json` or `grpc` |
 * | `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL` | per-signal protocol |
 * | `OTEL_EXPORTER_OTLP_HEADERS` | `k=v,k2=v2` sent with exports |
 * | `OTEL_EXPORTER_OTLP_TIMEOUT` | give up on one export after this many ms (default 10 000) |
 * | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | resource |
 * | `OTEL_TRACES_EXPORTER=none`, `OTEL_METRICS_EXPORTER=none` | leave that signal off |
 * | `OTEL_METRIC_EXPORT_INTERVAL` | periodic metric export, ms |
 * | `OTEL_BSP_SCHEDULE_DELAY` | delay before a batch of spans is sent, ms |
 * | `OTEL_SDK_DISABLED=true` | everything off |
 * | `OTEL_DENO=true` | Deno's built-in OpenTelemetry exports instead; the npm SDK is not installed |
 *
 * An unknown protocol or an endpoint that is not an http(s) URL is a `usage_error`.
 */
export async function initTelemetryFromEnv(
  env: EnvReader = denoEnv,
  options: TelemetryEnvOptions = {},
): Promise<Telemetry | undefined> {
  const current = activeTelemetry();
  if (current) return current;
  if ((env("OTEL_SDK_DISABLED") ?? "").toLowerCase() === "true") return undefined;
  if ((env("OTEL_DENO") ?? "").toLowerCase() === "true") return undefined;
  const base = env("OTEL_EXPORTER_OTLP_ENDPOINT") || undefined;
  const tracesEndpoint = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || undefined;
  const metricsEndpoint = env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") || undefined;
  const traces = (env("OTEL_TRACES_EXPORTER") ?? "").toLowerCase() !== "none" &&
    (base !== undefined || tracesEndpoint !== undefined);
  const metricsOn = (env("OTEL_METRICS_EXPORTER") ?? "").toLowerCase() !== "none" &&
    (base !== undefined || metricsEndpoint !== undefined);
  if (!traces && !metricsOn) return undefined;
  const ms = (name: string): number | undefined => {
    const n = Number(env(name));
    return env(name) && Number.isFinite(n) && n > 0 ? n : undefined;
  };
  const protocol = (name: string) =>
    checkProtocol((env(name) || undefined)?.trim().toLowerCase(), name);
  return await setupOtel({
    otlpEndpoint: base,
    tracesEndpoint,
    metricsEndpoint,
    protocol: protocol("OTEL_EXPORTER_OTLP_PROTOCOL"),
    tracesProtocol: protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
    metricsProtocol: protocol("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"),
    traces,
    metrics: metricsOn,
    serviceName: env("OTEL_SERVICE_NAME") || undefined,
    resourceAttributes: parseResourceAttributes(env("OTEL_RESOURCE_ATTRIBUTES")),
    headers: parseHeaders(env("OTEL_EXPORTER_OTLP_HEADERS")),
    metricExportIntervalMs: ms("OTEL_METRIC_EXPORT_INTERVAL"),
    spanExportDelayMs: ms("OTEL_BSP_SCHEDULE_DELAY"),
    exportTimeoutMs: ms("OTEL_EXPORTER_OTLP_TIMEOUT"),
    onExportFailure: options.onExportFailure,
  });
}

/** Flush and stop the installed pipeline, if any (entry points call this before exit). */
export async function shutdownTelemetry(): Promise<void> {
  await activeTelemetry()?.shutdown();
}
