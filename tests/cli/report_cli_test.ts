// `empiric report` and `empiric run --report/--summary` through the real entry point: formats,
// files, stored proofs, the signature under the given key or a public-key attestation, errors.
import assert from "node:assert/strict";
import { runCli } from "../support/run_cli.ts";
import {
  copyIntoStore,
  FIXTURES,
  foreignReferences,
  loadFixture,
  REPORTS,
} from "../report/support.ts";

const KEY = "empiric-test-signing-key-0123456789abcdef";

async function bundleDir(name: "latency-later" | "sentiment-refuted"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "empiric-report-cli-" });
  await Deno.copyFile(`${REPORTS}${name}.json`, `${dir}/record.json`);
  await Deno.copyFile(`${REPORTS}${name}.observations.jsonl`, `${dir}/record.observations.jsonl`);
  return dir;
}

Deno.test("empiric report FILE: Markdown, JUnit and HTML, the signature under the given key", async () => {
  const dir = await bundleDir("sentiment-refuted");
  const md = await runCli([
    "report",
    `${dir}/record.json`,
    "--format",
    "md",
    "--key",
    KEY,
    "--store",
    `${dir}/none`,
  ]);
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /^## ❌ REFUTED: sentiment-accuracy/);
  assert.match(md.stdout, /Wrong answers: \d+/, "observations read from beside the record");
  assert.match(md.stdout, /signature verified: HMAC-SHA256 checked with the key given with --key/);
  const wrong = await runCli([
    "report",
    `${dir}/record.json`,
    "--format",
    "junit",
    "--key",
    "another-key-0123456789abcdef0123",
  ]);
  assert.equal(wrong.code, 0);
  assert.match(
    wrong.stdout,
    /<testcase name="signature"[^>]*>\s*<failure type="signature_mismatch"/,
  );
  const none = await runCli(["report", `${dir}/record.json`, "--out", `${dir}/report.html`]);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, "");
  const html = await Deno.readTextFile(`${dir}/report.html`);
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /Not verified/);
  assert.deepEqual(foreignReferences(html), []);
  const xml = await runCli([
    "report",
    `${dir}/record.json`,
    "--out",
    `${dir}/junit.xml`,
    "--junit-fail-on",
    "none",
  ]);
  assert.equal(xml.code, 0);
  assert.match(await Deno.readTextFile(`${dir}/junit.xml`), /failures="0"/);
});

Deno.test("empiric report PROOF_ID reads the store: its observations and the lineage", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-report-cli-" });
  await copyIntoStore(`${dir}/store`, FIXTURES);
  const later = await loadFixture("latency-later");
  const r = await runCli([
    "report",
    later.record.identity.proof_id,
    "--store",
    `${dir}/store`,
    "--format",
    "md",
  ], {
    env: { EMPIRIC_SIGN_KEY: KEY },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Compared with the previous proof/);
  assert.match(r.stdout, /the key in EMPIRIC\\_SIGN\\_KEY/);
  assert.match(r.stdout, /\| min \| p10 \|/);
  const missing = await runCli(["report", "0".repeat(64), "--store", `${dir}/store`]);
  assert.equal(missing.code, 66);
  assert.match(missing.stderr, /not_found: no proof record/);
});

Deno.test("empiric report: a public-key attestation of the record is checked and named", async () => {
  const dir = await bundleDir("latency-later");
  const keygen = await runCli(["keygen", "--out", `${dir}/signer`, "--json"]);
  assert.equal(keygen.code, 0, keygen.stderr);
  const keyid = JSON.parse(keygen.stdout).keyid as string;
  const dsse = await runCli([
    "export",
    "dsse",
    `${dir}/record.json`,
    "--signing-key",
    `${dir}/signer.key`,
    "--out",
    `${dir}/att.json`,
  ]);
  assert.equal(dsse.code, 0, dsse.stderr);
  const r = await runCli([
    "report",
    `${dir}/record.json`,
    "--format",
    "md",
    "--attestation",
    `${dir}/att.json`,
    "--public-key",
    `${dir}/signer.pub`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `signature verified: a DSSE attestation of this record verifies under public key ${keyid}`,
    ),
  );
  // The attestation of another record does not vouch for this one.
  const other = await bundleDir("sentiment-refuted");
  const o = await runCli([
    "report",
    `${other}/record.json`,
    "--format",
    "html",
    "--out",
    `${other}/r.html`,
    "--attestation",
    `${dir}/att.json`,
    "--public-key",
    `${dir}/signer.pub`,
  ]);
  assert.equal(o.code, 0, o.stderr);
  const html = await Deno.readTextFile(`${other}/r.html`);
  assert.match(html, /Not verified/);
  assert.match(html, /does not verify<\/strong>: it attests proof [0-9a-f]{64}, not this record/);
});

