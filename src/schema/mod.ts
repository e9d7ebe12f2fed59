/**
 * The proof record JSON Schema and its validator.
 *
 * @module
 */
export * from "./validate.ts";
