/**
 * OpenTelemetry for empiric (SPEC "OpenTelemetry"; docs/telemetry.md): {@link setupOtel} and
 * {@link initTelemetryFromEnv} install OTLP export (`http/protobuf`, `http/json` or `grpc`); the
 * shared operations emit the spans `empiric.scenario.run.<scenario>`, `empiric.proof.verify`,
 * `empiric.canonical.encode` and the metrics `empiric_scenarios_run_total`,
 * `empiric_scenario_duration_seconds`, `empiric_proofs_verified_total`,
 * `empiric_canonical_bytes_encoded`. W3C Trace Context is continued from incoming HTTP headers
 * and MCP `_meta` ({@link startHttpServerSpan}, {@link startMcpServerSpan}) and carried on
 * outgoing HTTP and NATS messages ({@link tracedFetch}, {@link withProducerSpan}).
 *
 * @module
 */
export * from "./otel.ts";
export * from "./instrument.ts";
export * from "./propagation.ts";
export * from "./http.ts";
export * from "./mcp.ts";
export * from "./messaging.ts";
