// The command line of public-key attestations, end to end through cli.ts: keygen (modes,
// refusing to overwrite), keyid, export dsse with several keys, verify-dsse with keys, a
// policy file and --json, register, and run --registration (match, changed data, wrong key).
import assert from "node:assert/strict";
import { runCli } from "../support/run_cli.ts";

const record = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));
const refuted = Deno.readTextFileSync(
  new URL("../../fixtures/records/valid-refuted-int-threshold.json", import.meta.url),
);

async function inDir(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("keygen writes PKCS#8 (0600) and SPKI PEM, prints the key id, refuses to overwrite", () =>
  inDir(async (dir) => {
    const r = await runCli(["keygen", "--algorithm", "ecdsa-p256", "--out", "ci", "--json"], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.algorithm, "ecdsa-p256");
    assert.match(out.keyid, /^[0-9a-f]{64}$/);
    const key = await Deno.stat(`${dir}/ci.key`);
    assert.equal(key.mode! & 0o777, 0o600);
    assert.match(await Deno.readTextFile(`${dir}/ci.key`), /^-----BEGIN PRIVATE KEY-----\n/);
    assert.match(await Deno.readTextFile(`${dir}/ci.pub`), /^-----BEGIN PUBLIC KEY-----\n/);
    // openssl reads both and agrees that they are one P-256 pair
    const pub = await new Deno.Command("openssl", {
      args: ["pkey", "-in", `${dir}/ci.key`, "-pubout"],
      stdout: "piped",
    }).output();
    if (pub.success) {
      assert.equal(new TextDecoder().decode(pub.stdout), await Deno.readTextFile(`${dir}/ci.pub`));
    }
    const before = await Deno.readTextFile(`${dir}/ci.key`);
    const again = await runCli(["keygen", "--out", "ci"], { cwd: dir });
    assert.equal(again.code, 73);
    assert.match(again.stderr, /already_exists: ci\.key exists/);
    assert.equal(await Deno.readTextFile(`${dir}/ci.key`), before);
    // keyid gives the same id from either file
    for (const f of ["ci.key", "ci.pub"]) {
      const k = await runCli(["keyid", f], { cwd: dir });
      assert.equal(k.stdout, `${out.keyid}  ecdsa-p256  ${f}\n`);
    }
    const bad = await runCli(["keyid", "-"], { cwd: dir, stdin: "not a key" });
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /key_invalid: -: no PEM "PUBLIC KEY" block found/);
  }));

