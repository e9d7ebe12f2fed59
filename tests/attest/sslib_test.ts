// securesystemslib (PyPI), an independent DSSE implementation, against empiric in both
// directions, for Ed25519 and ECDSA P-256: envelopes empiric signs verify there with
// Envelope.verify and SSlibKey.from_crypto; envelopes it signs (CryptoSigner) verify here; a
// changed payload or a wrong key fails on both sides.
import assert from "node:assert/strict";
import { generateKeyPair, KEY_ALGORITHMS, type KeyAlgorithm } from "../../src/attest/keys.ts";
import { verifyAttestation } from "../../src/attest/verify.ts";
import { toDsseEnvelope } from "../../src/export/intoto.ts";
import { base64Decode, base64Encode } from "../../src/crypto/base64.ts";
import { pythonModule } from "../support/peers.ts";

const available = await pythonModule("securesystemslib");
const PEER = new URL("./sslib_peer.py", import.meta.url).pathname;
const recordText = Deno.readTextFileSync(
  new URL("../../fixtures/records/valid.json", import.meta.url),
);

async function peer(args: string[]): Promise<string> {
  const out = await new Deno.Command("python3", { args: [PEER, ...args], stderr: "piped" })
    .output();
  const err = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `sslib_peer.py ${args[0]} failed: ${err}`);
  return new TextDecoder().decode(out.stdout);
}

async function keyFiles(dir: string, name: string, algorithm: KeyAlgorithm) {
  const pair = await generateKeyPair(algorithm);
  await Deno.writeTextFile(`${dir}/${name}.key`, pair.privatePem);
  await Deno.writeTextFile(`${dir}/${name}.pub`, pair.publicPem);
  return { ...pair, key: `${dir}/${name}.key`, pub: `${dir}/${name}.pub` };
}

function changedPayload(env: { payload: string }): string {
  const text = new TextDecoder().decode(base64Decode(env.payload)!);
  const changed = text.replace('"VALIDATED"', '"REFUTED"');
  assert.notEqual(changed, text);
  return base64Encode(new TextEncoder().encode(changed));
}

for (const algorithm of KEY_ALGORITHMS) {
  Deno.test({
    name:
      `securesystemslib verifies empiric's ${algorithm} envelopes; a changed payload or wrong key fails`,
    ignore: !available,
    fn: async () => {
      const dir = await Deno.makeTempDir();
      try {
        const a = await keyFiles(dir, "a", algorithm);
        const wrong = await keyFiles(dir, "wrong", algorithm);
        const env = await toDsseEnvelope(recordText, { signingKeys: [a.privateKey] });
        await Deno.writeTextFile(`${dir}/env.json`, JSON.stringify(env));
        const ok = JSON.parse(
          await peer(["verify", `${dir}/env.json`, "1", `${a.pub}:${a.privateKey.keyid}`]),
        );
        assert.deepEqual(ok, { ok: true, keyids: [a.privateKey.keyid] });
        // The wrong key (given the signature's keyid, so securesystemslib tries it) fails.
        const bad = JSON.parse(
          await peer(["verify", `${dir}/env.json`, "1", `${wrong.pub}:${a.privateKey.keyid}`]),
        );
        assert.equal(bad.ok, false);
        // A changed payload fails there and here.
        const tampered = { ...env, payload: changedPayload(env) };
        await Deno.writeTextFile(`${dir}/tampered.json`, JSON.stringify(tampered));
        const t = JSON.parse(
          await peer(["verify", `${dir}/tampered.json`, "1", `${a.pub}:${a.privateKey.keyid}`]),
        );
        assert.equal(t.ok, false);
        const here = await verifyAttestation(tampered, { publicKeys: [a.privateKey.publicKey] });
        assert.equal(here.reason, "signature_mismatch");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });

  Deno.test({
    name: `empiric verifies securesystemslib's ${algorithm} envelopes (its own key ids too)`,
    ignore: !available,
    fn: async () => {
      const dir = await Deno.makeTempDir();
      try {
        const a = await keyFiles(dir, "a", algorithm);
        const wrong = await keyFiles(dir, "wrong", algorithm);
        const payload = (await toDsseEnvelope(recordText, { signingKeys: [a.privateKey] })).payload;
        await Deno.writeFile(`${dir}/statement.json`, base64Decode(payload)!);
        // One signature with empiric's key id, one with securesystemslib's own.
        const env = JSON.parse(
          await peer([
            "sign",
            `${dir}/statement.json`,
            "application/vnd.in-toto+json",
            `${a.key}:${a.privateKey.keyid}`,
          ]),
        );
        const r = await verifyAttestation(env, { publicKeys: [a.privateKey.publicKey] });
        assert.equal(r.verified, true, r.message ?? "");
        assert.deepEqual(r.signers, [a.privateKey.keyid]);
        assert.equal(r.record?.valid, true);
        const own = JSON.parse(
          await peer(["sign", `${dir}/statement.json`, "application/vnd.in-toto+json", a.key]),
        );
        assert.notEqual(own.signatures[0].keyid, a.privateKey.keyid);
        assert.equal(
          (await verifyAttestation(own, { publicKeys: [a.privateKey.publicKey] })).verified,
          true,
        );
        // The wrong key, and a changed payload, fail.
        const w = await verifyAttestation(env, { publicKeys: [wrong.privateKey.publicKey] });
        assert.equal(w.reason, "signature_mismatch");
        const t = await verifyAttestation({ ...env, payload: changedPayload(env) }, {
          publicKeys: [a.privateKey.publicKey],
        });
        assert.equal(t.reason, "signature_mismatch");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
