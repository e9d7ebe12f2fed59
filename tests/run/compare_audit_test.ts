// `auditProof` of comparative records: the baseline's observations are the bundle's third part;
// a genuine interleaved record audits clean (both sides recomputed, paired as recorded), and a
// changed baseline observation is caught even when the forger re-signs with the key.
import assert from "node:assert/strict";
import { auditProof } from "../../src/run/audit.ts";
import { observationsJsonl, readObservations } from "../../src/run/bundle.ts";
import { signRecord } from "../../src/record/sign.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { sha256Hex } from "../../src/crypto/hash.ts";
import { prettyJson } from "../../src/json/mod.ts";
import type { ProofRecord } from "../../src/record/types.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";

const SCALED = `${ROOT}fixtures/substrates/scaled.py`;
const VALUE = `${ROOT}fixtures/compare/compare-value.yaml`;
const scaled = (args: string) => `cmd:python3 ${SCALED} ${args}`;

async function comparativeBundle() {
  const r = await runScenarioForTest({
    scenario: VALUE,
    substrate: scaled("1.0 0.02 11 --no-sleep"),
    baselineSubstrate: scaled("1.0 0.02 12 --no-sleep"),
  }, { env: await testEnv(), key: TEST_SIGN_KEY });
  return { record: r.output.record, ...r.output.bundle };
}

/** Re-seal a record over a changed baseline file (new hash in the dataset and the PROV entity). */
async function resealed(record: ProofRecord, baseline: Uint8Array<ArrayBuffer>) {
  const copy = structuredClone(record) as ProofRecord;
  const ref = copy.data.datasets.find((d) => d.kind === "baseline")!;
  ref.content_hash = await sha256Hex(baseline);
  const entity = (copy.provenance.entity as Record<string, Record<string, unknown>>)[
    "empiric:dataset/baseline"
  ];
  entity["empiric:content_hash"] = ref.content_hash;
  const { signature: _s, ...body } = copy;
  return await signRecord(body as never, TEST_SIGN_KEY);
}

Deno.test("an interleaved comparative record (within, ratio) verifies and audits clean", async () => {
  const b = await comparativeBundle();
  assert.ok(b.baseline, "the run keeps the baseline's observations");
  const text = prettyJson(b.record as never);
  // Verdict consistency accepts a genuine comparative record (within, two one-sided bounds).
  const v = await verifyRecord(text, { key: TEST_SIGN_KEY });
  assert.deepEqual(v.problems, []);
  assert.equal(v.checks.verdict, "pass");
  const r = await auditProof({
    record: text,
    observations: b.observations,
    scenario: b.scenario,
    baseline: b.baseline,
    key: TEST_SIGN_KEY,
  });
  assert.deepEqual([r.problems, r.differences], [[], []]);
  assert.equal(r.agrees, true);
  assert.equal(r.checks.baseline, "pass");
  assert.equal(r.checks.evidence, "pass");
  assert.equal(r.recomputed?.outcome, b.record.verdict.outcome);
});

Deno.test("a comparative record needs its baseline part, and a plain record refuses one", async () => {
  const b = await comparativeBundle();
  const text = prettyJson(b.record as never);
  let r = await auditProof({ record: text, observations: b.observations, scenario: b.scenario });
  assert.equal(r.agrees, false);
  assert.equal(r.checks.baseline, "fail");
  assert.equal(r.problems[0].code, "bundle_mismatch");
  assert.match(r.problems[0].message, /baseline\.observations\.jsonl/);
  // The baseline file given as the candidate's: its hash is not the baseline dataset's.
  r = await auditProof({
    record: text,
    observations: b.observations,
    scenario: b.scenario,
    baseline: b.observations,
  });
  assert.equal(r.agrees, false);
  const hashDiff = r.differences.find((d) => d.pointer.endsWith("/content_hash"));
  assert.equal(hashDiff?.code, "bundle_mismatch");
  assert.match(hashDiff!.message, /baseline observations file hashes to/);
  // A record that compares with nothing takes no baseline file.
  const plain = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  r = await auditProof({
    record: prettyJson(plain.output.record as never),
    observations: plain.output.bundle.observations,
    scenario: plain.output.bundle.scenario,
    baseline: b.baseline,
  });
  assert.equal(r.agrees, false);
  assert.equal(r.checks.baseline, "fail");
  assert.match(r.problems[0].message, /lists no baseline dataset/);
});

Deno.test("one changed baseline observation, re-signed with the key: audit fails, the signature does not", async () => {
  const b = await comparativeBundle();
  const obs = readObservations(b.baseline!);
  // Make the baseline's median item twice as large: the ratio of the medians moves.
  const values = obs.map((o) => o.metrics.value!).sort((x, y) => x - y);
  const median = values[Math.floor(values.length / 2)];
  for (const o of obs) if (o.metrics.value! <= median) o.metrics.value = o.metrics.value! * 2;
  const changed = observationsJsonl(obs);
  const forged = await resealed(b.record, changed);
  const text = prettyJson(forged as never);
  const v = await verifyRecord(text, { key: TEST_SIGN_KEY });
  assert.equal(v.verified, true, "the re-signed record verifies");
  const r = await auditProof({
    record: text,
    observations: b.observations,
    scenario: b.scenario,
    baseline: changed,
    key: TEST_SIGN_KEY,
  });
  assert.equal(r.agrees, false);
  assert.equal(r.checks.baseline, "pass", "the file is the one the forged record seals");
  assert.equal(r.checks.evidence, "fail");
  const pointers = r.differences.map((d) => d.pointer);
  assert.ok(pointers.includes("/evidence/0/statistic_value"), pointers.join(" "));
  assert.ok(r.differences.every((d) => d.code === "evidence_mismatch"));
});

Deno.test("a comparative record whose sides are recorded as paired must have the same items", async () => {
  const b = await comparativeBundle();
  const obs = readObservations(b.baseline!);
  [obs[0].id, obs[1].id] = [obs[1].id, obs[0].id];
  const swapped = observationsJsonl(obs);
  const forged = await resealed(b.record, swapped);
  const r = await auditProof({
    record: prettyJson(forged as never),
    observations: b.observations,
    scenario: b.scenario,
    baseline: swapped,
  });
  assert.equal(r.agrees, false);
  assert.equal(r.checks.baseline, "fail");
  const d = r.differences.find((x) => x.pointer.endsWith("/empiric:paired"));
  assert.equal(d?.code, "evidence_mismatch");
});
