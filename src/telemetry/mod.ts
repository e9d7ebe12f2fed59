/**
 * OpenTelemetry for empiric (SPEC "OpenTelemetry"; docs/telemetry.md): {@link setupOtel} and
 * {@link initTelemetryFromEnv} install OTLP/HTTP export; the shared operations emit the spans
 * `empiric.scenario.run.<scenario>`, `empiric.proof.verify`, `empiric.canonical.encode` and the
 * metrics `empiric_scenarios_run_total`, `empiric_scenario_duration_seconds`,
 * `empiric_proofs_verified_total`, `empiric_canonical_bytes_encoded`.
 *
 * @module
 */
export * from "./otel.ts";
export * from "./instrument.ts";
