// The shared attestation vectors (fixtures/attestations/, generated independently in Python
// with `cryptography`): empiric verifies each case as every port must, and its exporters
// produce exactly the payload bytes the generator built.
import assert from "node:assert/strict";
import { importPrivateKey, importPublicKey } from "../../src/attest/keys.ts";
import { verifyAttestation } from "../../src/attest/verify.ts";
import { registrationStatement } from "../../src/attest/registration.ts";
import { statementBytes, toInTotoStatement } from "../../src/export/intoto.ts";
import { toTestResultStatement } from "../../src/export/test_result.ts";
import { canonicalBytes } from "../../src/json/canonical.ts";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonObject, JsonValue } from "../../src/json/value.ts";
import { toPlainJson } from "../../src/json/plain.ts";

const DIR = new URL("../../fixtures/attestations/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, DIR));
const recordText = Deno.readTextFileSync(
  new URL("../../fixtures/records/valid.json", import.meta.url),
);

interface Case {
  envelope: string;
  public_keys: string[];
  expect: { verified: boolean; reason: string | null; signers: string[] };
  note: string;
}
const manifest = JSON.parse(read("cases.json")) as {
  keyids: Record<string, string>;
  cases: Case[];
};

Deno.test("attestation fixtures: the key ids are the SHA-256 of the SPKI, as empiric computes them", async () => {
  for (const [name, id] of Object.entries(manifest.keyids)) {
    assert.equal((await importPublicKey(read(`keys/${name}.pub`), name)).keyid, id, name);
  }
  for (const name of ["ed25519", "p256"]) {
    const k = await importPrivateKey(read(`keys/${name}.key`), name);
    assert.equal(k.keyid, manifest.keyids[name]);
  }
});

for (const c of manifest.cases) {
  Deno.test(`attestation fixtures: ${c.envelope} with ${c.public_keys.join(", ")}: ${c.note}`, async () => {
    const keys = [];
    for (const k of c.public_keys) keys.push(await importPublicKey(read(k), k));
    const r = await verifyAttestation(read(c.envelope), { publicKeys: keys });
    assert.equal(r.verified, c.expect.verified, r.message ?? "");
    assert.equal(r.reason, c.expect.reason);
    assert.deepEqual(r.signers, c.expect.signers);
  });
}

Deno.test("attestation fixtures: the exporters write the payloads the Python generator built", async () => {
  const proof = await toInTotoStatement(recordText, { fileName: "valid.json" });
  assert.equal(new TextDecoder().decode(statementBytes(proof)) + "\n", read("proof.payload.json"));
  const tr = await toTestResultStatement(recordText, { fileName: "valid.json" });
  assert.equal(
    new TextDecoder().decode(statementBytes(tr)) + "\n",
    read("test-result.payload.json"),
  );
  const reg = parseJson(read("registration.payload.json")) as JsonObject;
  const p = reg.predicate as JsonObject;
  const plain = toPlainJson(p) as Record<string, never>;
  const again = registrationStatement(
    {
      scenario: plain.scenario,
      claim: toPlainJson((parseJson(recordText) as JsonObject).claim as JsonValue) as never,
      config_hash: plain.config_hash,
      data_hash: plain.data_hash,
      analysis_plan: plain.analysis_plan,
      datasets: plain.datasets,
    },
    plain.registered_at,
    plain.empiric_version,
  );
  // The claim's threshold value is a float (50.0): rebuilt from the typed record, not plain JSON.
  again.predicate.claim = (parseJson(recordText) as JsonObject).claim;
  assert.equal(
    new TextDecoder().decode(canonicalBytes(again as unknown as JsonValue)) + "\n",
    read("registration.payload.json"),
  );
});
