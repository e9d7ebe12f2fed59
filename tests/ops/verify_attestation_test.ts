// verify_attestation, the operation that /verify (envelopes) and an MCP tool will expose: its zod
// schemas accept what it takes and returns, it reads Sigstore bundles too, a policy arrives as an
// object with PEM keys, and unusable keys or policies are errors with stable codes.
import assert from "node:assert/strict";
import {
  VerifyAttestationInput,
  verifyAttestationOp,
  VerifyAttestationOutput,
} from "../../src/ops/verify_attestation.ts";
import { registerScenarioOp, RegisterScenarioOutput } from "../../src/ops/register_scenario.ts";
import { generateKeyPair } from "../../src/attest/keys.ts";
import { toDsseEnvelope } from "../../src/export/intoto.ts";
import { toSigstoreBundle } from "../../src/attest/sigstore.ts";
import { prettyJson } from "../../src/json/pretty.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { testEnv } from "../support/env.ts";

const record = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));

Deno.test("verify_attestation: envelopes and bundles, inline policy, schemas hold", async () => {
  const a = await generateKeyPair("ecdsa-p256");
  const b = await generateKeyPair("ed25519");
  const env = await toDsseEnvelope(record, { signingKeys: [a.privateKey] });
  const input = VerifyAttestationInput.parse({
    envelope_json: JSON.stringify(env),
    public_keys: [a.publicPem],
  });
  const r = await verifyAttestationOp(input);
  VerifyAttestationOutput.parse(r);
  assert.equal(r.verified, true, r.message ?? "");
  assert.equal(r.outcome, "VALIDATED");
  assert.match(r.proof_id!, /^[0-9a-f]{64}$/);
  assert.doesNotThrow(() => JSON.stringify(r)); // plain JSON: no bigint
  const bundle = prettyJson(toSigstoreBundle(env));
  assert.equal(
    (await verifyAttestationOp({ envelope_json: bundle, public_keys: [a.publicPem] })).verified,
    true,
  );
  const gated = await verifyAttestationOp({
    envelope_json: JSON.stringify(env),
    policy: { version: 1, keys: [b.publicPem], outcomes: ["VALIDATED"] },
    public_keys: [a.publicPem],
  });
  VerifyAttestationOutput.parse(gated);
  assert.equal(gated.reason, "untrusted_signer");
  const garbage = await verifyAttestationOp({ envelope_json: "{", public_keys: [a.publicPem] });
  assert.equal(garbage.reason, "syntax_error");
  assert.equal(garbage.step, "envelope");
  await assert.rejects(
    verifyAttestationOp({ envelope_json: "{}", public_keys: ["nope"] }),
    (e) => e instanceof EmpiricError && e.code === "key_invalid",
  );
  await assert.rejects(
    verifyAttestationOp({ envelope_json: "{}", policy: { version: 1, keys: ["a.pub"] } }),
    (e) => e instanceof EmpiricError && e.code === "policy_invalid",
  );
  await assert.rejects(
    verifyAttestationOp({ envelope_json: "{}" }),
    (e) => e instanceof EmpiricError && e.code === "key_invalid",
  );
});

Deno.test("register_scenario: output schema, deterministic under SOURCE_DATE_EPOCH", async () => {
  const a = await generateKeyPair("ed25519");
  const env = await testEnv({ SOURCE_DATE_EPOCH: "1767225600" });
  const one = await registerScenarioOp({ scenario: "arithmetic-accuracy" }, {
    env,
    signingKeys: [a.privateKey],
  });
  RegisterScenarioOutput.parse(one.result);
  assert.equal(one.result.registered_at, "2026-01-01T00:00:00Z");
  assert.deepEqual(one.result.keyids, [a.privateKey.keyid]);
  const two = await registerScenarioOp({ scenario: "arithmetic-accuracy" }, {
    env,
    signingKeys: [a.privateKey],
  });
  assert.equal(two.result.digest, one.result.digest); // same facts, same time: same payload
  await assert.rejects(
    registerScenarioOp({ scenario: "arithmetic-accuracy" }, { env, signingKeys: [] }),
    (e) => e instanceof EmpiricError && e.code === "key_invalid",
  );
});
