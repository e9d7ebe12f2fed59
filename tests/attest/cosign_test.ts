// cosign (built from the Go module proxy), an independent verifier, checks empiric's
// public-key attestations of a record file: DSSE envelopes (`--signature`) and Sigstore bundles
// v0.3 (`--bundle`), ECDSA P-256 and Ed25519, both predicates. A changed record file, a
// changed payload, a wrong key or a wrong predicate type fails.
import assert from "node:assert/strict";
import { cosignBinary } from "../support/peers.ts";
import { runCli } from "../support/run_cli.ts";
import { base64Decode, base64Encode } from "../../src/crypto/base64.ts";

const cosign = await cosignBinary();
const record = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));
const PROOF_TYPE = "https://empiric.dev/attestation/proof-record/v1";
const TEST_TYPE = "https://in-toto.io/attestation/test-result/v0.1";

async function verifyBlob(
  args: string[],
  cwd: string,
): Promise<{ ok: boolean; stderr: string }> {
  const out = await new Deno.Command(cosign!, {
    args: ["verify-blob-attestation", "--insecure-ignore-tlog=true", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { HOME: cwd, NO_COLOR: "1" }, // no TUF cache or network needed with --key
  }).output();
  return { ok: out.success, stderr: new TextDecoder().decode(out.stderr) };
}

async function cli(args: string[], cwd: string): Promise<void> {
  const r = await runCli(args, { cwd });
  assert.equal(r.code, 0, `empiric ${args.join(" ")}: ${r.stderr}`);
}

for (const algorithm of ["ecdsa-p256", "ed25519"]) {
  Deno.test({
    name: `cosign verify-blob-attestation --key: ${algorithm} envelopes and bundles`,
    ignore: !cosign,
    fn: async () => {
      const dir = await Deno.makeTempDir();
      try {
        await Deno.writeTextFile(`${dir}/record.json`, record);
        await cli(["keygen", "--algorithm", algorithm, "--out", "k"], dir);
        await cli(["keygen", "--algorithm", algorithm, "--out", "other"], dir);
        await cli(
          ["export", "dsse", "record.json", "--signing-key", "k.key", "--out", "env.json"],
          dir,
        );
        await cli([
          "export",
          "dsse",
          "record.json",
          "--signing-key",
          "k.key",
          "--predicate",
          "test-result",
          "--out",
          "tr.json",
        ], dir);
        await cli([
          "export",
          "sigstore-bundle",
          "record.json",
          "--signing-key",
          "k.key",
          "--out",
          "b.json",
        ], dir);

        const good: [string, string][] = [
          ["--signature", "env.json"],
          ["--bundle", "b.json"],
        ];
        for (const [flag, file] of good) {
          const r = await verifyBlob([
            "--key",
            "k.pub",
            flag,
            file,
            "--type",
            PROOF_TYPE,
            "record.json",
          ], dir);
          assert.ok(r.ok, `${flag} ${file}: ${r.stderr}`);
          // the wrong key fails
          const w = await verifyBlob([
            "--key",
            "other.pub",
            flag,
            file,
            "--type",
            PROOF_TYPE,
            "record.json",
          ], dir);
          assert.ok(!w.ok, `${flag} ${file} verified under the wrong key`);
          // another predicate type than the one signed fails
          const t = await verifyBlob([
            "--key",
            "k.pub",
            flag,
            file,
            "--type",
            TEST_TYPE,
            "record.json",
          ], dir);
          assert.ok(!t.ok);
        }
        const tr = await verifyBlob([
          "--key",
          "k.pub",
          "--signature",
          "tr.json",
          "--type",
          TEST_TYPE,
          "record.json",
        ], dir);
        assert.ok(tr.ok, tr.stderr);

        // A changed record file no longer matches the subject.
        await Deno.writeTextFile(`${dir}/changed.json`, record.replace("VALIDATED", "REFUTED"));
        const c = await verifyBlob([
          "--key",
          "k.pub",
          "--signature",
          "env.json",
          "--type",
          PROOF_TYPE,
          "changed.json",
        ], dir);
        assert.ok(!c.ok);
        assert.match(c.stderr, /subject digest/);
        // A changed payload fails the signature.
        const env = JSON.parse(await Deno.readTextFile(`${dir}/env.json`));
        const payload = new TextDecoder().decode(base64Decode(env.payload)!).replace(
          '"VALIDATED"',
          '"REFUTED"',
        );
        env.payload = base64Encode(new TextEncoder().encode(payload));
        await Deno.writeTextFile(`${dir}/tampered.json`, JSON.stringify(env));
        const p = await verifyBlob([
          "--key",
          "k.pub",
          "--signature",
          "tampered.json",
          "--type",
          PROOF_TYPE,
          "record.json",
        ], dir);
        assert.ok(!p.ok);
        // empiric agrees on all of these.
        for (const [file, ok] of [["env.json", 0], ["b.json", 0], ["tampered.json", 2]] as const) {
          const r = await runCli(["verify-dsse", file, "--public-key", "k.pub"], { cwd: dir });
          assert.equal(r.code, ok, `${file}: ${r.stdout}${r.stderr}`);
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
