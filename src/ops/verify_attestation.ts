/**
 * `verify_attestation`: verify a public-key DSSE attestation (Ed25519 / ECDSA P-256) against
 * public keys and an optional trust policy, step by step (src/attest/verify.ts). Behind
 * `empiric verify-dsse --public-key/--policy`; written as one operation (plain zod input and
 * output) so that `POST /verify` with an envelope and an MCP tool can expose it unchanged.
 *
 * Network surfaces take keys and policy inline (PEM text, a policy object whose `keys` are PEM
 * text): a policy cannot name files there.
 *
 * @module
 */
import { z } from "zod";
import { VERIFICATION_STEPS } from "../attest/steps.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import { toPlainJson } from "../json/plain.ts";
import { defineOperation } from "./operation.ts";
import { loadModule } from "../lazy/load.ts";
import { COMPONENTS } from "./schemas.ts";

/** Input of `verify_attestation`. */
export const VerifyAttestationInput = z.strictObject({
  envelope_json: z.string().min(1).describe(
    "the DSSE envelope's JSON text, or a Sigstore bundle v0.3 with a public-key hint",
  ),
  public_keys: z.array(z.string().min(1)).max(64).optional().describe(
    "SubjectPublicKeyInfo PEM texts of the keys to verify with",
  ),
  policy: z.record(z.string(), z.unknown()).optional().describe(
    "a trust policy object (docs/keys.md); its keys must be PEM text",
  ),
}).register(COMPONENTS, { id: "VerifyAttestationInput" });

const SignatureCheckSchema = z.object({
  index: z.number().int(),
  keyid: z.string().nullable(),
  verified_by: z.string().nullable(),
  trusted: z.boolean(),
});

/** Output of `verify_attestation`. */
export const VerifyAttestationOutput = z.object({
  verified: z.boolean(),
  step: z.enum(VERIFICATION_STEPS).nullable().describe("the step that failed"),
  reason: z.string().nullable().describe("stable error code of the failure"),
  message: z.string().nullable(),
  signatures: z.array(SignatureCheckSchema),
  signers: z.array(z.string()).describe("trusted key ids whose signature verified"),
  min_signatures: z.number().int(),
  payloadType: z.string().nullable(),
  predicateType: z.string().nullable(),
  outcome: z.enum(["VALIDATED", "REFUTED", "INCONCLUSIVE"]).nullable(),
  proof_id: z.string().nullable().describe("for a proof record predicate: its proof_id"),
  statement: z.unknown().nullable().describe("the verified Statement (plain JSON)"),
}).register(COMPONENTS, { id: "VerifyAttestationOutput" });

/** The output's type. */
export type VerifyAttestationResult = z.infer<typeof VerifyAttestationOutput>;

/**
 * Verify a DSSE attestation (or a Sigstore bundle of one) given as JSON text. Keys that cannot
 * be read are `key_invalid`, a bad policy `policy_invalid`, a malformed bundle `schema_invalid`
 * (all thrown); every verification failure of an envelope is in the result.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../attest/keys.ts";
 * import { publicKeySigner, signEnvelope } from "../attest/dsse.ts";
 * import { verifyAttestationOp } from "./verify_attestation.ts";
 * import { equal } from "node:assert/strict";
 * const pair = await generateKeyPair("ed25519");
 * const env = await signEnvelope("text/plain", new TextEncoder().encode("x"), [publicKeySigner(pair.privateKey)]);
 * const r = await verifyAttestationOp({ envelope_json: JSON.stringify(env), public_keys: [pair.publicPem] });
 * equal(r.step, "statement");
 * equal(r.signers[0], pair.privateKey.keyid);
 * ```
 */
export async function verifyAttestationOp(
  input: z.infer<typeof VerifyAttestationInput>,
): Promise<VerifyAttestationResult> {
  const load = <T>(spec: string) => loadModule<T>(spec, import.meta.url);
  const { importPublicKey } = await load<typeof import("../attest/keys.ts")>("../attest/keys.ts");
  const { readPolicy } = await load<typeof import("../attest/policy.ts")>("../attest/policy.ts");
  const { verifyAttestation } = await load<typeof import("../attest/verify.ts")>(
    "../attest/verify.ts",
  );
  const { isSigstoreBundle } = await load<typeof import("../attest/dsse.ts")>("../attest/dsse.ts");
  const publicKeys = [];
  for (const [i, pem] of (input.public_keys ?? []).entries()) {
    publicKeys.push(await importPublicKey(pem, `public_keys[${i}]`));
  }
  const policy = input.policy === undefined
    ? undefined
    : await readPolicy(parseJson(JSON.stringify(input.policy)), "policy");
  let envelope: string | JsonObject = input.envelope_json;
  let parsed: JsonValue | undefined;
  try {
    parsed = parseJson(input.envelope_json);
  } catch {
    // verification reports the parse error with its code and position
  }
  if (parsed !== undefined && isSigstoreBundle(parsed)) {
    const { envelopeFromBundle } = await load<typeof import("../attest/sigstore.ts")>(
      "../attest/sigstore.ts",
    );
    envelope = envelopeFromBundle(parsed) as unknown as JsonObject;
  }
  const r = await verifyAttestation(envelope, { publicKeys, policy });
  return {
    verified: r.verified,
    step: r.step,
    reason: r.reason,
    message: r.message,
    signatures: r.signatures,
    signers: r.signers,
    min_signatures: r.min_signatures,
    payloadType: r.payloadType,
    predicateType: r.predicateType,
    outcome: r.outcome,
    proof_id: r.record?.proof_id ?? null,
    statement: r.statement ? toPlainJson(r.statement) : null,
  };
}

/**
 * The `verify_attestation` operation: `POST /verify` with an `envelope_json` member, the MCP
 * tool `verify_attestation`, `empiric verify-dsse --public-key/--policy`.
 */
export const verifyAttestationOperation = defineOperation({
  name: "verify_attestation",
  title: "Verify a public-key attestation",
  description:
    "Verify a DSSE envelope (or a Sigstore bundle v0.3 of one) signed with Ed25519 or ECDSA P-256 " +
    "keys: give its JSON text in envelope_json and the trusted public keys (SubjectPublicKeyInfo " +
    "PEM text) in public_keys, and/or a trust policy (trusted keys or key ids, minimum number of " +
    "signatures, accepted predicate types and outcomes; docs/keys.md). Runs named steps (parse, " +
    "signatures, trust, threshold, statement, policy) and returns verified, the step that failed " +
    "with its stable code, every signature with its key id, the trusted signers, and for an " +
    "empiric proof predicate the record's proof_id and outcome. No secret is needed: anyone can " +
    "check an attestation with the signer's public key.",
  access: "read",
  exposure: [],
  input: VerifyAttestationInput,
  output: VerifyAttestationOutput,
  http: {
    method: "POST",
    path: "/verify",
    discriminator: "envelope_json",
    tags: ["proofs"],
    response: "The attestation's verification (verified true or false)",
    errors: [400],
  },
  mcp: {
    tool: {
      errorText: (out) =>
        out.verified
          ? undefined
          : `not verified: ${out.reason ?? "unknown"} at step ${out.step ?? "?"}: ${
            out.message ?? "the attestation does not verify"
          }`,
    },
  },
  run: (input) => verifyAttestationOp(input),
});
