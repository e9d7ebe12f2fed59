/**
 * Constants and types the surfaces use (the default CloudEvents source, run progress),
 * re-exported so that a surface needs nothing beyond the operations layer.
 *
 * @module
 */
export { DEFAULT_EVENT_SOURCE } from "../export/source.ts";
export { DEFAULT_DEMO_KEY } from "../crypto/keys.ts";
export type { RunProgress } from "../run/execute.ts";
