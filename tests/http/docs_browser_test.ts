// GET /docs in headless Chromium (Debian's chromium, driven by playwright-core): the page
// renders every operation, loads nothing from any other origin, and breaks no CSP rule.
// Chromium is required: without it this test fails (install: apt-get install -y chromium).
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { chromiumAt } from "../support/peers.ts";
import { API_OPERATIONS, testApp } from "./support.ts";

const CHROMIUM = Deno.env.get("EMPIRIC_CHROMIUM") ?? "/usr/bin/chromium";
const SCREENSHOT = `${Deno.env.get("TMPDIR") ?? "/tmp"}/empiric-http-docs.png`;
const haveChromium = await chromiumAt(CHROMIUM);

Deno.test({
  name: "GET /docs in headless Chromium shows every operation, offline, same-origin only",
  ignore: !haveChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const t = await testApp();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req, info) => t.app.fetch(req, info),
    );
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      const foreign: string[] = [];
      const consoleErrors: string[] = [];
      // Anything not addressed to the server is blocked and recorded: the page must not need it.
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(origin + "/") || url.startsWith("data:")) return route.continue();
        foreign.push(url);
        return route.abort();
      });
      page.on("request", (r) => requests.push(r.url()));
      page.on("console", (m) => {
        if (m.type() === "error") consoleErrors.push(m.text());
      });
      page.on("pageerror", (e) => consoleErrors.push(String(e)));
      const res = await page.goto(`${origin}/docs`, { waitUntil: "load" });
      assert.equal(res?.status(), 200);
      assert.match(res!.headers()["content-security-policy"], /default-src 'none'/);
      await page.waitForSelector(".opblock-summary-path", { timeout: 20_000 });
      const paths = await page.$$eval(
        ".opblock-summary-path",
        (els) => els.map((e) => (e.getAttribute("data-path") ?? e.textContent ?? "").trim()),
      );
      const methods = await page.$$eval(
        ".opblock-summary-method",
        (els) => els.map((e) => (e.textContent ?? "").trim()),
      );
      const ops = paths.map((p, i) => `${methods[i]} ${p.replace(/\u200b/g, "")}`).sort();
      for (
        const op of API_OPERATIONS
      ) {
        assert.ok(ops.includes(op), `${op} not shown; shown: ${ops.join(", ")}`);
      }
      const title = await page.textContent(".info .title");
      assert.match(title ?? "", /empiric HTTP API/);
      // Open one operation: its request body schema is rendered from the document.
      await page.click("#operations-proofs-verify_proof .opblock-summary");
      await page.waitForSelector("#operations-proofs-verify_proof .opblock-body", {
        timeout: 10_000,
      });
      const opened = await page.textContent("#operations-proofs-verify_proof");
      assert.match(opened ?? "", /proof_json/);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, "-top.png") });

      assert.deepEqual(foreign, [], "no request left the server's origin");
      assert.deepEqual(consoleErrors, [], "no console errors (incl. CSP violations)");
      for (
        const want of [
          "/docs/assets/swagger-ui-bundle.js",
          "/docs/assets/swagger-ui.css",
          "/docs/assets/empiric-docs.js",
          "/openapi.json",
        ]
      ) {
        assert.ok(requests.includes(origin + want), `${want} requested`);
      }
      // Controls: the listeners above do see a CSP violation and a foreign request.
      await page.evaluate(
        `(() => { const s = document.createElement("script"); s.textContent = "window.inlineRan = true"; document.body.appendChild(s); })()`,
      );
      await page.waitForTimeout(200);
      assert.ok(
        consoleErrors.some((e) => /Content Security Policy/i.test(e)),
        `inline script refused: ${consoleErrors.join("; ")}`,
      );
      assert.equal(await page.evaluate(`"inlineRan" in window`), false);
    } finally {
      await browser.close();
      await server.shutdown();
      await t.close();
    }
  },
});

Deno.test("docs assets: gzip when accepted, identical bytes otherwise, up to date with the package", async () => {
  const { checkAssets, readPackageAssets } = await import("../../scripts/embed_docs_assets.ts");
  assert.deepEqual(await checkAssets(), [], "src/http/docs_assets.ts is up to date");
  const { files } = await readPackageAssets();
  const t = await testApp();
  try {
    const plain = await t.req("GET", "/docs/assets/swagger-ui-bundle.js");
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get("content-encoding"), null);
    assert.equal(plain.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.deepEqual(new Uint8Array(await plain.arrayBuffer()), files["swagger-ui-bundle.js"]);
    const gz = await t.req("GET", "/docs/assets/swagger-ui.css", {
      headers: { "accept-encoding": "br, gzip;q=0.8" },
    });
    assert.equal(gz.headers.get("content-encoding"), "gzip");
    assert.equal(gz.headers.get("vary"), "accept-encoding");
    const unzipped = new Uint8Array(
      await new Response(gz.body!.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer(),
    );
    assert.deepEqual(unzipped, files["swagger-ui.css"]);
    const refused = await t.req("GET", "/docs/assets/swagger-ui.css", {
      headers: { "accept-encoding": "gzip;q=0" },
    });
    assert.equal(refused.headers.get("content-encoding"), null);
    await refused.body?.cancel();
    const html = await t.req("GET", "/docs");
    const text = await html.text();
    assert.doesNotMatch(text, /https?:\/\//, "no absolute URLs in the page");
    assert.doesNotMatch(text, /<script>[^<]/, "no inline script");
  } finally {
    await t.close();
  }
});
