/**
 * The Empirical Proof Record: types, signing, verification, summaries.
 *
 * @module
 */
export * from "./types.ts";
export * from "./sign.ts";
export * from "./verify.ts";
export * from "./summary.ts";
export * from "./proof.ts";
