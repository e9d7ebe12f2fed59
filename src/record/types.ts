/**
 * TypeScript shapes of the Empirical Proof Record (schema_version 1.0).
 *
 * Floats are `number`; ints are `bigint` (see the wire format, rule R1).
 *
 * @module
 */
import type { JsonObject, PyInt } from "../json/value.ts";

/** Current record schema version. */
export const SCHEMA_VERSION = "1.0";

/** Top-level members of a record file, in file order. */
export const SECTION_ORDER = [
  "identity",
  "claim",
  "pre_registration",
  "data",
  "evidence",
  "verdict",
  "reproduction",
  "provenance",
  "signature",
] as const;

/**
 * Comparators of a threshold. `within` (comparative claims only): |difference| <= value, or
 * |ratio − 1| <= value for a ratio, decided by two one-sided bounds.
 */
export type Comparator = "<" | "<=" | ">" | ">=" | "within";

/** Verdict outcomes. */
export type Outcome = "VALIDATED" | "REFUTED" | "INCONCLUSIVE";

/** Dataset kinds. */
export type DatasetKind =
  | "corpus"
  | "reference"
  | "synthetic"
  | "config"
  | "observations"
  | "baseline";

/** The falsification line: `<observed> <comparator> <value>`. */
export type Threshold = {
  metric: string;
  comparator: Comparator;
  value: number | bigint | PyInt;
  units: string;
};

/** Section 1. */
export type Identity = {
  proof_id: string;
  schema_version: string;
  empiric_version: string;
  empiric_git_commit: string;
  created_at: string;
};

/** Section 2. */
export type Claim = {
  statement: string;
  operationalization: string;
  threshold: Threshold;
  h0: string;
  h1: string;
};

/** Section 3. */
export type PreRegistration = { config_hash: string; data_hash: string; analysis_plan: string };

/** A dataset reference of section 4. */
export type DatasetRef = {
  name: string;
  content_hash: string;
  n_records: bigint;
  source: string;
  kind: DatasetKind;
};

/** Section 4. */
export type Data = { substrate_name: string; substrate_git_commit: string; datasets: DatasetRef[] };

/** One entry of section 5. */
export type Evidence = {
  pillar: string;
  statistic_name: string;
  statistic_value: number;
  library: string;
  library_version: string;
  ci_low: number;
  ci_high: number;
  cross_check: string;
};

/** Section 6. */
export type Verdict = {
  outcome: Outcome;
  observed_value: number;
  threshold: Threshold;
  reasoning: string;
};

/** Section 7. */
export type Reproduction = {
  command: string;
  environment: Record<string, string>;
  lineage_chain: string[];
};

/** A signed proof record. */
export type ProofRecord = {
  identity: Identity;
  claim: Claim;
  pre_registration: PreRegistration;
  data: Data;
  evidence: Evidence[];
  verdict: Verdict;
  reproduction: Reproduction;
  provenance: JsonObject;
  signature: { signature: string };
};

/** A record before signing: no signature, and identity without proof_id. */
export type UnsignedRecord = Omit<ProofRecord, "signature" | "identity"> & {
  identity: Omit<Identity, "proof_id">;
};