Deno.test("empiric report: bad input gets a clear error and an exit code, no stack trace", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/bad.json`, '{"identity": 1}');
  const bad = await runCli(["report", `${dir}/bad.json`]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /empiric: schema_invalid: .*bad\.json is not a valid proof record/);
  assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/);
  const missing = await runCli(["report", `${dir}/nope.json`]);
  assert.equal(missing.code, 66);
  assert.match(missing.stderr, /no such file or proof_id/);
  const format = await runCli(["report", `${dir}/bad.json`, "--format", "pdf"]);
  assert.equal(format.code, 64);
  const f = await bundleDir("latency-later");
  await Deno.writeTextFile(`${f}/record.observations.jsonl`, '{"item": "x"}\n');
  const obs = await runCli(["report", `${f}/record.json`]);
  assert.equal(obs.code, 65, obs.stderr);
  assert.match(
    obs.stderr,
    /dataset_invalid: .*record\.observations\.jsonl line 1 is not an observation/,
  );
});

Deno.test("empiric run --report and --summary: files by extension, the job summary appended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-run-report-" });
  const summary = `${dir}/step-summary.md`;
  await Deno.writeTextFile(summary, "# earlier content\n");
  const env = { EMPIRIC_SIGN_KEY: KEY, GITHUB_STEP_SUMMARY: summary };
  const args = ["run", "sentiment-accuracy", "--store", `${dir}/store`, "--quiet", "--summary"];
  const first = await runCli([
    ...args,
    "--report",
    `${dir}/r.html`,
    "--report",
    `${dir}/j.xml`,
    "--fail-on",
    "refuted",
  ], {
    env,
  });
  assert.equal(first.code, 3, first.stderr);
  assert.match(await Deno.readTextFile(`${dir}/r.html`), /Histogram|Counts of/);
  assert.match(await Deno.readTextFile(`${dir}/j.xml`), /<failure type="REFUTED"/);
  const second = await runCli([...args, "--json"], { env });
  assert.equal(second.code, 0, second.stderr);
  JSON.parse(second.stdout);
  const text = await Deno.readTextFile(summary);
  assert.ok(text.startsWith("# earlier content\n"));
  assert.equal(text.match(/^## ❌ REFUTED: sentiment-accuracy/gm)?.length, 2);
  assert.match(text, /Compared with the previous proof/, "the second run's summary compares");
  // Without GITHUB_STEP_SUMMARY the Markdown goes to standard output; with --json it cannot.
  const plain = await runCli(["run", "arithmetic-accuracy", "--no-store", "--quiet", "--summary"], {
    env: { EMPIRIC_SIGN_KEY: KEY },
  });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /## ✅ VALIDATED: arithmetic-accuracy/);
  const clash = await runCli(["run", "arithmetic-accuracy", "--no-store", "--summary", "--json"], {
    env: { EMPIRIC_SIGN_KEY: KEY },
  });
  assert.equal(clash.code, 64);
  assert.match(clash.stderr, /--summary-file/);
  const ext = await runCli(
    ["run", "arithmetic-accuracy", "--no-store", "--report", `${dir}/x.txt`],
    {
      env: { EMPIRIC_SIGN_KEY: KEY },
    },
  );
  assert.equal(ext.code, 64);
  assert.match(ext.stderr, /name the file \.html, \.md or \.xml/);
});
