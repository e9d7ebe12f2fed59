/**
 * Typed errors with stable codes, and the table mapping codes to exit codes and HTTP statuses.
 *
 * @module
 */
export * from "./codes.ts";
export * from "./errors.ts";
