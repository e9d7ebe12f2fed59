// Sigstore bundles v0.3: what empiric writes is a valid bundle for @sigstore/bundle, names the
// key by hint, verifies in empiric for both algorithms, and for Ed25519 also under
// @sigstore/verify (sigstore-js's verifier). ECDSA bundles are checked by cosign
// (tests/attest/cosign_test.ts): @sigstore/verify cannot check them under Deno (docs/keys.md).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { BUNDLE_V03_MEDIA_TYPE, bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { generateKeyPair, KEY_ALGORITHMS } from "../../src/attest/keys.ts";
import { envelopeFromBundle, toSigstoreBundle } from "../../src/attest/sigstore.ts";
import { verifyAttestation } from "../../src/attest/verify.ts";
import { toDsseEnvelope } from "../../src/export/intoto.ts";
import { toPlainJson } from "../../src/json/plain.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import type { JsonObject } from "../../src/json/value.ts";

const record = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));

for (const algorithm of KEY_ALGORITHMS) {
  Deno.test(`Sigstore bundle v0.3 of a ${algorithm} attestation: valid, hinted, verifies`, async () => {
    const { privateKey } = await generateKeyPair(algorithm);
    const env = await toDsseEnvelope(record, { signingKeys: [privateKey] });
    const bundle = toSigstoreBundle(env);
    const plain = toPlainJson(bundle) as Record<string, never>;
    assert.equal(plain.mediaType, BUNDLE_V03_MEDIA_TYPE);
    assert.equal(plain.mediaType, "application/vnd.dev.sigstore.bundle.v0.3+json");
    assert.deepEqual(
      (plain.verificationMaterial as JsonObject).publicKey,
      { hint: privateKey.keyid },
    );
    assert.equal(
      ((plain.dsseEnvelope as JsonObject).signatures as JsonObject[])[0].keyid ?? "",
      "",
      "the key is named by the hint; cosign skips a signature whose keyid it does not know",
    );
    bundleFromJSON(plain); // @sigstore/bundle's validation
    const back = envelopeFromBundle(bundle);
    assert.deepEqual(back, env);
    const r = await verifyAttestation(back, { publicKeys: [privateKey.publicKey] });
    assert.equal(r.verified, true, r.message ?? "");
  });
}

Deno.test("@sigstore/verify verifies empiric's Ed25519 bundles, and rejects a wrong key", async () => {
  const { privateKey } = await generateKeyPair("ed25519");
  const other = await generateKeyPair("ed25519");
  const bundle = bundleFromJSON(
    toPlainJson(toSigstoreBundle(await toDsseEnvelope(record, { signingKeys: [privateKey] }))),
  );
  const root = {
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    certificateAuthorities: [],
    ctlogs: [],
    tlogs: [],
    timestampAuthorities: [],
  };
  const verifier = (spki: Uint8Array) =>
    new Verifier(
      toTrustMaterial(
        root as never,
        { [privateKey.keyid]: { rawBytes: Buffer.from(spki) } } as never,
      ),
      { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
    );
  assert.doesNotThrow(() => verifier(privateKey.publicKey.spki).verify(toSignedEntity(bundle)));
  assert.throws(
    () => verifier(other.privateKey.publicKey.spki).verify(toSignedEntity(bundle)),
    /signature/i,
  );
});

Deno.test("envelopeFromBundle refuses what is not a public-key DSSE bundle", () => {
  const bad: unknown[] = [
    { mediaType: BUNDLE_V03_MEDIA_TYPE },
    { mediaType: BUNDLE_V03_MEDIA_TYPE, verificationMaterial: { publicKey: { hint: "x" } } },
  ];
  for (const b of bad) {
    assert.throws(
      () => envelopeFromBundle(b as JsonObject),
      (e) => e instanceof EmpiricError && e.code === "schema_invalid",
    );
  }
});
