/**
 * Installing OpenTelemetry export (SPEC `setup_otel(otlp_endpoint=<url>)`): the npm
 * OpenTelemetry SDK (traces and metrics) with the OTLP/HTTP exporters, which send the JSON
 * encoding (`http/json`) to `<endpoint>/v1/traces` and `<endpoint>/v1/metrics`.
 *
 * Off by default. Entry points (the CLI, `empiric http serve`, `empiric mcp serve`) call
 * {@link initTelemetryFromEnv} once at start and {@link Telemetry.shutdown} before exit; it
 * switches export on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint) is set.
 * The SDK is loaded only then.
 *
 * @module
 */
import { context, metrics, trace } from "@opentelemetry/api";
import { UsageError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";

/** Options of {@link setupOtel}. */
export interface OtelOptions {
  /**
   * Base URL of an OTLP/HTTP receiver (e.g. `http://localhost:4318`); `/v1/traces` and
   * `/v1/metrics` are appended.
   */
  otlpEndpoint?: string;
  /** Full URL for traces (used verbatim; default `<otlpEndpoint>/v1/traces`). */
  tracesEndpoint?: string;
  /** Full URL for metrics (used verbatim; default `<otlpEndpoint>/v1/metrics`). */
  metricsEndpoint?: string;
  /** Export traces (default true). */
  traces?: boolean;
  /** Export metrics (default true). */
  metrics?: boolean;
  /** `service.name` of the resource (default `empiric`). */
  serviceName?: string;
  /** More resource attributes. */
  resourceAttributes?: Record<string, string>;
  /** Headers sent with every export request. */
  headers?: Record<string, string>;
  /** Interval of periodic metric export in ms (default 60 000; a final export happens at shutdown). */
  metricExportIntervalMs?: number;
  /** Delay before a batch of spans is sent, in ms (default 1 000). */
  spanExportDelayMs?: number;
}

/** An installed telemetry pipeline. */
export interface Telemetry {
  /** Where traces go (null when traces are off). */
  readonly tracesEndpoint: string | null;
  /** Where metrics go (null when metrics are off). */
  readonly metricsEndpoint: string | null;
  /** Send everything recorded so far. */
  forceFlush(): Promise<void>;
  /**
   * Send everything recorded so far (waiting at most `timeoutMs`, default 5 000), stop, and
   * unregister the global providers.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

let active: Telemetry | undefined;

/** The pipeline installed by {@link setupOtel}, if any. */
export function activeTelemetry(): Telemetry | undefined {
  return active;
}

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

/**
 * Install the OpenTelemetry SDK with OTLP/HTTP (JSON) exporters for traces and metrics and
 * register it globally, so that every `run_scenario`, `verify_proof` and `canonicalize_value`
 * call emits its span and metrics. Calling it again replaces the previous pipeline (after
 * flushing it).
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
  const tracesUrl = !wantTraces
    ? null
    : options.tracesEndpoint
    ? checkUrl(options.tracesEndpoint, "the traces endpoint")
    : options.otlpEndpoint
    ? join(checkUrl(options.otlpEndpoint, "the OTLP endpoint"), "/v1/traces")
    : null;
  const metricsUrl = !wantMetrics
    ? null
    : options.metricsEndpoint
    ? checkUrl(options.metricsEndpoint, "the metrics endpoint")
    : options.otlpEndpoint
    ? join(checkUrl(options.otlpEndpoint, "the OTLP endpoint"), "/v1/metrics")
    : null;
  if (tracesUrl === null && metricsUrl === null) {
    throw new UsageError("setupOtel needs an otlpEndpoint (or a traces or metrics endpoint)");
  }
  if (active) await active.shutdown();

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

  let tracerProvider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined;
  if (tracesUrl) {
    const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/exporter-trace-otlp-http"),
    ]);
    const provider = new TracerProvider({
      resource,
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: tracesUrl, headers: options.headers }),
          scheduledDelayMillis: options.spanExportDelayMs ?? 1000,
        }),
      ],
    });
    trace.setGlobalTracerProvider(provider);
    tracerProvider = provider;
  }
  let meterProvider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined;
  if (metricsUrl) {
    const [{ MeterProvider, PeriodicExportingMetricReader }, { OTLPMetricExporter }] = await Promise
      .all([
        import("@opentelemetry/sdk-metrics"),
        import("@opentelemetry/exporter-metrics-otlp-http"),
      ]);
    const provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: metricsUrl, headers: options.headers }),
          exportIntervalMillis: options.metricExportIntervalMs ?? 60_000,
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
    async forceFlush() {
      if (stopped) return;
      await Promise.all([tracerProvider?.forceFlush(), meterProvider?.forceFlush()]);
    },
    async shutdown(timeoutMs = 5000) {
      if (stopped) return;
      stopped = true;
      if (active === telemetry) active = undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]),
        new Promise((r) => timer = setTimeout(r, timeoutMs)),
      ]);
      clearTimeout(timer);
      if (tracerProvider) trace.disable();
      if (meterProvider) metrics.disable();
      context.disable();
      contextManager.disable();
    },
  };
  active = telemetry;
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

/**
 * Switch telemetry on from the standard environment variables, once per process. Returns the
 * pipeline, or undefined when telemetry stays off. Entry points call this at start and
 * `shutdown()` on the result before they exit.
 *
 * | variable | effect |
 * | --- | --- |
 * | `OTEL_EXPORTER_OTLP_ENDPOINT` | base URL; switches export on |
 * | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` | per-signal URLs (verbatim); either one switches export on |
 * | `OTEL_EXPORTER_OTLP_HEADERS` | `k=v,k2=v2` sent with exports |
 * | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | resource |
 * | `OTEL_TRACES_EXPORTER=none`, `OTEL_METRICS_EXPORTER=none` | leave that signal off |
 * | `OTEL_METRIC_EXPORT_INTERVAL` | periodic metric export, ms |
 * | `OTEL_SDK_DISABLED=true` | everything off |
 * | `OTEL_DENO=true` | Deno's built-in OpenTelemetry exports instead; the npm SDK is not installed |
 */
export async function initTelemetryFromEnv(
  env: EnvReader = denoEnv,
): Promise<Telemetry | undefined> {
  if (active) return active;
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
  const interval = Number(env("OTEL_METRIC_EXPORT_INTERVAL"));
  return await setupOtel({
    otlpEndpoint: base,
    tracesEndpoint,
    metricsEndpoint,
    traces,
    metrics: metricsOn,
    serviceName: env("OTEL_SERVICE_NAME") || undefined,
    resourceAttributes: parseResourceAttributes(env("OTEL_RESOURCE_ATTRIBUTES")),
    headers: parseHeaders(env("OTEL_EXPORTER_OTLP_HEADERS")),
    metricExportIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : undefined,
  });
}

/** Flush and stop the installed pipeline, if any (entry points call this before exit). */
export async function shutdownTelemetry(): Promise<void> {
  await active?.shutdown();
}
