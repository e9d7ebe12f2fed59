/**
 * Keys and record summaries as the surfaces use them: where a key comes from (`--key`,
 * `--key-file`, `EMPIRIC_SIGN_KEY`, the demo key), the demo key's constants, and the
 * `schema info` summary of a record file, and the public-key attestation keys and trust
 * policies (src/attest/). Re-exported here so that a surface needs nothing
 * beyond the operations layer and the foundations.
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
export {
  generateKeyPair,
  importPrivateKey,
  importPublicKey,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type PrivateKey,
  type PublicKey,
} from "../attest/keys.ts";
export { readPolicy, type TrustPolicy } from "../attest/policy.ts";
