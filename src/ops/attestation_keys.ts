/**
 * The public-key side of keys as the surfaces use it: attestation key pairs (Ed25519, ECDSA
 * P-256) and trust policies (src/attest/). Apart from src/ops/keys.ts (HMAC keys and record
 * summaries) so that commands that only verify records, such as `schema validate`, do not load
 * the attestation modules at start-up (bench/startup.ts).
 *
 * @module
 */
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
