/**
 * Constants the surfaces show to users (demo key, default CloudEvents source), re-exported so
 * that a surface needs nothing beyond the operations layer.
 *
 * @module
 */
export { DEFAULT_DEMO_KEY, DEMO_KEY_BYTES, MIN_SIGNING_KEY_BYTES } from "../crypto/keys.ts";
export type { ResolvedKey } from "../crypto/keys.ts";
export { DEFAULT_EVENT_SOURCE } from "../export/common.ts";
export type { RunProgress } from "../run/execute.ts";
