// Every endpoint through the real app (app.request), each response checked against the shared
// output schema and against the shared implementation it must mirror.
import assert from "node:assert/strict";
import {
  CanonicalizeOutput,
  canonicalizeValueOp,
  getScenarioClaimOp,
  HealthOutput,
  invoke,
  listScenariosOp,
  ListScenariosOutput,
  ProofIndexOutput,
  readProofIndexOp,
  RunScenarioOutput,
  ScenarioClaimOutput,
  verifyAttestationOperation,
  VerifyAttestationOutput,
  verifyProofImpl,
  VerifyProofOutput,
  VersionOutput,
} from "../../src/ops/mod.ts";
import { EMPIRIC_VERSION } from "../../src/version.ts";
import { fixture, FIXTURE_KEY, ROOT, testApp } from "./support.ts";

Deno.test("GET /health: status ok and an uptime", async () => {
  const t = await testApp();
  try {
    const res = await t.req("GET", "/health");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    const body = HealthOutput.parse(await res.json());
    assert.equal(body.status, "ok");
    assert.ok(body.uptime_s >= 0);
  } finally {
    await t.close();
  }
});

Deno.test("GET /version: empiric, schema and Deno versions", async () => {
  const t = await testApp();
  try {
    const res = await t.req("GET", "/version");
    assert.equal(res.status, 200);
    const body = VersionOutput.parse(await res.json());
    assert.equal(body.empiric_version, EMPIRIC_VERSION);
    assert.equal(body.schema_version, "1.0");
    assert.equal(body.deno, Deno.version.deno);
    assert.equal(body.empiric_git_commit, t.host.env.runtime().empiricCommit);
  } finally {
    await t.close();
  }
});

Deno.test("POST /verify: a valid record verifies; the body is verifyProofImpl's object", async () => {
  const t = await testApp();
  try {
    const text = await fixture("valid.json");
    const res = await t.req("POST", "/verify", { json: { proof_json: text } });
    assert.equal(res.status, 200);
    const body = await res.json();
    VerifyProofOutput.parse(body);
    assert.equal(body.verified, true);
    assert.equal(body.verdict.outcome, "VALIDATED");
    assert.match(body.proof_id, /^[0-9a-f]{64}$/);
    assert.deepEqual(body, await verifyProofImpl(text, { key: FIXTURE_KEY }));
  } finally {
    await t.close();
  }
});

Deno.test("POST /verify: a tampered record is 200 with verified false and a reason", async () => {
  const t = await testApp();
  try {
    for (
      const [file, reason] of [
        ["tampered-signature.json", "signature_mismatch"],
        ["tampered-float-to-int.json", "proof_id_mismatch"],
      ]
    ) {
      const res = await t.req("POST", "/verify", { json: { proof_json: await fixture(file) } });
      assert.equal(res.status, 200, file);
      const body = VerifyProofOutput.parse(await res.json());
      assert.equal(body.verified, false);
      assert.equal(body.reason, reason);
      assert.ok(body.problems.length > 0);
    }
  } finally {
    await t.close();
  }
});

Deno.test("GET /scenarios: the list of list_scenarios, with a scenario file of the server", async () => {
  const t = await testApp();
  try {
    await Deno.mkdir(`${t.dir}/scenarios`);
    const yaml = (await Deno.readTextFile("fixtures/scenarios/arithmetic-accuracy.yaml"))
      .replace("name: arithmetic-accuracy", "name: my-arithmetic")
      .replaceAll("../corpora/", `${Deno.cwd()}/fixtures/corpora/`);
    await Deno.writeTextFile(`${t.dir}/scenarios/my-arithmetic.yaml`, yaml);
    await Deno.writeTextFile(`${t.dir}/scenarios/broken.yaml`, "name: [");
    const res = await t.req("GET", "/scenarios");
    assert.equal(res.status, 200);
    const body = ListScenariosOutput.parse(await res.json());
    assert.deepEqual(
      body,
      await invoke(listScenariosOp, {}, t.host),
    );
    const names = body.scenarios.map((s) => s.name);
    for (
      const n of ["arithmetic-accuracy", "echo-latency", "sentiment-accuracy", "my-arithmetic"]
    ) {
      assert.ok(names.includes(n), n);
    }
    assert.equal(body.errors.length, 1);
    assert.equal(body.errors[0].path, "broken.yaml", "no server path shown to network clients");

    const one = await t.req("GET", "/scenarios/my-arithmetic");
    assert.equal(one.status, 200);
    const claim = ScenarioClaimOutput.parse(await one.json());
    assert.equal(claim.origin, "file");
    assert.equal(claim.claim.threshold.comparator, ">=");
  } finally {
    await t.close();
  }
});

