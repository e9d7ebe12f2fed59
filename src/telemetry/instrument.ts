/**
 * Spans and metrics around the shared operations (SPEC "OpenTelemetry"), written against
 * `@opentelemetry/api` only. Until an SDK is installed ({@link ./otel.ts} `setupOtel`, or
 * Deno's built-in OpenTelemetry) the API's no-op tracer and meter are used: nothing is
 * recorded or sent, and the cost is a few no-op calls per operation.
 *
 * The API itself loads only once something has registered with it (an SDK, Deno's built-in
 * OpenTelemetry under `OTEL_DENO=true`, or the caller's own): until then every call would be a
 * no-op, so the operation runs without a span and start-up does not pay for the API's 50
 * modules (about 10 ms; `bench/startup.ts`).
 *
 * @module
 */
import type { Attributes, Counter, Histogram, Meter, Span, Tracer } from "@opentelemetry/api";
import { asEmpiricError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";

/** Instrumentation scope name of empiric's tracer and meter. */
export const INSTRUMENTATION_SCOPE = "empiric";

/** Span names (stable). */
export const SPAN_NAMES = {
  /** Prefix: the span of a run is this prefix followed by the scenario name. */
  scenarioRunPrefix: "empiric.scenario.run.",
  verify: "empiric.proof.verify",
  canonicalEncode: "empiric.canonical.encode",
} as const;

/** Metric names (stable names; units and buckets are provisional). */
export const METRIC_NAMES = {
  scenariosRun: "empiric_scenarios_run_total",
  scenarioDuration: "empiric_scenario_duration_seconds",
  proofsVerified: "empiric_proofs_verified_total",
  canonicalBytes: "empiric_canonical_bytes_encoded",
} as const;

/** Attribute names on spans and metric points (stable). */
export const ATTR = {
  /** The scenario name as resolved (`(unresolved)` when the name given matched none). */
  scenario: "empiric.scenario",
  /** The `--substrate` of a run. */
  substrate: "empiric.substrate",
  /** `identity.proof_id` of the record made or checked. */
  proofId: "empiric.proof_id",
  /** `verdict.outcome`; on run metrics `error` when the run failed. */
  outcome: "empiric.outcome",
  /** Measured items of a run. */
  measured: "empiric.measured",
  /** Failed substrate calls of a run. */
  failures: "empiric.failures",
  /** Whether the record verified under a key. */
  verified: "empiric.verified",
  /** Whether every check that ran passed (structure and proof_id without a key). */
  valid: "empiric.valid",
  /** Stable code of the first verification failure. */
  reason: "empiric.reason",
  /** Whether a key was given to verify. */
  keyGiven: "empiric.key_given",
  /** `verified`, `valid` (no key given) or `failed`: on `empiric_proofs_verified_total`. */
  result: "empiric.result",
  /** Size of a canonical encoding in bytes. */
  canonicalBytes: "empiric.canonical.bytes",
  /** Stable error code of a failed operation (OpenTelemetry's `error.type`). */
  errorType: "error.type",
} as const;

/** Histogram buckets of `empiric_scenario_duration_seconds`, in seconds. */
export const DURATION_BUCKETS_SECONDS = [
  0.01,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
  120,
  300,
  600,
  1800,
];

type OtelApi = typeof import("@opentelemetry/api");

/**
 * Where `@opentelemetry/api` 1.x keeps its registered providers (the API's `global-utils`):
 * absent until a tracer, meter or context provider is registered.
 */
export const OTEL_API_GLOBAL: symbol = Symbol.for("opentelemetry.js.api.1");
// A computed specifier: a literal one would make Deno prepare the API at start-up.
const API_SPECIFIER = "@opentelemetry/api";
let loadedApi: OtelApi | undefined;

/**
 * Hand the API to the instrumentation ahead of use (`setupOtel` does, and the entry points under
 * `OTEL_DENO=true`), so that no operation imports it inside a request's trace context.
 */
export function useOtelApi(api: OtelApi): void {
  loadedApi = api;
}

/** The API when something has registered with it; undefined while every call is a no-op. */
async function otelApi(): Promise<OtelApi | undefined> {
  if (loadedApi) return loadedApi;
  if ((globalThis as Record<symbol, unknown>)[OTEL_API_GLOBAL] === undefined) return undefined;
  loadedApi = await import(API_SPECIFIER) as OtelApi;
  return loadedApi;
}

function tracer(api: OtelApi): Tracer {
  return api.trace.getTracer(INSTRUMENTATION_SCOPE, EMPIRIC_VERSION);
}

interface Instruments {
  runs: Counter;
  duration: Histogram;
  verified: Counter;
  canonicalBytes: Counter;
}

let cachedFor: unknown;
let cached: Instruments | undefined;

// Instruments are created from the meter provider registered now: one created from the no-op
// provider stays a no-op after an SDK is installed, so they are rebuilt when it changes.
function instruments(api: OtelApi): Instruments {
  const provider = api.metrics.getMeterProvider();
  if (cached && cachedFor === provider) return cached;
  const meter: Meter = provider.getMeter(INSTRUMENTATION_SCOPE, EMPIRIC_VERSION);
  cached = {
    runs: meter.createCounter(METRIC_NAMES.scenariosRun, {
      description: "Scenario runs, by scenario and outcome (error when no proof was produced)",
      unit: "{run}",
    }),
    duration: meter.createHistogram(METRIC_NAMES.scenarioDuration, {
      description: "Wall-clock duration of scenario runs",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
    }),
    verified: meter.createCounter(METRIC_NAMES.proofsVerified, {
      description: "Proof records verified, by result",
      unit: "{proof}",
    }),
    canonicalBytes: meter.createCounter(METRIC_NAMES.canonicalBytes, {
      description: "Bytes of canonical JSON produced by canonicalize_value",
      unit: "By",
    }),
  };
  cachedFor = provider;
  return cached;
}

function recordError(api: OtelApi, span: Span, e: unknown): string {
  const err = asEmpiricError(e);
  span.setAttribute(ATTR.errorType, err.code);
  span.recordException(e instanceof Error ? e : new Error(String(e)));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: `${err.code}: ${err.message}` });
  return err.code;
}

