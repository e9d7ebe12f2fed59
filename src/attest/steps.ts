/**
 * The named steps of attestation verification, in order (a module of its own so that the
 * operation declaring them loads nothing else).
 *
 * @module
 */

/** The steps of `verifyAttestation`, in order. */
export const VERIFICATION_STEPS = [
  "envelope",
  "signatures",
  "trust",
  "threshold",
  "statement",
  "predicate_type",
  "predicate",
  "outcome",
] as const;

/** One step of `verifyAttestation`. */
export type VerificationStep = typeof VERIFICATION_STEPS[number];
