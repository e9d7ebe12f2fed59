// Trust policies, one test per rule: trusted keys (by value, by path, by id), min_signatures,
// predicate_types, outcomes; and every way a policy file can be malformed.
import assert from "node:assert/strict";
import { type GeneratedKeyPair, generateKeyPair } from "../../src/attest/keys.ts";
import { readPolicy } from "../../src/attest/policy.ts";
import { verifyAttestation } from "../../src/attest/verify.ts";
import { toDsseEnvelope } from "../../src/export/intoto.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { ERROR_TABLE } from "../../src/errors/codes.ts";
import { createRegistration } from "../../src/attest/registration.ts";

const fixture = (n: string) =>
  Deno.readTextFileSync(new URL(`../../fixtures/records/${n}`, import.meta.url));
const validated = fixture("valid.json");
const refuted = fixture("valid-refuted-int-threshold.json");

const [a, b, c] = await Promise.all([
  generateKeyPair("ed25519"),
  generateKeyPair("ecdsa-p256"),
  generateKeyPair("ed25519"),
]);
const pub = (k: GeneratedKeyPair) => k.privateKey.publicKey;
const signed = (record: string, ...keys: GeneratedKeyPair[]) =>
  toDsseEnvelope(record, { signingKeys: keys.map((k) => k.privateKey) });
const policy = (p: Record<string, unknown>) =>
  readPolicy(JSON.stringify({ version: 1, ...p }), "policy.json");

Deno.test("policy keys: a policy that names keys trusts exactly those", async () => {
  const env = await signed(validated, a);
  const trusting = await policy({ keys: [a.publicPem] });
  const r = await verifyAttestation(env, { policy: trusting });
  assert.equal(r.verified, true, r.message ?? "");
  assert.deepEqual(r.signers, [a.privateKey.keyid]);
  // Signed by a key given on the command line but not named by the policy: untrusted.
  const other = await policy({ keys: [b.publicPem] });
  const u = await verifyAttestation(env, { policy: other, publicKeys: [pub(a)] });
  assert.equal(u.verified, false);
  assert.equal(u.step, "trust");
  assert.equal(u.reason, "untrusted_signer");
  assert.deepEqual(u.signatures, [
    { index: 0, keyid: a.privateKey.keyid, verified_by: a.privateKey.keyid, trusted: false },
  ]);
  // Without any key that verifies: signature_mismatch, not untrusted_signer.
  const none = await verifyAttestation(env, { policy: other });
  assert.equal(none.reason, "signature_mismatch");
});

Deno.test("policy keyids: trusted ids, keys from --public-key; an unnamed key is untrusted", async () => {
  const env = await signed(validated, a);
  const byId = await policy({ keyids: [a.privateKey.keyid] });
  assert.equal(
    (await verifyAttestation(env, { policy: byId, publicKeys: [pub(a)] })).verified,
    true,
  );
  const wrongId = await policy({ keyids: [c.privateKey.keyid] });
  const r = await verifyAttestation(env, { policy: wrongId, publicKeys: [pub(a), pub(c)] });
  assert.equal(r.reason, "untrusted_signer");
  // A policy naming no key trusts the given keys.
  const open = await policy({});
  assert.equal(
    (await verifyAttestation(env, { policy: open, publicKeys: [pub(a)] })).verified,
    true,
  );
});

Deno.test("policy min_signatures: distinct trusted keys, a key signing twice counts once", async () => {
  const two = await policy({ keys: [a.publicPem, b.publicPem], min_signatures: 2 });
  const one = await signed(validated, a);
  const r = await verifyAttestation(one, { policy: two });
  assert.equal(r.step, "threshold");
  assert.equal(r.reason, "signature_threshold");
  assert.match(r.message!, /1 trusted key signed; the policy requires 2/);
  assert.equal(
    (await verifyAttestation(await signed(validated, a, b), { policy: two })).verified,
    true,
  );
  const twice = await signed(validated, a, a);
  assert.equal((await verifyAttestation(twice, { policy: two })).reason, "signature_threshold");
  // A third, untrusted signer does not make up for a missing trusted one.
  const withUntrusted = await signed(validated, a, c);
  const u = await verifyAttestation(withUntrusted, { policy: two, publicKeys: [pub(c)] });
  assert.equal(u.reason, "signature_threshold");
});