/** What a run span learns as the run goes. */
export interface RunSpanControl {
  /** The scenario resolved: rename the span and set the scenario and substrate. */
  resolved(scenario: string, substrate: string): void;
}

/** The fields of a run result the span and metrics read. */
interface RunResultLike {
  proof_id: string;
  outcome: string;
  measured: number;
  failures: readonly unknown[];
}

/** Name and label of a run whose scenario was never resolved (an unknown name). */
export const UNRESOLVED_SCENARIO = "(unresolved)";

/**
 * Run `fn` inside the span `empiric.scenario.run.<scenario>` and count it in
 * `empiric_scenarios_run_total` and `empiric_scenario_duration_seconds`. Only a scenario the
 * run resolved names the span and labels the metrics: a name a client made up never reaches
 * telemetry (it is `(unresolved)`), so their cardinality is bounded by the scenarios that exist.
 */
export async function traceScenarioRun<T extends RunResultLike>(
  fn: (control: RunSpanControl) => Promise<T>,
): Promise<T> {
  const api = await otelApi();
  if (api === undefined) return await fn({ resolved() {} });
  let scenario = UNRESOLVED_SCENARIO;
  return await tracer(api).startActiveSpan(
    SPAN_NAMES.scenarioRunPrefix + UNRESOLVED_SCENARIO,
    { kind: api.SpanKind.INTERNAL, attributes: { [ATTR.scenario]: UNRESOLVED_SCENARIO } },
    async (span) => {
      const t0 = performance.now();
      let outcome = "error";
      try {
        const r = await fn({
          resolved(name, substrate) {
            scenario = name;
            span.updateName(SPAN_NAMES.scenarioRunPrefix + name);
            span.setAttributes({ [ATTR.scenario]: name, [ATTR.substrate]: substrate });
          },
        });
        outcome = r.outcome;
        span.setAttributes({
          [ATTR.proofId]: r.proof_id,
          [ATTR.outcome]: r.outcome,
          [ATTR.measured]: r.measured,
          [ATTR.failures]: r.failures.length,
        });
        return r;
      } catch (e) {
        recordError(api, span, e);
        span.setAttribute(ATTR.outcome, "error");
        throw e;
      } finally {
        const attrs: Attributes = { [ATTR.scenario]: scenario, [ATTR.outcome]: outcome };
        const m = instruments(api);
        m.runs.add(1, attrs);
        m.duration.record((performance.now() - t0) / 1000, attrs);
        span.end();
      }
    },
  );
}

/** The fields of a verification result the span and metric read. */
interface VerifyResultLike {
  verified: boolean;
  valid: boolean;
  proof_id: string | null;
  reason: string | null;
  verdict: { outcome: string } | null;
}

/** Run `fn` inside the span `empiric.proof.verify` and count it in `empiric_proofs_verified_total`. */
export async function traceVerify<T extends VerifyResultLike>(
  keyGiven: boolean,
  fn: () => Promise<T>,
): Promise<T> {
  const api = await otelApi();
  if (api === undefined) return await fn();
  return await tracer(api).startActiveSpan(
    SPAN_NAMES.verify,
    { kind: api.SpanKind.INTERNAL, attributes: { [ATTR.keyGiven]: keyGiven } },
    async (span) => {
      try {
        const r = await fn();
        const result = r.verified ? "verified" : r.valid ? "valid" : "failed";
        const attrs: Attributes = {
          [ATTR.verified]: r.verified,
          [ATTR.valid]: r.valid,
          [ATTR.result]: result,
        };
        if (r.proof_id) attrs[ATTR.proofId] = r.proof_id;
        if (r.reason) attrs[ATTR.reason] = r.reason;
        if (r.verdict) attrs[ATTR.outcome] = r.verdict.outcome;
        span.setAttributes(attrs);
        instruments(api).verified.add(1, {
          [ATTR.result]: result,
          ...(r.reason ? { [ATTR.reason]: r.reason } : {}),
        });
        return r;
      } catch (e) {
        const code = recordError(api, span, e);
        instruments(api).verified.add(1, { [ATTR.result]: "failed", [ATTR.reason]: code });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}

/** Run `fn` inside the span `empiric.canonical.encode` and add its bytes to `empiric_canonical_bytes_encoded`. */
export async function traceCanonicalEncode<T extends { bytes: number }>(
  fn: () => Promise<T>,
): Promise<T> {
  const api = await otelApi();
  if (api === undefined) return await fn();
  return await tracer(api).startActiveSpan(
    SPAN_NAMES.canonicalEncode,
    { kind: api.SpanKind.INTERNAL },
    async (span) => {
      try {
        const r = await fn();
        span.setAttribute(ATTR.canonicalBytes, r.bytes);
        instruments(api).canonicalBytes.add(r.bytes);
        return r;
      } catch (e) {
        recordError(api, span, e);
        throw e;
      } finally {
        span.end();
      }
    },
  );
}
