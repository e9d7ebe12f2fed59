/**
 * `@empiric/proof`: the empiric wire format and proof records, for Deno, Node 20+ and browsers.
 *
 * Typed JSON (ints as `bigint`/{@link PyInt}, floats as `number`), the canonical form (rules
 * R1 to R11, byte-identical to Python's `json.dumps(sort_keys=True, separators=(",", ":"),
 * ensure_ascii=True)`), SHA-256/HMAC-SHA256, proof_id, signing and verification, and the record
 * JSON Schema. No Deno APIs: the npm build (`deno task build:npm`) runs on Node and in browsers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalize, parseJson, PyInt, signCanonical } from "./mod.ts";
 * assert.equal(canonicalize(parseJson('{"b": 1.0, "a": 1}')), '{"a":1,"b":1.0}');
 * const sig = await signCanonical({ n: new PyInt(2) }, new TextEncoder().encode("k".repeat(32)));
 * assert.equal(sig.length, 64);
 * ```
 *
 * @module
 */
export * from "./json/mod.ts";
export * from "./crypto/mod.ts";
export * from "./errors/mod.ts";
export * from "./record/mod.ts";
export * from "./attest/mod.ts";
export { compileTypedValidator, PROOF_RECORD_SCHEMA } from "./schema/validate.ts";
export { validateRecordSchema } from "./schema/record_schema.ts";
export { EMPIRIC_VERSION } from "./version.ts";
