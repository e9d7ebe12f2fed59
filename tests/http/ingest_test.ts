// POST /proofs (ingest_proof) and GET /proofs paging, against both store back ends: verified
// under the server's key, stored byte for byte, 201 then 200, 422 with the verify problem,
// bundle parts checked against the record, tokens and read-only servers.
import assert from "node:assert/strict";
import { prettyJson } from "../../src/json/pretty.ts";
import type { JsonValue } from "../../src/json/value.ts";
import { TEST_SIGN_KEY } from "../support/env.ts";
import { type PgServer, postgresAvailable, startPostgres } from "../support/postgres.ts";
import { makeRecord, recordBytes } from "../support/records.ts";
import { testApp } from "./support.ts";

const TOKEN = "ingest-test-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const dec = new TextDecoder();

type Fresh = () => Promise<string | undefined>;

const CASES: Record<string, (fresh: Fresh) => Promise<void>> = {
  "201 with Location when new, 200 when already there; GET returns the exact bytes": async (
    fresh,
  ) => {
    const t = await testApp({
      key: TEST_SIGN_KEY,
      store: await fresh(),
      auth: { token: TOKEN },
    });
    try {
      const r = await makeRecord({ second: 7 });
      // Unusual layout: tabs; the stored bytes must be exactly these.
      const text = prettyJson(r as unknown as JsonValue).replaceAll("  ", "\t");
      const id = r.identity.proof_id;
      const noToken = await t.req("POST", "/proofs", { json: { proof_json: text } });
      assert.equal(noToken.status, 401);
      await noToken.body?.cancel();
      const res = await t.req("POST", "/proofs", { json: { proof_json: text }, headers: auth });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("location"), `/proofs/${id}`);
      const body = await res.json();
      assert.equal(body.proof_id, id);
      assert.equal(body.created, true);
      assert.deepEqual(body.parts, []);
      assert.equal(body.scenario, "arithmetic-accuracy");
      assert.ok(!body.path.startsWith("/"), `relative path: ${body.path}`);
      const again = await t.req("POST", "/proofs", {
        json: { proof_json: prettyJson(r as unknown as JsonValue) },
        headers: auth,
      });
      assert.equal(again.status, 200);
      assert.equal(again.headers.get("location"), `/proofs/${id}`);
      assert.equal((await again.json()).created, false);
      const got = await t.req("GET", `/proofs/${id}`);
      assert.equal(got.status, 200);
      const stored = await got.text();
      assert.equal(stored, text, "byte for byte, the first layout kept");
      const verify = await t.req("POST", "/verify", { json: { proof_json: stored } });
      assert.equal((await verify.json()).verified, true);
      const page = await (await t.req("GET", "/proofs")).json();
      assert.equal(page.total, 1);
    } finally {
      await t.close();
    }
  },

  "a record that does not verify is refused with the verify problem and not stored": async (
    fresh,
  ) => {
    const t = await testApp({ key: TEST_SIGN_KEY, store: await fresh() });
    try {
      const r = await makeRecord({ second: 8 });
      const forged = prettyJson({
        ...r,
        signature: { signature: "0".repeat(64) },
      } as unknown as JsonValue);
      const res = await t.req("POST", "/proofs", { json: { proof_json: forged } });
      assert.equal(res.status, 422);
      assert.match(res.headers.get("content-type") ?? "", /problem\+json/);
      const p = await res.json();
      assert.equal(p.code, "signature_mismatch");
      assert.ok(p.problems.some((x: { code: string }) => x.code === "signature_mismatch"));
      const other = await makeRecord({ second: 8 }, new TextEncoder().encode("z".repeat(40)));
      const wrongKey = await t.req("POST", "/proofs", {
        json: { proof_json: prettyJson(other as unknown as JsonValue) },
      });
      assert.equal(wrongKey.status, 422);
      assert.equal((await wrongKey.json()).code, "signature_mismatch");
      const edited = prettyJson(r as unknown as JsonValue).replace(
        '"outcome": "',
        '"outcome": "X',
      );
      const changed = await t.req("POST", "/proofs", { json: { proof_json: edited } });
      assert.equal(changed.status, 422);
      await changed.body?.cancel();
      const notJson = await t.req("POST", "/proofs", { json: { proof_json: "{not json" } });
      assert.equal(notJson.status, 400);
      assert.equal((await notJson.json()).code, "syntax_error");
      const missing = await t.req("POST", "/proofs", { json: {} });
      assert.equal(missing.status, 400);
      await missing.body?.cancel();
      assert.equal((await (await t.req("GET", "/proofs")).json()).total, 0, "nothing stored");
      const get = await t.req("GET", `/proofs/${r.identity.proof_id}`);
      assert.equal(get.status, 404);
      await get.body?.cancel();
    } finally {
      await t.close();
    }
  },

  "observations and scenario are stored when the record seals them, refused otherwise": async (
    fresh,
  ) => {
    const store = await fresh();
    const t = await testApp({ key: TEST_SIGN_KEY, store });
    try {
      const observations = '{"id":"a","value":1.0}\n{"id":"b","value":0.25}\n';
      // The scenario's value as the typed parser reads it: 1000 an int, 1.5 a float.
      const scenario = { name: "sealed", probe: { timeout_ms: 1000n }, weight: 1.5 };
      const r = await makeRecord({
        second: 9,
        observations: new TextEncoder().encode(observations),
        scenarioValue: scenario as unknown as JsonValue,
      });
      const text = prettyJson(r as unknown as JsonValue);
      const bad = await t.req("POST", "/proofs", {
        json: { proof_json: text, observations: observations + "{}\n" },
      });
      assert.equal(bad.status, 422);
      const problem = await bad.json();
      assert.equal(problem.code, "bundle_mismatch");
      assert.match(problem.detail, /content_hash/);
      const badScenario = await t.req("POST", "/proofs", {
        json: {
          proof_json: text,
          scenario: '{"name":"sealed","probe":{"timeout_ms":1000.0},"weight":1.5}',
        },
      });
      assert.equal(badScenario.status, 422);
      assert.equal((await badScenario.json()).code, "bundle_mismatch");
      assert.equal((await (await t.req("GET", "/proofs")).json()).total, 0);
      // Any layout of the scenario whose canonical form matches is accepted, kept as sent.
      const scenarioText =
        '{\n "weight": 1.50,\n "name": "sealed",\n "probe": {"timeout_ms": 1000}\n}';
      const ok = await t.req("POST", "/proofs", {
        json: { proof_json: text, observations, scenario: scenarioText },
      });
      assert.equal(ok.status, 201);
      assert.deepEqual((await ok.json()).parts, ["observations", "scenario"]);
      const bundle = (await t.store.getBundle(r.identity.proof_id))!;
      assert.equal(dec.decode(bundle.parts.observations), observations);
      assert.equal(dec.decode(bundle.parts.scenario), scenarioText);
      // A record without an observations dataset vouches for no observations.
      const plain = await makeRecord({ second: 10 });
      const unsealed = await t.req("POST", "/proofs", {
        json: { proof_json: prettyJson(plain as unknown as JsonValue), observations },
      });
      assert.equal(unsealed.status, 422);
      assert.match((await unsealed.json()).detail, /no dataset of kind observations/);
    } finally {
      await t.close();
    }
  },

  "a read-only server refuses POST /proofs; a demo-key server stores no pushed record": async (
    fresh,
  ) => {
    const ro = await testApp({
      key: TEST_SIGN_KEY,
      store: await fresh(),
      auth: { readOnly: true },
    });
    try {
      const r = await makeRecord({ second: 11 });
      const res = await ro.req("POST", "/proofs", {
        json: { proof_json: prettyJson(r as unknown as JsonValue) },
      });
      assert.equal(res.status, 403);
      await res.body?.cancel();
    } finally {
      await ro.close();
    }
    const { DEFAULT_DEMO_KEY } = await import("../../src/ops/keys.ts");
    const demoKey = new TextEncoder().encode(DEFAULT_DEMO_KEY);
    const demo = await testApp({ key: demoKey, store: await fresh() });
    try {
      const r = await makeRecord({ second: 12 }, demoKey);
      const res = await demo.req("POST", "/proofs", {
        json: { proof_json: prettyJson(r as unknown as JsonValue) },
      });
      assert.equal(res.status, 403);
      assert.match((await res.json()).detail, /demo key/);
    } finally {
      await demo.close();
    }
  },

  "GET /proofs: time range and cursor pages over HTTP": async (fresh) => {
    const t = await testApp({ key: TEST_SIGN_KEY, store: await fresh() });
    try {
      for (let i = 0; i < 12; i++) {
        const r = await makeRecord({ second: 100 + i });
        const res = await t.req("POST", "/proofs", {
          json: { proof_json: dec.decode(recordBytes(r)) },
        });
        assert.equal(res.status, 201);
        await res.body?.cancel();
      }
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const page = await (await t.req(
          "GET",
          `/proofs?limit=5&created_after=2026-01-01T00:01:42Z${q}`,
        )).json();
        assert.equal(page.total, cursor ? null : 10, "counted on the first page");
        ids.push(...page.entries.map((e: { created_at: string }) => e.created_at));
        cursor = page.next_cursor;
      } while (cursor);
      assert.equal(ids.length, 10);
      assert.equal(ids[0], "2026-01-01T00:01:51Z");
      assert.equal(ids.at(-1), "2026-01-01T00:01:42Z");
      const bad = await t.req("GET", "/proofs?cursor=xyz");
      assert.equal(bad.status, 400);
      assert.match((await bad.json()).detail, /cursor/);
      const both = await t.req("GET", "/proofs?cursor=xyz&offset=3");
      assert.equal(both.status, 400);
      await both.body?.cancel();
      const badTime = await t.req("GET", "/proofs?created_before=last-week");
      assert.equal(badTime.status, 400);
      assert.match((await badTime.json()).detail, /created_before/);
    } finally {
      await t.close();
    }
  },
};