Deno.test("GET /scenarios/{name}: get_scenario_claim's object; 404 for an unknown name", async () => {
  const t = await testApp();
  try {
    const res = await t.req("GET", "/scenarios/echo-latency");
    assert.equal(res.status, 200);
    const body = ScenarioClaimOutput.parse(await res.json());
    assert.deepEqual(
      body,
      await invoke(getScenarioClaimOp, { name: "echo-latency" }, t.host),
    );
    assert.equal(body.claim.threshold.metric, "latency.p95");
    const missing = await t.req("GET", "/scenarios/no-such-scenario");
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).code, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("POST /canonicalize: canonicalize_value's object (ints and floats stay apart)", async () => {
  const t = await testApp();
  try {
    const value_json = '{"b": [1, 1.0, 1e-05], "a": "\u00e9", "\u{1F600}": null}';
    const res = await t.req("POST", "/canonicalize", { json: { value_json } });
    assert.equal(res.status, 200);
    const body = CanonicalizeOutput.parse(await res.json());
    assert.deepEqual(body, await invoke(canonicalizeValueOp, { value_json }, t.host));
    assert.equal(body.canonical, '{"a":"\\u00e9","b":[1,1.0,1e-05],"\\ud83d\\ude00":null}');
    assert.equal("hmac_sha256" in body, false, "no HMAC under the server's key");
  } finally {
    await t.close();
  }
});

Deno.test("POST /runs, GET /proofs, GET /proofs/{id}: run, list with filters, fetch the file", async () => {
  const t = await testApp();
  try {
    const run = await t.req("POST", "/runs", {
      json: { scenario: "arithmetic-accuracy", substrate: "builtin:calculator" },
    });
    assert.equal(run.status, 201);
    const result = RunScenarioOutput.parse(await run.json());
    assert.equal(result.outcome, "VALIDATED");
    assert.equal(run.headers.get("location"), `/proofs/${result.proof_id}`);
    const second = await t.req("POST", "/runs", { json: { scenario: "sentiment-accuracy" } });
    assert.equal(second.status, 201);
    const refuted = RunScenarioOutput.parse(await second.json());
    assert.equal(refuted.outcome, "REFUTED");
    assert.equal(refuted.substrate, "builtin:keyword-sentiment", "the scenario's default");

    const all = await t.req("GET", "/proofs");
    assert.equal(all.status, 200);
    const page = ProofIndexOutput.parse(await all.json());
    assert.deepEqual(page, await invoke(readProofIndexOp, {}, t.host));
    assert.ok(page.entries.every((e) => !e.path.includes("/")), "paths relative to the store");
    assert.ok(!page.store.includes("/"), "the store's directory name only");
    assert.equal(page.total, 2);
    const filtered = ProofIndexOutput.parse(
      await (await t.req("GET", "/proofs?outcome=REFUTED&limit=1&offset=0")).json(),
    );
    assert.deepEqual(filtered.entries.map((e) => e.proof_id), [refuted.proof_id]);
    assert.equal(filtered.limit, 1);
    const byScenario = ProofIndexOutput.parse(
      await (await t.req("GET", "/proofs?scenario=arithmetic-accuracy")).json(),
    );
    assert.deepEqual(byScenario.entries.map((e) => e.proof_id), [result.proof_id]);
    const bySubstrate = ProofIndexOutput.parse(
      await (await t.req("GET", "/proofs?substrate=builtin%3Akeyword-sentiment")).json(),
    );
    assert.equal(bySubstrate.total, 1);
    const paged = ProofIndexOutput.parse(await (await t.req("GET", "/proofs?offset=1")).json());
    assert.equal(paged.entries.length, 1);
    assert.equal(paged.total, 2);

    const file = await t.req("GET", `/proofs/${result.proof_id}`);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get("content-type"), "application/json");
    const bytes = new Uint8Array(await file.arrayBuffer());
    assert.deepEqual(
      bytes,
      await Deno.readFile(`${t.dir}/store/${result.path!}`),
      "exact stored bytes",
    );
    const again = await t.req("POST", "/verify", {
      json: { proof_json: new TextDecoder().decode(bytes) },
    });
    const v = await again.json();
    assert.equal(v.verified, true, "a record run by the server verifies on it");
    assert.equal(v.proof_id, result.proof_id);

    const absent = await t.req("GET", `/proofs/${"0".repeat(64)}`);
    assert.equal(absent.status, 404);
    assert.equal((await absent.json()).code, "not_found");
  } finally {
    await t.close();
  }
});

Deno.test("HEAD is answered like GET without a body; OPTIONS lists the methods", async () => {
  const t = await testApp();
  try {
    const head = await t.req("HEAD", "/health");
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const options = await t.req("OPTIONS", "/verify");
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("allow"), "OPTIONS, POST");
    assert.equal(options.headers.get("access-control-allow-origin"), null, "no CORS");
  } finally {
    await t.close();
  }
});

