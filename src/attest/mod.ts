/**
 * Public-key attestations (docs/keys.md): Ed25519 and ECDSA P-256 keys through Web Crypto,
 * DSSE envelopes signed with them, in-toto Statements, trust policies and step-by-step
 * verification. Portable: no Deno APIs (the npm build carries it).
 *
 * @module
 */
export * from "./der.ts";
export * from "./keys.ts";
export * from "./dsse.ts";
export * from "./statement.ts";
export * from "./policy.ts";
export * from "./verify.ts";