Deno.test("policy predicate_types: only the listed types pass; default: the types empiric knows", async () => {
  const env = await signed(validated, a);
  const onlyTests = await policy({
    keys: [a.publicPem],
    predicate_types: ["https://in-toto.io/attestation/test-result/v0.1"],
  });
  const r = await verifyAttestation(env, { policy: onlyTests });
  assert.equal(r.step, "predicate_type");
  assert.equal(r.reason, "policy_violation");
  assert.match(r.message!, /proof-record\/v1 is not accepted by policy\.json/);
  const records = await policy({
    keys: [a.publicPem],
    predicate_types: ["https://empiric.dev/attestation/proof-record/v1"],
  });
  assert.equal((await verifyAttestation(env, { policy: records })).verified, true);
});

Deno.test("policy outcomes: VALIDATED only refuses a REFUTED record and a registration", async () => {
  const gate = await policy({ keys: [a.publicPem], outcomes: ["VALIDATED"] });
  const ok = await verifyAttestation(await signed(validated, a), { policy: gate });
  assert.equal(ok.verified, true);
  assert.equal(ok.outcome, "VALIDATED");
  const r = await verifyAttestation(await signed(refuted, a), { policy: gate });
  assert.equal(r.step, "outcome");
  assert.equal(r.reason, "policy_violation");
  assert.equal(r.outcome, "REFUTED");
  const either = await policy({ keys: [a.publicPem], outcomes: ["VALIDATED", "REFUTED"] });
  assert.equal(
    (await verifyAttestation(await signed(refuted, a), { policy: either })).verified,
    true,
  );
  const reg = await createRegistration({
    facts: {
      scenario: "s",
      claim: {
        statement: "s",
        operationalization: "o",
        threshold: { metric: "m", comparator: "<=", value: 1.5, units: "ms" },
        h0: "h0",
        h1: "h1",
      },
      config_hash: "a".repeat(64),
      data_hash: "b".repeat(64),
      analysis_plan: "p",
      datasets: [],
    },
    now: 0,
    empiricVersion: "0.1.0",
    signingKeys: [a.privateKey],
  });
  const g = await verifyAttestation(reg.envelope, { policy: gate });
  assert.equal(g.step, "outcome");
  assert.match(g.message!, /states no verdict outcome/);
});

Deno.test("policy files: key paths are relative to the policy; malformed policies name the member", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/keys`);
    await Deno.writeTextFile(`${dir}/keys/a.pub`, a.publicPem);
    const readFile = (p: string) => Deno.readFile(p);
    const p = await readPolicy(
      JSON.stringify({ version: 1, keys: ["keys/a.pub"] }),
      `${dir}/policy.json`,
      { readFile },
    );
    assert.equal(p.keys[0].keyid, a.privateKey.keyid);
    const bad: [unknown, RegExp][] = [
      [{ version: 2 }, /\/version: must be 1/],
      [{ version: 1, outcome: ["VALIDATED"] }, /\/outcome: unknown member/],
      [{ version: 1, keyids: ["ABC"] }, /\/keyids\/0: a key id is 64 lowercase hex/],
      [{ version: 1, min_signatures: 0 }, /\/min_signatures: must be a whole number/],
      [{ version: 1, min_signatures: 1.0 }, /\/min_signatures/],
      [{ version: 1, outcomes: ["PASSED"] }, /\/outcomes\/0: must be one of VALIDATED/],
      [{ version: 1, outcomes: [] }, /\/outcomes: must be a non-empty array/],
      [{ version: 1, keys: ["keys/missing.pub"] }, /\/keys\/0: cannot read/],
      [
        { version: 1, keys: ["-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"] },
        /\/keys\/0/,
      ],
      [[], /a policy is a JSON object/],
    ];
    for (const [value, message] of bad) {
      const text = JSON.stringify(value).replace('"min_signatures":1}', '"min_signatures":1.0}');
      await assert.rejects(
        readPolicy(text, `${dir}/policy.json`, { readFile }),
        (e) => e instanceof EmpiricError && e.code === "policy_invalid" && message.test(e.message),
        `${text} should fail with ${message}`,
      );
    }
    await assert.rejects(
      readPolicy("{", "p.json"),
      (e) =>
        e instanceof EmpiricError && e.code === "policy_invalid" && /^p\.json: /.test(e.message),
    );
    // Without a file system (HTTP, MCP), a key path is refused.
    await assert.rejects(
      readPolicy({ version: 1n, keys: ["keys/a.pub"] }, "policy"),
      /key paths need a file system/,
    );
    assert.equal(ERROR_TABLE.policy_invalid.exit, 65);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
