// `auditProof`: a run's bundle audits clean; every kind of change to the record, the
// observations or the scenario is reported with its JSON pointer.
import assert from "node:assert/strict";
import { auditProof } from "../../src/run/audit.ts";
import { observationsJsonl, readObservations } from "../../src/run/bundle.ts";
import { signRecord } from "../../src/record/sign.ts";
import { prettyJson } from "../../src/json/mod.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import { builtinScenarioNames } from "../../src/scenario/resolve.ts";
import type { ProofRecord } from "../../src/record/types.ts";

async function bundleOf(scenario: string) {
  const r = await runScenarioForTest({ scenario }, { env: await testEnv(), key: TEST_SIGN_KEY });
  return { record: r.output.record, ...r.output.bundle };
}

Deno.test("every built-in scenario's bundle audits clean, with and without the key", async () => {
  for (const name of builtinScenarioNames()) {
    const b = await bundleOf(name);
    const text = prettyJson(b.record as never);
    for (const key of [undefined, TEST_SIGN_KEY]) {
      const r = await auditProof({
        record: text,
        observations: b.observations,
        scenario: b.scenario,
        key,
      });
      assert.deepEqual([r.problems, r.differences], [[], []], name);
      assert.equal(r.agrees, true);
      assert.equal(r.verified, key !== undefined);
      assert.equal(r.recomputed?.outcome, b.record.verdict.outcome);
      assert.ok(Object.values(r.checks).every((c) => c !== "fail"));
    }
  }
});

Deno.test("one changed observation, re-signed with the key: audit fails, the signature does not", async () => {
  const b = await bundleOf("arithmetic-accuracy");
  const obs = readObservations(b.observations);
  const i = obs.findIndex((o) => o.metrics.correct === 1);
  obs[i] = { ...obs[i], metrics: { ...obs[i].metrics, correct: 0 } };
  const changed = observationsJsonl(obs);
  // The forger re-seals the record over the changed file (new hash), keeping the old evidence.
  const record = structuredClone(b.record) as ProofRecord;
  const ref = record.data.datasets.find((d) => d.kind === "observations")!;
  const { sha256Hex } = await import("../../src/crypto/hash.ts");
  ref.content_hash = await sha256Hex(changed);
  for (
    const e of Object.values(record.provenance.entity as Record<string, Record<string, unknown>>)
  ) {
    if (e["prov:label"] === "observations") e["empiric:content_hash"] = ref.content_hash;
  }
  const { signature: _s, ...body } = record;
  const resigned = await signRecord(body as never, TEST_SIGN_KEY);
  const r = await auditProof({
    record: prettyJson(resigned as never),
    observations: changed,
    scenario: b.scenario,
    key: TEST_SIGN_KEY,
  });
  assert.equal(r.verified, true, "the signature verifies");
  assert.equal(r.agrees, false);
  const pointers = r.differences.map((d) => d.pointer);
  assert.ok(pointers.includes("/evidence/0/statistic_value"), pointers.join(" "));
  assert.ok(r.differences.every((d) => d.code === "evidence_mismatch"));
});

Deno.test("the bundle must be the one the record seals", async () => {
  const b = await bundleOf("sentiment-accuracy");
  const text = prettyJson(b.record as never);
  // Observations with one byte changed: the hash differs (and the line no longer matches).
  const obs = new Uint8Array(b.observations);
  const at = new TextDecoder().decode(obs).indexOf('"ok":true');
  obs.set(new TextEncoder().encode('"ok":fals'), at);
  let r = await auditProof({ record: text, observations: obs, scenario: b.scenario });
  assert.equal(r.agrees, false);
  assert.equal(r.checks.observations, "fail");
  // A different scenario (threshold moved): config_hash differs.
  const scenario = new TextDecoder().decode(b.scenario).replace('"value":0.9', '"value":0.5');
  r = await auditProof({
    record: text,
    observations: b.observations,
    scenario: new TextEncoder().encode(scenario),
  });
  assert.equal(r.agrees, false);
  assert.equal(r.checks.scenario, "fail");
  assert.equal(r.differences[0].pointer, "/pre_registration/config_hash");
  assert.equal(r.differences[0].code, "bundle_mismatch");
  // A truncated observations file: the count and the hash differ.
  const lines = new TextDecoder().decode(b.observations).split("\n");
  const fewer = new TextEncoder().encode(lines.slice(0, 10).join("\n") + "\n");
  r = await auditProof({ record: text, observations: fewer, scenario: b.scenario });
  assert.ok(r.differences.some((d) => d.pointer.endsWith("/n_records")));
  // Not observations at all.
  r = await auditProof({
    record: text,
    observations: new TextEncoder().encode('{"x":1}\n'),
    scenario: b.scenario,
  });
  assert.equal(r.problems[0].code, "dataset_invalid");
  assert.match(r.problems[0].message, /line 1/);
});

Deno.test("a record made before observations were kept says it cannot be audited", async () => {
  const text = await Deno.readTextFile(
    new URL("../../fixtures/records/valid.json", import.meta.url),
  );
  const r = await auditProof({
    record: text,
    observations: new Uint8Array(),
    scenario: new TextEncoder().encode("{}"),
  });
  assert.equal(r.agrees, false);
  assert.equal(r.problems.at(-1)!.code, "bundle_mismatch");
  assert.match(r.problems.at(-1)!.message, /no observations dataset/);
});
