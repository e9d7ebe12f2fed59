// POST /audit and the bundle parts of a stored proof over HTTP (texts in, never server paths).
import assert from "node:assert/strict";
import { testApp } from "./support.ts";

Deno.test("POST /audit and GET /proofs/{id}/observations|scenario: a stored run audits clean", async () => {
  const t = await testApp();
  try {
    const run = await (await t.req("POST", "/runs", { json: { scenario: "arithmetic-accuracy" } }))
      .json();
    const obs = await t.req("GET", `/proofs/${run.proof_id}/observations`);
    assert.equal(obs.status, 200);
    assert.equal(obs.headers.get("content-type"), "application/jsonl");
    const observations = await obs.text();
    assert.equal(observations.split("\n").length - 1, run.measured);
    const sc = await t.req("GET", `/proofs/${run.proof_id}/scenario`);
    assert.equal(sc.headers.get("content-type"), "application/json");
    const scenario = await sc.text();
    assert.equal(JSON.parse(scenario).name, "arithmetic-accuracy");
    const record = await (await t.req("GET", `/proofs/${run.proof_id}`)).text();

    // by id (the server reads the stored bundle) and by text
    for (
      const body of [
        { proof_id: run.proof_id },
        { proof_json: record, observations_jsonl: observations, scenario_json: scenario },
      ]
    ) {
      const res = await t.req("POST", "/audit", { json: body });
      assert.equal(res.status, 200);
      const a = await res.json();
      assert.equal(a.agrees, true, JSON.stringify(a.differences));
      assert.equal(a.verified, true, "checked under the server's key");
      assert.equal(a.recomputed.outcome, run.outcome);
    }
    // one observation changed: 200 with agrees false and the differences
    const changed = observations.replace('"correct":1.0', '"correct":0.0');
    const res = await t.req("POST", "/audit", {
      json: { proof_json: record, observations_jsonl: changed, scenario_json: scenario },
    });
    const a = await res.json();
    assert.equal(a.agrees, false);
    assert.ok(a.differences.some((d: { pointer: string }) => d.pointer.endsWith("/content_hash")));
    // not a record: 400 problem+json; no such proof: 404; bad input: 400
    const bad = await t.req("POST", "/audit", {
      json: { proof_json: "{", observations_jsonl: "", scenario_json: "{}" },
    });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, "syntax_error");
    const missing = await t.req("POST", "/audit", { json: { proof_id: "0".repeat(64) } });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const both = await t.req("POST", "/audit", {
      json: { proof_id: run.proof_id, proof_json: "{}" },
    });
    assert.equal(both.status, 400);
    await both.body?.cancel();
    const none = await t.req("GET", `/proofs/${"0".repeat(64)}/observations`);
    assert.equal(none.status, 404);
    await none.body?.cancel();
  } finally {
    t.close();
  }
});