Deno.test("POST /proofs and GET /proofs paging: directory store", async (t) => {
  for (const [name, f] of Object.entries(CASES)) {
    await t.step(name, () => f(() => Promise.resolve(undefined)));
  }
});

Deno.test({
  name: "POST /proofs and GET /proofs paging: PostgreSQL store",
  ignore: !(await postgresAvailable()),
  fn: async (t) => {
    const pg: PgServer = await startPostgres();
    try {
      for (const [name, f] of Object.entries(CASES)) {
        await t.step(name, () => f(() => pg.database()));
      }
    } finally {
      await pg.stop();
    }
  },
});

Deno.test("OpenAPI documents POST /proofs with 201 and 200, Location and the token", async () => {
  const t = await testApp({ auth: { token: TOKEN } });
  try {
    const doc = await (await t.req("GET", "/openapi.json")).json();
    const op = doc.paths["/proofs"].post;
    assert.equal(op.operationId, "ingest_proof");
    assert.ok(op.responses["201"].headers.Location);
    assert.ok(op.responses["200"].headers.Location);
    assert.match(op.responses["200"].description, /already had/);
    assert.ok(op.responses["422"] && op.responses["401"]);
    assert.deepEqual(op.security, [{ bearerAuth: [] }]);
    const list = doc.paths["/proofs"].get;
    const names = list.parameters.map((p: { name: string }) => p.name);
    for (const n of ["created_after", "created_before", "cursor", "offset"]) {
      assert.ok(names.includes(n), n);
    }
  } finally {
    await t.close();
  }
});
