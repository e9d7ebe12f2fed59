// Comparative runs against a STORED baseline (`--baseline PROOF`), end to end with real cmd:
// substrates (fixtures/substrates/scaled.py): a baseline proof of the 1.0x system is recorded
// into a temporary store, then a 1.5x slowdown is REFUTED against "ratio <= 1.05", a 0.6x
// speed-up VALIDATED, identical systems are not REFUTED beyond the rate the level allows; the
// record names the baseline proof in lineage_chain and its baseline dataset; a tampered baseline
// is refused with baseline_invalid, over the operation and the CLI.
import assert from "node:assert/strict";
import { runScenarioForTest, testHost } from "../support/ops.ts";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import { runCli } from "../support/run_cli.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { signRecord } from "../../src/record/sign.ts";
import { parseReproductionCommand } from "../../src/record/command.ts";
import { sha256Hex } from "../../src/crypto/hash.ts";
import { prettyJson } from "../../src/json/mod.ts";
import { bundlePaths } from "../../src/run/bundle_paths.ts";
import { invoke } from "../../src/ops/mod.ts";
import { auditProofOp } from "../../src/ops/audit_proof.ts";
import type { EmpiricError } from "../../src/errors/errors.ts";
import type { JsonObject } from "../../src/json/value.ts";
import type { ProofRecord } from "../../src/record/types.ts";

const SCALED = `${ROOT}fixtures/substrates/scaled.py`;
const FIX = `${ROOT}fixtures/compare/`;
const scaled = (args: string) => `cmd:python3 ${SCALED} ${args}`;
const KEY_TEXT = new TextDecoder().decode(TEST_SIGN_KEY);

/** Record a plain run as a baseline proof into `store`; returns the run's output. */
async function baselineProof(scenario: string, substrate: string, store?: string) {
  const r = await runScenarioForTest(
    { scenario: `${FIX}${scenario}`, substrate },
    { env: await testEnv(), key: TEST_SIGN_KEY, store },
  );
  return r.output;
}

/** Write a run's record and its observations as files (`dir/name.json` and the bundle). */
async function writeBundle(
  dir: string,
  name: string,
  output: Awaited<ReturnType<typeof baselineProof>>,
) {
  const path = `${dir}/${name}.json`;
  await Deno.writeTextFile(path, prettyJson(output.record as never));
  await Deno.writeFile(bundlePaths(path).observations, output.bundle.observations);
  return path;
}

Deno.test("stored baseline: a 1.5x slowdown is REFUTED, a 0.6x speed-up VALIDATED; the record names the baseline proof", async () => {
  const store = await Deno.makeTempDir({ prefix: "empiric-baseline-" });
  try {
    const base = await baselineProof("baseline-latency.yaml", scaled("1.0"), store);
    const baseId = base.record.identity.proof_id;
    const baseObs = base.record.data.datasets.find((d) => d.kind === "observations")!;
    for (const [scale, expected] of [["1.5", "REFUTED"], ["0.6", "VALIDATED"]] as const) {
      const r = await runScenarioForTest({
        scenario: `${FIX}compare-latency.yaml`,
        substrate: scaled(scale),
        baseline: baseId,
      }, { env: await testEnv(), key: TEST_SIGN_KEY, store });
      assert.equal(r.outcome, expected, `${scale}: ${r.reasoning}`);
      assert.equal(r.baseline?.paired, true, "same corpus, same items: paired");
      assert.equal(r.baseline?.measured, 120);
      const rec = r.output.record;
      assert.deepEqual((await verifyRecord(rec as never, { key: TEST_SIGN_KEY })).problems, []);
      // The baseline proof joins the lineage and is the baseline dataset's source; the dataset
      // is the baseline proof's own observations (same hash).
      assert.ok(rec.reproduction.lineage_chain.includes(baseId), "lineage_chain");
      const ds = rec.data.datasets.find((d) => d.kind === "baseline")!;
      assert.equal(ds.source, `proof ${baseId}`);
      assert.equal(ds.content_hash, baseObs.content_hash);
      assert.equal(ds.n_records, 120n);
      assert.deepEqual(r.output.bundle.baseline, base.bundle.observations, "copied byte for byte");
      assert.deepEqual(parseReproductionCommand(rec.reproduction.command)?.baseline, {
        option: "--baseline",
        value: baseId,
      });
      const entity =
        (rec.provenance.entity as JsonObject)["empiric:dataset/baseline"] as JsonObject;
      assert.equal(entity["empiric:baseline_proof_id"], baseId);
      if (scale === "1.5") assert.ok(rec.evidence[0].statistic_value > 1.3);
      if (scale === "0.6") assert.ok(rec.evidence[0].statistic_value < 0.75);
      // The stored comparative record audits clean from its stored bundle (three parts).
      const host = await testHost({ key: TEST_SIGN_KEY, store });
      try {
        const audit = await invoke(auditProofOp, { proof_id: rec.identity.proof_id }, host);
        assert.deepEqual([audit.problems, audit.differences], [[], []], scale);
        assert.equal(audit.checks.baseline, "pass");
      } finally {
        await host.close();
      }
    }
  } finally {
    await Deno.remove(store, { recursive: true });
  }
});

