// verify_proof over MCP returns exactly verifyProofImpl's object (what POST /verify returns) for
// every record of fixtures/records/: valid, tampered and malformed; the demo key's records under a
// server started without a key; and the HTTP API's real POST /verify gives the same object.
import assert from "node:assert/strict";
import {
  assertMatchesSchema,
  checkToolList,
  clientV1,
  clientV2,
  FIXTURE_KEY_TEXT,
  ROOT,
  startHttp,
  StreamableHTTPClientTransport,
  StreamableHTTPClientTransportV1,
  textOf,
} from "./support.ts";
import { DEMO_KEY_BYTES, keyFromText } from "../../src/crypto/keys.ts";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
// the HTTP API's own test helper: its real app (createApp) over a temporary store
import { PROBLEM_MEMBERS, testApp } from "../http/support.ts";

interface Case {
  file: string;
  key: string | null;
  expect: string;
}

// The TypeScript verifier's structure code is schema_invalid, a superset of the ports'
// record_structure (as in tests/record/cases_test.ts).
const equivalent = (code: string) => code === "record_structure" ? "schema_invalid" : code;

const cases: Case[] = JSON.parse(
  await Deno.readTextFile(`${ROOT}fixtures/records/cases.json`),
).cases;

Deno.test("verify_proof: the same object as verifyProofImpl for every fixture record, over both client generations", async () => {
  const f = await startHttp("streamable-http");
  const clients = [
    await clientV1(new StreamableHTTPClientTransportV1(new URL(f.serving.url)), "v1"),
    await clientV2(new StreamableHTTPClientTransport(new URL(f.serving.url)), "v2", {
      pin: "2026-07-28",
    }),
  ];
  const key = keyFromText(FIXTURE_KEY_TEXT);
  try {
    const testKeyCases = cases.filter((c) => c.key === "test");
    assert.ok(testKeyCases.some((c) => c.expect === "valid"));
    assert.ok(testKeyCases.some((c) => c.file.startsWith("tampered-")));
    assert.ok(testKeyCases.some((c) => c.file.startsWith("malformed-")));
    for (const client of clients) {
      const schemas = await checkToolList(client);
      for (const c of testKeyCases) {
        const text = await Deno.readTextFile(`${ROOT}fixtures/records/${c.file}`);
        const r = await client.call("verify_proof", { proof_json: text });
        const expected = await verifyProofImpl(text, { key });
        assert.deepEqual(r.structuredContent, expected, `${client.label} ${c.file}`);
        assertMatchesSchema(schemas.verify_proof, r.structuredContent, c.file);
        if (c.expect === "valid") {
          assert.equal(r.isError, undefined, `${c.file}: ${textOf(r)}`);
          assert.equal(expected.verified, true);
        } else {
          assert.equal(r.isError, true, c.file);
          assert.equal(expected.reason, equivalent(c.expect), c.file);
          assert.ok(
            textOf(r).startsWith(`not verified: ${equivalent(c.expect)}: `),
            `${c.file}: ${textOf(r).slice(0, 120)}`,
          );
        }
      }
    }
  } finally {
    for (const c of clients) await c.close();
    await f.close();
  }
});

Deno.test("verify_proof: a server without a key verifies under the demo key, and says so", async () => {
  const f = await startHttp("streamable-http", { demoKey: true });
  const client = await clientV1(
    new StreamableHTTPClientTransportV1(new URL(f.serving.url)),
    "v1 demo",
  );
  try {
    const demo = await Deno.readTextFile(`${ROOT}fixtures/records/valid-demo-key.json`);
    const r = await client.call("verify_proof", { proof_json: demo });
    assert.deepEqual(r.structuredContent, await verifyProofImpl(demo, { key: DEMO_KEY_BYTES }));
    assert.equal(r.structuredContent?.verified, true);
    assert.equal(r.structuredContent?.demo_key, true);
    const other = await Deno.readTextFile(`${ROOT}fixtures/records/valid.json`);
    const o = await client.call("verify_proof", { proof_json: other });
    assert.equal(o.isError, true);
    assert.equal(o.structuredContent?.reason, "signature_mismatch");
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("verify_proof over MCP gives the object POST /verify gives (the HTTP API's real app)", async () => {
  const http = await testApp({ key: keyFromText(FIXTURE_KEY_TEXT) });
  const f = await startHttp("streamable-http");
  const client = await clientV2(new StreamableHTTPClientTransport(new URL(f.serving.url)), "v2", {
    pin: "2026-07-28",
  });
  try {
    const files = [...new Set(cases.filter((c) => c.key === "test").map((c) => c.file))];
    for (const file of files) {
      const text = await Deno.readTextFile(`${ROOT}fixtures/records/${file}`);
      const viaMcp = (await client.call("verify_proof", { proof_json: text })).structuredContent;
      const res = await http.req("POST", "/verify", { json: { proof_json: text } });
      const body = await res.json();
      if (res.status === 200) {
        assert.deepEqual(viaMcp, body, file);
      } else {
        // parse and schema failures are problem+json bodies carrying the same result members
        assert.match(res.headers.get("content-type") ?? "", /problem\+json/, file);
        const { ...members } = body;
        for (const k of PROBLEM_MEMBERS) delete members[k];
        assert.deepEqual(viaMcp, members, file);
      }
    }
  } finally {
    await client.close();
    await f.close();
    http.close();
  }
});

Deno.test("verify_attestation: a public-key envelope verifies over MCP as over HTTP; a wrong key is an isError result", async () => {
  const { startHttp, clientV2, StreamableHTTPClientTransport } = await import("./support.ts");
  const f = await startHttp("streamable-http");
  const client = await clientV2(
    new StreamableHTTPClientTransport(new URL(f.serving.url)),
    "http v2",
    { pin: "2026-07-28" },
  );
  try {
    const dir = `${ROOT}fixtures/attestations`;
    const envelope_json = await Deno.readTextFile(`${dir}/proof-p256.dsse.json`);
    const pem = await Deno.readTextFile(`${dir}/keys/p256.pub`);
    const ok = await client.call("verify_attestation", { envelope_json, public_keys: [pem] });
    assert.equal(ok.isError, undefined, JSON.stringify(ok));
    assert.equal(ok.structuredContent?.verified, true);
    const wrong = await client.call("verify_attestation", {
      envelope_json,
      public_keys: [await Deno.readTextFile(`${dir}/keys/other-p256.pub`)],
    });
    assert.equal(wrong.isError, true);
    assert.match(String(wrong.content?.[0]?.text), /^not verified: /);
  } finally {
    await client.close();
    await f.close();
  }
});
