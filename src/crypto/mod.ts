/**
 * Hashing, HMAC and signing keys.
 *
 * @module
 */
export * from "./hash.ts";
export * from "./keys.ts";