Deno.test("stored baseline: a record file with its observations beside it serves too", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-baseline-" });
  try {
    const base = await baselineProof("baseline-value.yaml", scaled("1.0 --no-sleep"));
    const path = await writeBundle(dir, "base", base);
    const r = await runScenarioForTest({
      scenario: `${FIX}compare-value.yaml`,
      substrate: scaled("1.0 --no-sleep"),
      baseline: path,
    }, { env: await testEnv(), key: TEST_SIGN_KEY });
    // Noise-free identical systems: the ratio is exactly 1, inside the band.
    assert.equal(r.outcome, "VALIDATED", r.reasoning);
    assert.equal(r.output.record.evidence[0].statistic_value, 1);
    assert.ok(r.output.record.reproduction.lineage_chain.includes(base.record.identity.proof_id));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stored baseline: identical noisy systems are not REFUTED beyond the level in 12 runs", async () => {
  // Each run compares with a baseline proof of its own (independent noise), so the runs are
  // independent trials; the equivalence claim (within 5%) holds for the truth (ratio 1), so
  // REFUTED is an error: at most 2.5% of runs in the long run; 3 or more of 12 would happen
  // with probability 0.3% at a 2.5% rate.
  const dir = await Deno.makeTempDir({ prefix: "empiric-baseline-" });
  try {
    let refuted = 0, validated = 0;
    for (let k = 0; k < 12; k++) {
      const base = await baselineProof(
        "baseline-value.yaml",
        scaled(`1.0 0.02 ${3000 + k} --no-sleep`),
      );
      const path = await writeBundle(dir, `base-${k}`, base);
      const r = await runScenarioForTest({
        scenario: `${FIX}compare-value.yaml`,
        substrate: scaled(`1.0 0.02 ${4000 + k} --no-sleep`),
        baseline: path,
      }, { env: await testEnv(), key: TEST_SIGN_KEY });
      assert.equal(r.baseline?.paired, true);
      if (r.outcome === "REFUTED") refuted++;
      if (r.outcome === "VALIDATED") validated++;
    }
    assert.ok(refuted <= 2, `${refuted} of 12 identical-system runs REFUTED`);
    assert.ok(validated >= 6, `${validated} of 12 runs VALIDATED: the comparison has power`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stored baseline: a tampered baseline is refused with baseline_invalid", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-baseline-" });
  try {
    const base = await baselineProof("baseline-value.yaml", scaled("1.0 --no-sleep"));
    const env = await testEnv();
    const run = (baseline: string) =>
      runScenarioForTest({
        scenario: `${FIX}compare-value.yaml`,
        substrate: scaled("1.0 --no-sleep"),
        baseline,
      }, { env, key: TEST_SIGN_KEY });
    const refused = async (baseline: string, pattern: RegExp) => {
      await assert.rejects(() => run(baseline), (e: EmpiricError) => {
        assert.equal(e.code, "baseline_invalid", e.message);
        assert.match(e.message, pattern);
        assert.ok(e.message.includes(baseline), `the message names ${baseline}`);
        return true;
      });
    };

    // 1. One observation changed: its hash is not the one the signed record gives.
    const changed = await writeBundle(dir, "changed", base);
    const text = new TextDecoder().decode(base.bundle.observations);
    const at = text.indexOf('"value":') + '"value":'.length;
    await Deno.writeTextFile(
      bundlePaths(changed).observations,
      text.slice(0, at) + "9" + text.slice(at),
    );
    await refused(changed, /hash to .* not to the content_hash .* changed after the run/);

    // 2. The record changed (its observations' hash updated to match changed observations) and
    //    re-signed with another key: it does not verify under the run's key.
    const forged = structuredClone(base.record) as ProofRecord;
    const obsText = text.replace(/"value":([0-9.]+)/, '"value":1$1');
    forged.data.datasets.find((d) => d.kind === "observations")!.content_hash = await sha256Hex(
      new TextEncoder().encode(obsText),
    );
    const { signature: _s, ...body } = forged;
    const other = await signRecord(
      body as never,
      new TextEncoder().encode("another-key-that-is-not-the-runs-key-0123"),
    );
    const resigned = `${dir}/resigned.json`;
    await Deno.writeTextFile(resigned, prettyJson(other as never));
    await Deno.writeTextFile(bundlePaths(resigned).observations, obsText);
    await refused(resigned, /does not verify under this run's key/);

    // 3. The observations missing beside the record.
    const missing = `${dir}/missing.json`;
    await Deno.writeTextFile(missing, prettyJson(base.record as never));
    await refused(missing, /no observations file beside it/);

    // 4. A record edited without re-signing (the proof_id no longer matches).
    const edited = await writeBundle(dir, "edited", base);
    await Deno.writeTextFile(
      edited,
      (await Deno.readTextFile(edited)).replace('"VALIDATED"', '"REFUTED"'),
    );
    await refused(edited, /does not verify/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("empiric run --baseline FILE: a tampered baseline exits 65 naming the file; a good one runs and audits clean", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-baseline-cli-" });
  try {
    const base = await baselineProof("baseline-value.yaml", scaled("1.0 --no-sleep"));
    const path = await writeBundle(dir, "base", base);
    const args = (baseline: string, out: string) => [
      "run",
      `${FIX}compare-value.yaml`,
      "--substrate",
      scaled("1.0 --no-sleep"),
      "--baseline",
      baseline,
      "--no-store",
      "--key",
      KEY_TEXT,
      "--out",
      out,
    ];
    const ok = await runCli(args(path, `${dir}/cmp.json`));
    assert.equal(ok.code, 0, ok.stderr);
    // The comparative record's bundle: three parts beside it, and `empiric audit` reads them.
    const parts = bundlePaths(`${dir}/cmp.json`);
    assert.deepEqual(await Deno.readFile(parts.baseline), base.bundle.observations);
    const audit = await runCli(["audit", `${dir}/cmp.json`, "--key", KEY_TEXT]);
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
    assert.match(audit.stdout, /^AGREES /);
    // The baseline part changed: the audit says which dataset's hash differs.
    const text = new TextDecoder().decode(await Deno.readFile(parts.baseline));
    await Deno.writeTextFile(parts.baseline, text.replace('"value":', '"value":1'));
    const bad = await runCli(["audit", `${dir}/cmp.json`, "--key", KEY_TEXT]);
    assert.equal(bad.code, 2, bad.stdout);
    assert.match(bad.stdout, /baseline: FAIL/);
    assert.match(bad.stdout, /bundle_mismatch: the baseline observations file hashes to/);
    // And missing: a clear usage error naming the expected file.
    await Deno.remove(parts.baseline);
    const gone = await runCli(["audit", `${dir}/cmp.json`, "--key", KEY_TEXT]);
    assert.equal(gone.code, 64, gone.stderr);
    assert.ok(gone.stderr.includes(parts.baseline), gone.stderr);

    // A tampered baseline: exit 65 (baseline_invalid), the file named, no stack trace, no record.
    const obs = bundlePaths(path).observations;
    const original = await Deno.readTextFile(obs);
    await Deno.writeTextFile(obs, original.replace('"value":', '"value":1'));
    const tampered = await runCli(args(path, `${dir}/tampered.json`));
    assert.equal(tampered.code, 65, tampered.stderr);
    assert.match(tampered.stderr, /baseline_invalid/);
    assert.ok(tampered.stderr.includes(path), tampered.stderr);
    assert.doesNotMatch(tampered.stderr, /\bat .*\.ts:\d+/);
    assert.equal(await Deno.stat(`${dir}/tampered.json`).catch(() => null), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
