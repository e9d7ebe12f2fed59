/**
 * The typed JSON value model, parser, canonical form and pretty writer (rules R1 to R11).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalize, parseJson } from "./mod.ts";
 * assert.equal(canonicalize(parseJson('{"b": 1.0, "a": 1}')), '{"a":1,"b":1.0}');
 * ```
 *
 * @module
 */
export * from "./value.ts";
export * from "./float.ts";
export * from "./canonical.ts";
export * from "./parse.ts";
export * from "./pretty.ts";
export * from "./plain.ts";
export * from "./pointer.ts";