Deno.test("every response: request id (given or minted), security headers, one log line", async () => {
  const t = await testApp();
  try {
    const res = await t.req("GET", "/health", { headers: { "x-request-id": "abc-123" } });
    await res.body?.cancel();
    assert.equal(res.headers.get("x-request-id"), "abc-123");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const bad = await t.req("GET", "/health", { headers: { "x-request-id": "a b\u0001" } });
    await bad.body?.cancel();
    assert.match(bad.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/, "unsafe ids replaced");
    const line = t.logs.find((l) => l.request_id === "abc-123")!;
    assert.equal(line.msg, "request");
    assert.equal(line.method, "GET");
    assert.equal(line.path, "/health");
    assert.equal(line.status, 200);
    assert.equal(typeof line.duration_ms, "number");
    assert.match(String(line.ts), /^\d{4}-\d\d-\d\dT/);
  } finally {
    await t.close();
  }
});

Deno.test("policy headers: each exactly once, the documentation keeping its own", async () => {
  const t = await testApp();
  const API_CSP = "default-src 'none'; frame-ancestors 'none'";
  // path (and method) → the CSP and Cache-Control the answer must carry
  const cases: [string, string, string | RegExp, string][] = [
    ["GET", "/health", API_CSP, "no-store"],
    ["POST", "/verify", API_CSP, "no-store"], // 415: a problem answer
    ["GET", "/nope", API_CSP, "no-store"], // 404
    ["GET", "/docs", /script-src 'self'/, "no-store"],
    ["GET", "/docs/assets/swagger-ui.css", API_CSP, "public, max-age=86400"],
  ];
  try {
    for (const [method, path, csp, cache] of cases) {
      const res = await t.req(method, path);
      await res.body?.cancel();
      const where = `${method} ${path}`;
      // Headers.get joins repeated headers with ", ": a repeat shows as a longer value.
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", where);
      assert.match(res.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/, where);
      assert.equal(res.headers.get("cache-control"), cache, where);
      const got = res.headers.get("content-security-policy")!;
      if (typeof csp === "string") assert.equal(got, csp, where);
      else assert.ok(csp.test(got) && !got.includes(API_CSP), `${where}: ${got}`);
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /verify with an envelope: verify_attestation's object, under the client's public keys", async () => {
  const t = await testApp();
  try {
    const dir = `${ROOT}fixtures/attestations`;
    const envelope_json = await Deno.readTextFile(`${dir}/proof-ed25519.dsse.json`);
    const pem = await Deno.readTextFile(`${dir}/keys/ed25519.pub`);
    const other = await Deno.readTextFile(`${dir}/keys/other-ed25519.pub`);
    const ok = await t.req("POST", "/verify", { json: { envelope_json, public_keys: [pem] } });
    assert.equal(ok.status, 200);
    const body = VerifyAttestationOutput.parse(await ok.json());
    assert.equal(body.verified, true);
    assert.deepEqual(
      body,
      await invoke(verifyAttestationOperation, { envelope_json, public_keys: [pem] }, t.host),
    );
    const wrong = VerifyAttestationOutput.parse(
      await (await t.req("POST", "/verify", { json: { envelope_json, public_keys: [other] } }))
        .json(),
    );
    assert.equal(wrong.verified, false);
    assert.match(wrong.reason ?? "", /^(signature_mismatch|untrusted_signer)$/);
    const mixed = await t.req("POST", "/verify", {
      json: { envelope_json, proof_json: "{}", public_keys: [pem] },
    });
    assert.equal(mixed.status, 400, "a record and an envelope at once is refused");
  } finally {
    t.close();
  }
});
