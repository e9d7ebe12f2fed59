/**
 * Signed pre-registration (docs/keys.md, "Pre-registration"): before anything runs,
 * `empiric register <scenario> --signing-key K` signs a Statement of the claim, `config_hash`,
 * `data_hash` and analysis plan; `empiric run --registration ENV` checks that the scenario and
 * its data still match it before measuring, and the record names the registration's digest.
 *
 * The Statement (predicate type {@link REGISTRATION_PREDICATE_TYPE}):
 *
 * - `subject`: `scenario/<name>` with `sha256` = config_hash, then `dataset/<name>` with
 *   `sha256` = the dataset's content_hash for each dataset (so that `cosign
 *   verify-blob-attestation` matches a corpus file);
 * - `predicate`: `scenario`, `claim` (statement, operationalization, threshold, h0, h1),
 *   `config_hash`, `data_hash`, `analysis_plan`, `datasets` (name, kind, source,
 *   content_hash, n_records), `registered_at` (RFC 3339 UTC), `empiric_version`.
 *
 * The **registration digest** is the SHA-256 of the envelope's payload bytes (the canonical
 * Statement): it names the registration however many signatures the envelope carries.
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
import { sha256Hex } from "../crypto/hash.ts";
import { canonicalBytes } from "../json/canonical.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import type { Threshold } from "../record/types.ts";
import { type DsseEnvelope, publicKeySigner, signEnvelope } from "./dsse.ts";
import type { PrivateKey, PublicKey } from "./keys.ts";
import type { TrustPolicy } from "./policy.ts";
import {
  INTOTO_PAYLOAD_TYPE,
  REGISTRATION_PREDICATE_TYPE,
  type Statement,
  STATEMENT_V1_TYPE,
} from "./statement.ts";
import { type AttestationVerification, verifyAttestation } from "./verify.ts";

export { REGISTRATION_PREDICATE_TYPE } from "./statement.ts";

/** What a registration fixes: the pre-registration of a run, computed before it starts. */
export interface PreRegistrationFacts {
  scenario: string;
  claim: {
    statement: string;
    operationalization: string;
    threshold: Threshold;
    h0: string;
    h1: string;
  };
  config_hash: string;
  data_hash: string;
  analysis_plan: string;
  datasets: {
    name: string;
    kind: string;
    source: string;
    content_hash: string;
    n_records: number;
  }[];
}

/** Inputs of {@link createRegistration}. */
export interface RegistrationInputs {
  facts: PreRegistrationFacts;
  /** When it is registered, epoch milliseconds. */
  now: number;
  empiricVersion: string;
  signingKeys: readonly PrivateKey[];
}

/** A signed registration. */
export interface Registration {
  envelope: DsseEnvelope;
  statement: Statement;
  /** SHA-256 of the payload bytes (lowercase hex). */
  digest: string;
}

function rfc3339(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? iso.slice(0, -5) + "Z" : iso;
}

/**
 * The registration Statement of pre-registration facts (ints as `bigint`, so the canonical
 * form writes `n_records` as an int).
 */
export function registrationStatement(
  facts: PreRegistrationFacts,
  registeredAt: string,
  empiricVersion: string,
): Statement {
  const predicate: JsonObject = {
    scenario: facts.scenario,
    claim: {
      statement: facts.claim.statement,
      operationalization: facts.claim.operationalization,
      threshold: { ...facts.claim.threshold } as unknown as JsonObject,
      h0: facts.claim.h0,
      h1: facts.claim.h1,
    },
    config_hash: facts.config_hash,
    data_hash: facts.data_hash,
    analysis_plan: facts.analysis_plan,
    datasets: facts.datasets.map((d) => ({
      name: d.name,
      kind: d.kind,
      source: d.source,
      content_hash: d.content_hash,
      n_records: BigInt(d.n_records),
    })),
    registered_at: registeredAt,
    empiric_version: empiricVersion,
  };
  return {
    _type: STATEMENT_V1_TYPE,
    subject: [
      { name: `scenario/${facts.scenario}`, digest: { sha256: facts.config_hash } },
      ...facts.datasets.map((d) => ({
        name: `dataset/${d.name}`,
        digest: { sha256: d.content_hash },
      })),
    ],
    predicateType: REGISTRATION_PREDICATE_TYPE,
    predicate,
  };
}