Deno.test("export dsse with two keys; verify-dsse with keys, a policy file, --json", () =>
  inDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/record.json`, record);
    await Deno.writeTextFile(`${dir}/refuted.json`, refuted);
    const ids: string[] = [];
    for (const [name, alg] of [["a", "ed25519"], ["b", "ecdsa-p256"], ["c", "ed25519"]]) {
      const k = await runCli(["keygen", "--algorithm", alg, "--out", name], { cwd: dir });
      ids.push(k.stdout.trim());
    }
    const ex = await runCli(
      [
        "export",
        "dsse",
        "record.json",
        "--signing-key",
        "a.key",
        "--signing-key",
        "b.key",
        "--out",
        "env.json",
      ],
      { cwd: dir },
    );
    assert.equal(ex.code, 0, ex.stderr);
    assert.match(ex.stderr, new RegExp(`signed with ed25519 key ${ids[0]}`));
    const env = JSON.parse(await Deno.readTextFile(`${dir}/env.json`));
    assert.deepEqual(env.signatures.map((s: { keyid: string }) => s.keyid), [ids[0], ids[1]]);
    await runCli([
      "export",
      "dsse",
      "refuted.json",
      "--signing-key",
      "a.key",
      "--out",
      "refuted.env.json",
    ], { cwd: dir });

    const ok = await runCli([
      "verify-dsse",
      "env.json",
      "--public-key",
      "a.pub",
      "--public-key",
      "b.pub",
    ], { cwd: dir });
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /OK {4}envelope: 2 trusted signatures \(1 required\)/);
    const wrong = await runCli(["verify-dsse", "env.json", "--public-key", "c.pub", "--json"], {
      cwd: dir,
    });
    assert.equal(wrong.code, 2);
    const j = JSON.parse(wrong.stdout);
    assert.equal(j.ok, false);
    assert.equal(j.attestation.reason, "signature_mismatch");
    assert.equal(j.attestation.step, "signatures");

    await Deno.mkdir(`${dir}/policy`);
    const policy = {
      version: 1,
      keys: ["../a.pub", "../b.pub"],
      min_signatures: 2,
      predicate_types: ["https://empiric.dev/attestation/proof-record/v1"],
      outcomes: ["VALIDATED"],
    };
    await Deno.writeTextFile(`${dir}/policy/gate.json`, JSON.stringify(policy));
    const gate = await runCli(
      ["verify-dsse", "env.json", "--policy", "policy/gate.json", "--json"],
      { cwd: dir },
    );
    assert.equal(gate.code, 0, gate.stdout + gate.stderr);
    assert.deepEqual(JSON.parse(gate.stdout).attestation.signers, [ids[0], ids[1]]);
    const one = await runCli(["verify-dsse", "refuted.env.json", "--policy", "policy/gate.json"], {
      cwd: dir,
    });
    assert.equal(one.code, 2);
    assert.match(
      one.stdout,
      /FAIL {2}threshold: signature_threshold: 1 trusted key signed; the policy requires 2/,
    );
    await Deno.writeTextFile(
      `${dir}/policy/outcome.json`,
      JSON.stringify({ ...policy, min_signatures: 1 }),
    );
    const out = await runCli(
      ["verify-dsse", "refuted.env.json", "--policy", "policy/outcome.json"],
      { cwd: dir },
    );
    assert.equal(out.code, 2);
    assert.match(out.stdout, /FAIL {2}outcome: policy_violation: outcome REFUTED is not accepted/);
    // A signer the policy does not name
    await runCli(
      ["export", "dsse", "record.json", "--signing-key", "c.key", "--out", "c.env.json"],
      { cwd: dir },
    );
    const u = await runCli(
      ["verify-dsse", "c.env.json", "--policy", "policy/outcome.json", "--public-key", "c.pub"],
      { cwd: dir },
    );
    assert.equal(u.code, 2);
    assert.match(u.stdout, /WARN {2}signature 0: verified by key .* \(not trusted by the policy\)/);
    assert.match(u.stdout, /FAIL {2}trust: untrusted_signer/);
    // A malformed policy is a data error (65), naming the member
    await Deno.writeTextFile(`${dir}/policy/bad.json`, '{"version": 1, "min_signature": 2}');
    const bad = await runCli(["verify-dsse", "env.json", "--policy", "policy/bad.json"], {
      cwd: dir,
    });
    assert.equal(bad.code, 65);
    assert.match(bad.stderr, /policy_invalid: policy\/bad\.json: \/min_signature: unknown member/);
    // No key of any kind: a usage error
    const none = await runCli(["verify-dsse", "env.json"], { cwd: dir });
    assert.equal(none.code, 64);
  }));

Deno.test("register, then run --registration: matches; changed data or a wrong key refuses to run", () =>
  inDir(async (dir) => {
    await runCli(["keygen", "--out", "reg"], { cwd: dir });
    await runCli(["keygen", "--out", "other"], { cwd: dir });
    const reg = await runCli(
      [
        "register",
        "arithmetic-accuracy",
        "--signing-key",
        "reg.key",
        "--out",
        "reg.dsse.json",
        "--json",
      ],
      { cwd: dir, env: { SOURCE_DATE_EPOCH: "1767225600" } },
    );
    assert.equal(reg.code, 0, reg.stderr);
    const summary = JSON.parse(reg.stdout);
    assert.equal(summary.registered_at, "2026-01-01T00:00:00Z");
    assert.match(reg.stderr, /digest: +[0-9a-f]{64}/);
    const v = await runCli(["verify-dsse", "reg.dsse.json", "--public-key", "reg.pub"], {
      cwd: dir,
    });
    assert.equal(v.code, 0, v.stdout);
    assert.match(v.stdout, /statement: https:\/\/empiric\.dev\/attestation\/registration\/v1/);

    const run = await runCli(
      [
        "run",
        "arithmetic-accuracy",
        "--no-store",
        "--out",
        "rec.json",
        "-q",
        "--registration",
        "reg.dsse.json",
        "--registration-key",
        "reg.pub",
      ],
      { cwd: dir, env: { EMPIRIC_SIGN_KEY: "k".repeat(32) } },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /registered: 2026-01-01T00:00:00Z, .* before the run \(registration [0-9a-f]{64}\)/,
    );
    const rec = JSON.parse(await Deno.readTextFile(`${dir}/rec.json`));
    assert.deepEqual(rec.reproduction.lineage_chain, [summary.digest]);
    const entity = rec.provenance.entity[`empiric:registration/${summary.digest}`];
    assert.equal(entity["empiric:registered_at"], "2026-01-01T00:00:00Z");
    assert.equal(
      rec.provenance.used["_:used/registration"]["prov:entity"],
      `empiric:registration/${summary.digest}`,
    );
    const valid = await runCli(["schema", "validate", "rec.json", "--key", "k".repeat(32)], {
      cwd: dir,
    });
    assert.equal(valid.code, 0, valid.stdout);

    // The wrong key: nothing runs.
    const wrong = await runCli(
      [
        "run",
        "arithmetic-accuracy",
        "--no-store",
        "-q",
        "--registration",
        "reg.dsse.json",
        "--registration-key",
        "other.pub",
      ],
      { cwd: dir, env: { EMPIRIC_SIGN_KEY: "k".repeat(32) } },
    );
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /signature_mismatch: the registration does not verify/);
    // Another scenario than the one registered: refused.
    const other = await runCli(
      [
        "run",
        "echo-latency",
        "--no-store",
        "-q",
        "--registration",
        "reg.dsse.json",
        "--registration-key",
        "reg.pub",
      ],
      { cwd: dir, env: { EMPIRIC_SIGN_KEY: "k".repeat(32) } },
    );
    assert.equal(other.code, 2);
    assert.match(
      other.stderr,
      /registration_mismatch: .*scenario: registered arithmetic-accuracy, running echo-latency/,
    );
    // A scenario file whose corpus changes after registration: refused before anything runs.
    await Deno.mkdir(`${dir}/corpora`);
    await Deno.mkdir(`${dir}/scenarios`);
    const corpus = await Deno.readTextFile(
      new URL("../../fixtures/corpora/arithmetic.jsonl", import.meta.url),
    );
    await Deno.writeTextFile(`${dir}/corpora/arithmetic.jsonl`, corpus);
    await Deno.copyFile(
      new URL("../../fixtures/scenarios/arithmetic-accuracy.yaml", import.meta.url),
      `${dir}/scenarios/arith.yaml`,
    );
    const r2 = await runCli(
      ["register", "scenarios/arith.yaml", "--signing-key", "reg.key", "--out", "arith.dsse.json"],
      { cwd: dir },
    );
    assert.equal(r2.code, 0, r2.stderr);
    const lines = corpus.trimEnd().split("\n");
    await Deno.writeTextFile(`${dir}/corpora/arithmetic.jsonl`, lines.slice(1).join("\n") + "\n");
    const changed = await runCli(
      [
        "run",
        "scenarios/arith.yaml",
        "--no-store",
        "-q",
        "--registration",
        "arith.dsse.json",
        "--registration-key",
        "reg.pub",
      ],
      { cwd: dir, env: { EMPIRIC_SIGN_KEY: "k".repeat(32) } },
    );
    assert.equal(changed.code, 2, changed.stderr);
    assert.match(
      changed.stderr,
      /registration_mismatch: .*data_hash: registered [0-9a-f]{64}, now [0-9a-f]{64} \(a dataset changed\)/,
    );
    // --registration without keys is a usage error
    const nokey = await runCli([
      "run",
      "arithmetic-accuracy",
      "--no-store",
      "--registration",
      "reg.dsse.json",
    ], {
      cwd: dir,
    });
    assert.equal(nokey.code, 64);
  }));
