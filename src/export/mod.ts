/**
 * Export and transport layers of proof records (SPEC "Export and transport functions"):
 * CloudEvents 1.0 envelopes and their HTTP binding, in-toto Statement v1 with DSSE envelopes,
 * RO-Crate 1.2 packages, and OpenLineage 2.0 RunEvents. See docs/exports.md.
 *
 * | SPEC name | TypeScript |
 * | --- | --- |
 * | `wrap(proof, source=)` | {@link wrap} |
 * | `unwrap(envelope_text)` | {@link unwrap} |
 * | `to_in_toto_statement(proof)` | {@link toInTotoStatement} |
 * | `to_dsse_envelope(proof, key=, keyid=)` | {@link toDsseEnvelope} |
 * | `verify_dsse_envelope(envelope, key)` | {@link verifyDsseEnvelope} |
 * | `to_ro_crate_metadata(proof, proof_filename=, extra_root_metadata=)` | {@link toRoCrateMetadata} |
 * | `write_ro_crate(proof, directory, ...)` | {@link writeRoCrate} |
 * | `to_openlineage_event(proof, job_name=)` | {@link toOpenLineageEvent} |
 * | `new_run_id()` | {@link newRunId} |
 * | `to_openlineage_start_event(...)` | {@link toOpenLineageStartEvent} |
 * | `to_openlineage_running_event(...)` | {@link toOpenLineageRunningEvent} |
 * | `to_openlineage_complete_event(...)` | {@link toOpenLineageCompleteEvent} |
 * | `to_openlineage_fail_event(...)` | {@link toOpenLineageFailEvent} |
 *
 * Proof events go to HTTP sinks ({@link postCloudEvent}) or NATS JetStream
 * ({@link publishNatsCloudEvent}), chosen by URL with {@link sendCloudEvent}.
 *
 * @module
 */
export * from "./common.ts";
export * from "./cloudevents.ts";
export * from "./intoto.ts";
export * from "./rocrate.ts";
export * from "./openlineage.ts";
export * from "./nats.ts";
export * from "./sink.ts";
