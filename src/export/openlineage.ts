/**
 * OpenLineage 2.0 RunEvents of proof records and of running scenarios, and posting them to a
 * lineage collector (docs/exports.md): the event builders (`openlineage/builders.ts`), the HTTP
 * transport (`openlineage/transport.ts`) and the run lifecycle emitter
 * (`openlineage/emitter.ts`).
 *
 * @module
 */
export * from "./openlineage/builders.ts";
export * from "./openlineage/transport.ts";
export * from "./openlineage/emitter.ts";
