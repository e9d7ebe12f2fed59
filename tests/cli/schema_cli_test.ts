// End-to-end tests of `empiric schema info|validate` and `empiric canonicalize` through the
// real entry point.
import assert from "node:assert/strict";
import { runCli } from "../support/run_cli.ts";
import { FIXTURE_KEY_TEXT } from "../support/env.ts";

const records = new URL("../../fixtures/records/", import.meta.url).pathname;
const TEST_KEY = FIXTURE_KEY_TEXT;
const vectors = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/wire/vectors.json", import.meta.url)),
);

async function tempDir(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "empiric-cli-" });
  for (const [name, text] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return dir;
}

Deno.test("schema info prints the four labelled lines and the demo-key status", async () => {
  const r = await runCli(["schema", "info", `${records}valid-demo-key.json`]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^path: +.*valid-demo-key\.json$/);
  assert.match(lines[1], /^kind: +proof$/);
  assert.match(lines[2], /^schema_version: +1\.0$/);
  assert.match(lines[3], /^signature: +[0-9a-f]{16}… \(present\)$/);
  assert.match(lines[4], /VERIFIES under the public demo key/);
  const other = await runCli(["schema", "info", `${records}valid.json`]);
  assert.match(other.stdout, /does not verify under the demo key/);
});

Deno.test("schema info --json", async () => {
  const r = await runCli(["schema", "info", "--json", `${records}valid.json`]);
  const s = JSON.parse(r.stdout);
  assert.equal(s.kind, "proof");
  assert.equal(s.schema_version, "1.0");
  assert.equal(s.demo_key_verifies, false);
  assert.match(s.proof_id, /^[0-9a-f]{64}$/);
});

Deno.test("schema validate: a good record passes with and without the key", async () => {
  const withKey = await runCli(["schema", "validate", `${records}valid.json`, "--key", TEST_KEY]);
  assert.equal(withKey.code, 0, withKey.stdout + withKey.stderr);
  assert.match(withKey.stdout, /^OK .*signature verified/m);
  const noKey = await runCli(["schema", "validate", `${records}valid.json`]);
  assert.equal(noKey.code, 0);
  assert.match(noKey.stdout, /signature not checked \(no key\)/);
});

Deno.test("schema validate: key from EMPIRIC_SIGN_KEY and from --key-file", async () => {
  const env = await runCli(["schema", "validate", `${records}valid.json`], {
    env: { EMPIRIC_SIGN_KEY: TEST_KEY },
  });
  assert.equal(env.code, 0);
  assert.match(env.stdout, /signature verified/);
  const wrongEnv = await runCli(["schema", "validate", `${records}valid.json`], {
    env: { EMPIRIC_SIGN_KEY: "x".repeat(40) },
  });
  assert.equal(wrongEnv.code, 2);
  const dir = await tempDir({ "key.txt": TEST_KEY + "\n" });
  const file = await runCli([
    "schema",
    "validate",
    `${records}valid.json`,
    "--key-file",
    `${dir}/key.txt`,
  ]);
  assert.equal(file.code, 0, file.stdout + file.stderr);
});

const tampered: [string, RegExp][] = [
  ["tampered-float-to-int.json", /proof_id_mismatch/],
  ["tampered-changed-character.json", /proof_id_mismatch/],
  ["tampered-duplicate-key.json", /duplicate_key: duplicate key "h0".*line 19, column 5/],
  ["tampered-wrong-proof-id.json", /proof_id_mismatch: identity\.proof_id is f{64}/],
  ["tampered-truncated.json", /syntax_error: .*end of input.*line \d+/],
  ["tampered-id-recomputed.json", /signature_mismatch/],
  ["tampered-signature.json", /signature_mismatch/],
  ["malformed-no-signature.json", /schema_invalid: \/signature is required/],
];
for (const [file, message] of tampered) {
  Deno.test(`schema validate: ${file} fails with exit 2 and names the problem`, async () => {
    const r = await runCli(["schema", "validate", `${records}${file}`, "--key", TEST_KEY]);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stdout, /^FAIL /m);
    assert.match(r.stdout, message);
    assert.doesNotMatch(r.stderr + r.stdout, /at \S+\.ts:\d+/, "no stack trace");
  });
}

Deno.test("schema validate: float turned into an int is caught even without a key", async () => {
  const r = await runCli(["schema", "validate", `${records}tampered-float-to-int.json`]);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /proof_id_mismatch/);
});

Deno.test("schema validate --recursive: OK/FAIL per file and a summary; exit 2 on any failure", async () => {
  const good = await Deno.readTextFile(`${records}valid.json`);
  const dir = await tempDir({
    "a/one.json": good,
    "a/b/two.json": good,
    "c/bad.json": good.replace('"VALIDATED"', '"REFUTED"'),
    "notes.txt": "not json",
    ".hidden.json": "{",
  });
  const r = await runCli(["schema", "validate", dir, "--recursive", "--key", TEST_KEY]);
  assert.equal(r.code, 2);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines.filter((l) => l.startsWith("OK")).length, 2);
  assert.equal(lines.filter((l) => l.startsWith("FAIL")).length, 1);
  assert.equal(lines.at(-1), "3 files: 2 OK, 1 FAIL");
  await Deno.remove(`${dir}/c`, { recursive: true });
  const ok = await runCli(["schema", "validate", dir, "-r", "--key", TEST_KEY, "--json"]);
  assert.equal(ok.code, 0);
  const objs = ok.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(objs.length, 3);
  assert.deepEqual(objs[2].summary, { files: 2, ok: 2, failed: 0, key: "option" });
  assert.equal(objs[0].verified, true);
});

