/**
 * The proof record JSON Schema and its validator.
 *
 * @module
 */
export * from "./validate.ts";
export * from "./record_schema.ts";
