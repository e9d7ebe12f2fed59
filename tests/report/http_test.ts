// GET /proofs/{id}/report (HTML, Markdown, JUnit), GET /ui (filters, paging, links) and the MCP
// resource empiric://proofs/{id}/report: real app, real store with the fixture records and their
// observations; the security headers are the documentation page's.
import assert from "node:assert/strict";
import { testApp } from "../http/support.ts";
import { TEST_SIGN_KEY } from "../support/env.ts";
import { copyIntoStore, FIXTURES, foreignReferences, loadFixture } from "./support.ts";
import { clientV2, startHttp, StreamableHTTPClientTransport } from "../mcp/support.ts";

async function appWithFixtures(key: Uint8Array<ArrayBuffer> = TEST_SIGN_KEY) {
  const t = await testApp({ key });
  const ids = await copyIntoStore(t.store, FIXTURES);
  await t.store.reindex();
  return { t, ids };
}

Deno.test("GET /proofs/{id}/report answers a self-contained HTML page with the page headers", async () => {
  const { t, ids } = await appWithFixtures();
  try {
    const later = await loadFixture("latency-later");
    const res = await t.req("GET", `/proofs/${later.record.identity.proof_id}/report`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.doesNotMatch(csp, /default-src[^]*default-src/, "one policy, the page's");
    const html = await res.text();
    assert.deepEqual(foreignReferences(html), []);
    assert.match(html, /Signature verified/);
    assert.match(html, /this server(&#39;|')s key/);
    // Links are relative: back to the list, to the record, to the earlier proof's report.
    assert.match(html, /href="\.\.\/\.\.\/ui"/);
    const earlier = await loadFixture("latency-earlier");
    assert.ok(html.includes(`href="../${earlier.record.identity.proof_id}/report"`));
    // The observations beside the stored record were read (its file).
    assert.match(html, /Histogram of/);
    assert.ok(ids.length === FIXTURES.length);
  } finally {
    t.close();
  }
});

Deno.test("GET /proofs/{id}/report?format=md|junit, unknown formats and ids", async () => {
  const { t } = await appWithFixtures();
  try {
    const f = await loadFixture("sentiment-refuted");
    const id = f.record.identity.proof_id;
    const md = await t.req("GET", `/proofs/${id}/report?format=md`);
    assert.equal(md.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.match(await md.text(), /^## ❌ REFUTED/);
    const xml = await t.req("GET", `/proofs/${id}/report?format=junit&junit_fail_on=none`);
    assert.equal(xml.headers.get("content-type"), "application/xml; charset=utf-8");
    const text = await xml.text();
    assert.match(text, /failures="0"/);
    const bad = await t.req("GET", `/proofs/${id}/report?format=pdf`);
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, "usage_error");
    const missing = await t.req("GET", `/proofs/${"0".repeat(64)}/report`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get("content-type")!, /problem\+json/);
    await missing.body?.cancel();
  } finally {
    t.close();
  }
});

Deno.test("a record that does not verify under the server's key says so, prominently", async () => {
  const { t } = await appWithFixtures(
    new TextEncoder().encode("another-server-key-0123456789abcdef"),
  );
  try {
    const f = await loadFixture("arithmetic-validated");
    const html = await (await t.req("GET", `/proofs/${f.record.identity.proof_id}/report`)).text();
    assert.match(html, /Signature does NOT verify/);
    assert.match(html, /role="alert"/);
  } finally {
    t.close();
  }
});

Deno.test("GET /ui lists the proofs with filters and links, and refuses bad filters", async () => {
  const { t } = await appWithFixtures();
  try {
    const res = await t.req("GET", "/ui");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.match(res.headers.get("content-security-policy")!, /form-action 'self'/);
    const html = await res.text();
    assert.deepEqual(foreignReferences(html), []);
    for (const name of FIXTURES) {
      const f = await loadFixture(name);
      assert.ok(html.includes(`href="proofs/${f.record.identity.proof_id}/report"`), name);
    }
    assert.match(html, /Proofs 1 to 5 of 5/);
    const refuted = await (await t.req("GET", "/ui?outcome=REFUTED")).text();
    assert.match(refuted, /Proofs 1 to 1 of 1/);
    assert.match(refuted, /<option value="REFUTED" selected>/);
    const scenario = await (await t.req("GET", "/ui?scenario=echo-latency&outcome=")).text();
    assert.match(scenario, /Proofs 1 to 2 of 2/);
    const page2 = await (await t.req("GET", "/ui?limit=2&offset=2")).text();
    assert.match(page2, /Proofs 3 to 4 of 5/);
    assert.match(page2, /href="ui\?offset=4&amp;limit=2" rel="next"/);
    assert.match(page2, /href="ui\?limit=2" rel="prev"/);
    const bad = await t.req("GET", "/ui?outcome=MAYBE");
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const none = await (await t.req("GET", "/ui?scenario=%3Cscript%3E")).text();
    assert.match(none, /No proofs match/);
    assert.match(none, /value="&lt;script&gt;"/);
  } finally {
    t.close();
  }
});

Deno.test("MCP: the report is a resource, Markdown, listed as a template", async () => {
  const f = await startHttp("streamable-http", { envVars: {} });
  try {
    await copyIntoStore(f.dirs.store, FIXTURES);
    const later = await loadFixture("latency-later");
    const client = await clientV2(
      new StreamableHTTPClientTransport(new URL(f.serving.url)),
      "v2",
      { legacy: "2025-11-25" },
    );
    try {
      const { resourceTemplates } = await client.listResourceTemplates();
      const tpl = resourceTemplates.find((r) =>
        r.uriTemplate === "empiric://proofs/{proof_id}/report"
      );
      assert.ok(tpl, JSON.stringify(resourceTemplates.map((r) => r.uriTemplate)));
      assert.equal(tpl.mimeType, "text/markdown");
      const id = later.record.identity.proof_id;
      const read = await client.readResource(`empiric://proofs/${id}/report`);
      assert.equal(read.contents[0].mimeType, "text/markdown");
      assert.match(read.contents[0].text, /^## ✅ VALIDATED: echo-latency/);
      assert.match(read.contents[0].text, /Compared with the previous proof/);
      // The record itself is still the record.
      const rec = await client.readResource(`empiric://proofs/${id}`);
      assert.equal(rec.contents[0].text, later.text);
      await assert.rejects(
        client.readResource(`empiric://proofs/${"0".repeat(64)}/report`),
        /not_found/,
      );
    } finally {
      await client.close();
    }
  } finally {
    await f.close();
  }
});