/**
 * Sign a registration with one or more Ed25519 / ECDSA P-256 keys.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { createRegistration } from "./registration.ts";
 * import { match } from "node:assert/strict";
 * const { privateKey } = await generateKeyPair("ed25519");
 * const facts = {
 *   scenario: "demo", claim: { statement: "s", operationalization: "o", threshold: { metric: "m", comparator: "<=" as const, value: 1.0, units: "ms" }, h0: "h0", h1: "h1" },
 *   config_hash: "a".repeat(64), data_hash: "b".repeat(64), analysis_plan: "plan", datasets: [],
 * };
 * const reg = await createRegistration({ facts, now: 0, empiricVersion: "0.1.0", signingKeys: [privateKey] });
 * match(reg.digest, /^[0-9a-f]{64}$/);
 * ```
 */
export async function createRegistration(inputs: RegistrationInputs): Promise<Registration> {
  if (inputs.signingKeys.length === 0) {
    throw new EmpiricError("key_invalid", "a registration needs at least one signing key");
  }
  const statement = registrationStatement(
    inputs.facts,
    rfc3339(inputs.now),
    inputs.empiricVersion,
  );
  const payload = canonicalBytes(statement as unknown as JsonValue);
  const envelope = await signEnvelope(
    INTOTO_PAYLOAD_TYPE,
    payload,
    inputs.signingKeys.map(publicKeySigner),
  );
  return { envelope, statement, digest: await sha256Hex(payload) };
}

/** How a registration is trusted: public keys and/or a policy (as `verify-dsse`). */
export interface RegistrationTrust {
  publicKeys?: readonly PublicKey[];
  policy?: TrustPolicy;
}

/** What a run records of the registration it checked. */
export interface RegistrationRef {
  /** SHA-256 of the payload bytes. */
  digest: string;
  /** `predicate.registered_at`. */
  registered_at: string;
  /** Trusted key ids whose signature verified. */
  keyids: string[];
}

/** The pre-registration facts a run computed, to compare with a registration. */
export type RunFacts = Pick<
  PreRegistrationFacts,
  "scenario" | "config_hash" | "data_hash" | "analysis_plan"
>;

/**
 * Check a registration envelope against the run about to start: verify it (public keys,
 * policy; predicate type must be the registration's), then compare its scenario, config_hash,
 * data_hash and analysis plan with the run's. Throws the verification's code
 * (`signature_mismatch`, `untrusted_signer`, ...) or `registration_mismatch`, naming what
 * changed.
 */
export async function checkRegistration(
  envelope: DsseEnvelope | JsonObject | string | Uint8Array,
  run: RunFacts,
  trust: RegistrationTrust,
): Promise<RegistrationRef> {
  const v: AttestationVerification = await verifyAttestation(envelope, trust);
  if (!v.verified || !v.statement || !v.payload) {
    throw new EmpiricError(
      v.reason ?? "signature_mismatch",
      `the registration does not verify (${v.step}): ${v.message}`,
    );
  }
  if (v.predicateType !== REGISTRATION_PREDICATE_TYPE) {
    throw new EmpiricError(
      "schema_invalid",
      `the envelope is not a registration: predicateType ${v.predicateType}, expected ${REGISTRATION_PREDICATE_TYPE}`,
    );
  }
  const p = v.statement.predicate;
  const changed: string[] = [];
  if (p.scenario !== run.scenario) {
    changed.push(`scenario: registered ${p.scenario}, running ${run.scenario}`);
  }
  if (p.config_hash !== run.config_hash) {
    changed.push(
      `config_hash: registered ${p.config_hash}, now ${run.config_hash} (the scenario file changed)`,
    );
  }
  if (p.data_hash !== run.data_hash) {
    changed.push(
      `data_hash: registered ${p.data_hash}, now ${run.data_hash} (a dataset changed)`,
    );
  }
  if (p.analysis_plan !== run.analysis_plan) {
    changed.push("analysis_plan: the plan text differs from the registered one");
  }
  if (changed.length > 0) {
    throw new EmpiricError(
      "registration_mismatch",
      `the run does not match its registration: ${changed.join("; ")}`,
      {
        problems: changed.map((m) => ({ code: "registration_mismatch" as const, message: m })),
      },
    );
  }
  return {
    digest: await sha256Hex(new Uint8Array(v.payload)),
    registered_at: p.registered_at as string,
    keyids: v.signers,
  };
}