Deno.test("schema validate: a directory without --recursive is a usage error (64)", async () => {
  const r = await runCli(["schema", "validate", records]);
  assert.equal(r.code, 64);
  assert.match(r.stderr, /add --recursive/);
});

Deno.test("schema validate: missing file fails with exit 2 and not_found", async () => {
  const r = await runCli(["schema", "validate", "/nonexistent/x.json"]);
  assert.equal(r.code, 2);
  assert.match(r.stdout, /not_found: no such file/);
});

Deno.test("canonicalize: stdin and files give the vectors' bytes; --sha256", async () => {
  for (const v of vectors.valid.slice(0, 40)) {
    const r = await runCli(["canonicalize", "--json"], { stdin: v.input });
    assert.equal(r.code, 0, v.name);
    const out = JSON.parse(r.stdout);
    assert.equal(out.canonical, v.canonical, v.name);
    assert.equal(out.sha256, v.sha256, v.name);
  }
  const raw = await runCli(["canonicalize", "-"], { stdin: '{"b": 1.0, "a": 1}' });
  assert.equal(raw.stdout, '{"a":1,"b":1.0}', "exact bytes, no newline");
  const sha = await runCli(["canonicalize", `${records}valid-compact.json`, "--sha256"]);
  assert.match(sha.stdout, /^[0-9a-f]{64}\n$/);
});

Deno.test("canonicalize: invalid input exits 2 with the code and position", async () => {
  const r = await runCli(["canonicalize"], { stdin: '{"a": 1,\n "a": 2}' });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^empiric: duplicate_key: duplicate key "a" .*line 2, column 2/);
  const nan = await runCli(["canonicalize"], { stdin: "[NaN]" });
  assert.equal(nan.code, 2);
  assert.match(nan.stderr, /non_finite_number/);
});

Deno.test("--version, --help on every command, unknown commands and options", async () => {
  const v = await runCli(["--version"]);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^empiric \d+\.\d+\.\d+\n$/);
  for (
    const args of [["--help"], ["schema", "--help"], ["schema", "info", "--help"], [
      "schema",
      "validate",
      "--help",
    ], ["canonicalize", "--help"]]
  ) {
    const h = await runCli(args);
    assert.equal(h.code, 0, args.join(" "));
    assert.match(h.stdout, /Usage: empiric/);
  }
  const bad = await runCli(["schema", "validate", "--frobnicate", "x"]);
  assert.equal(bad.code, 64);
  assert.match(bad.stderr, /unknown option '--frobnicate'/);
  const unknown = await runCli(["bogus"]);
  assert.equal(unknown.code, 64);
});

Deno.test("--key and --key-file together is a usage error", async () => {
  const r = await runCli([
    "schema",
    "validate",
    `${records}valid.json`,
    "--key",
    "a",
    "--key-file",
    "b",
  ]);
  assert.equal(r.code, 64);
});

Deno.test("schema info recognizes each export format and names the command that reads it", async () => {
  const dir = await tempDir({ "dsse.key": "d".repeat(40) });
  try {
    const rec = `${records}valid.json`;
    const make = [
      ["dsse-envelope", ["export", "dsse", rec, "--dsse-key-file", `${dir}/dsse.key`]],
      ["in-toto-statement", ["export", "in-toto", rec]],
      ["cloudevent", ["export", "cloudevent", rec]],
      ["openlineage-event", ["export", "openlineage", rec]],
    ] as const;
    for (const [kind, args] of make) {
      const out = await runCli([...args, "--out", `${dir}/${kind}.json`]);
      assert.equal(out.code, 0, `${kind}: ${out.stderr}`);
      const info = await runCli(["schema", "info", `${dir}/${kind}.json`]);
      assert.equal(info.code, 0, info.stderr);
      assert.match(info.stdout, new RegExp(`^kind: +${kind}$`, "m"), kind);
      assert.match(info.stdout, /^read with: +\S/m, kind);
    }
    const crate = await runCli(["export", "ro-crate", rec, "--out", `${dir}/crate`]);
    assert.equal(crate.code, 0, crate.stderr);
    const info = await runCli(["schema", "info", "--json", `${dir}/crate/ro-crate-metadata.json`]);
    const s = JSON.parse(info.stdout);
    assert.equal(s.kind, "ro-crate-metadata");
    assert.match(s.read_with, /schema validate CRATE\/proof\.json/);
    const proof = JSON.parse((await runCli(["schema", "info", "--json", rec])).stdout);
    assert.equal(proof.read_with, null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
