/**
 * Keys and record summaries as the surfaces use them: where a key comes from (`--key`,
 * `--key-file`, `EMPIRIC_SIGN_KEY`, the demo key), the demo key's constants, and the
 * `schema info` summary of a record file. Re-exported here so that a surface needs nothing
 * beyond the operations layer and the foundations; attestation keys and trust policies are in
 * src/ops/attestation_keys.ts.
 *
 * @module
 */
export {
  DEFAULT_DEMO_KEY,
  DEMO_KEY_BYTES,
  MIN_SIGNING_KEY_BYTES,
  type ResolvedKey,
  resolveKey,
} from "../crypto/keys.ts";
export { formatSummary, summarizeRecord } from "../record/summary.ts";
