// Reports and the proofs page in headless Chromium (Debian's chromium, driven by playwright-core):
// each HTML report opened from disk with every request other than the file itself blocked, and
// over HTTP with /ui; the verdict, the plots (inline SVG with text alternatives), the tables, no
// console error (a CSP violation is one), no overflow on a phone, contrast of the verdict colours.
// Screenshots go to a temporary directory, printed at the end.
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import { chromiumAt } from "../support/peers.ts";
import { testApp } from "../http/support.ts";
import { TEST_SIGN_KEY } from "../support/env.ts";
import { renderHtml } from "../../src/report/html.ts";
import { copyIntoStore, fixtureReport, FIXTURES, loadFixture } from "./support.ts";

// Browser globals used inside page functions (they run in the page, not in Deno).
// deno-lint-ignore no-explicit-any
declare const document: any;
// deno-lint-ignore no-explicit-any
declare function getComputedStyle(e: unknown): any;

const CHROMIUM = Deno.env.get("EMPIRIC_CHROMIUM") ?? "/usr/bin/chromium";
const haveChromium = await chromiumAt(CHROMIUM);

/** Chromium with a fresh profile (playwright makes a new temporary one per launch). */
async function launch(): Promise<{ browser: Browser }> {
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
  return { browser };
}

/** A page that records console errors and blocks (and records) requests outside `allowed`. */
async function watchedPage(
  browser: Browser,
  allowed: (url: string) => boolean,
  viewport = { width: 1100, height: 900 },
) {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const foreign: string[] = [];
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (allowed(url)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { page, errors, foreign };
}

function luminance(rgb: string): number {
  const [r, g, b] = rgb.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

async function checkReport(page: Page, outcome: string, opts: { observations: boolean }) {
  const badge = await page.textContent("header .badge");
  assert.equal(badge?.trim(), outcome);
  assert.match((await page.textContent("#h-verdict")) ?? "", new RegExp(outcome));
  // Plots: inline SVG with a label and a description, one forest plot per pillar at least.
  const svgs = await page.$$eval("figure svg", (els) =>
    els.map((e) => ({
      label: e.getAttribute("aria-label"),
      description: e.getAttribute("aria-description"),
      width:
        (e as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect()
          .width,
      marks: e.querySelectorAll("rect, circle, path, line").length,
    })));
  const pillars = await page.$$eval(".pillar", (els) => els.length);
  assert.ok(pillars >= 1);
  assert.ok(svgs.filter((s) => s.label?.startsWith("Interval plot")).length === pillars);
  for (const s of svgs) {
    assert.ok(s.label && s.description && s.description.length > 20, JSON.stringify(s));
    assert.ok(s.width > 100, "the plot is laid out");
    assert.ok(s.marks > 3, "the plot has marks");
  }
  const captions = await page.$$eval("figure figcaption", (els) => els.length);
  assert.equal(captions, svgs.length, "every plot has a caption in words");
  const tables = await page.$$eval(
    "table",
    (els) => els.map((t) => t.querySelectorAll("tbody tr").length),
  );
  assert.ok(tables.length >= 3 && tables.every((n) => n >= 1), `tables ${tables}`);
  if (opts.observations) {
    assert.ok(
      svgs.some((s) => /^(Histogram|Counts) of/.test(s.label ?? "")),
      "a distribution plot",
    );
  }
  assert.ok(svgs.some((s) => s.label === "Provenance graph"));
  // Contrast: the verdict banner and the outcome words (WCAG AA, 4.5:1).
  const colors = await page.$eval("header.verdict", (e) => {
    const s = getComputedStyle(e);
    return [s.color, s.backgroundColor];
  });
  assert.ok(contrast(colors[0], colors[1]) >= 4.5, `banner contrast ${colors}`);
  const word = await page.$eval("#h-verdict span", (e) => getComputedStyle(e).color);
  assert.ok(contrast(word, "rgb(255, 255, 255)") >= 4.5, `outcome contrast ${word}`);
}

Deno.test({
  name: "each HTML report opens from disk in Chromium: verdict, plots, tables, nothing else loaded",
  ignore: !haveChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "empiric-report-browser-" });
    const { browser } = await launch();
    try {
      for (const name of FIXTURES) {
        const f = await loadFixture(name);
        const path = `${dir}/${name}.html`;
        await Deno.writeTextFile(path, await renderHtml(await fixtureReport(name)));
        const fileUrl = `file://${path}`;
        const { page, errors, foreign } = await watchedPage(browser, (u) => u === fileUrl);
        await page.goto(fileUrl, { waitUntil: "load" });
        await checkReport(page, f.record.verdict.outcome, { observations: true });
        await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
        assert.deepEqual(foreign, [], `${name}: nothing but the file is requested`);
        assert.deepEqual(errors, [], `${name}: no console errors (CSP included)`);
        // A phone: nothing wider than the screen but the scrollable tables.
        const phone = await watchedPage(browser, (u) => u === fileUrl, { width: 390, height: 844 });
        await phone.page.goto(fileUrl, { waitUntil: "load" });
        const overflow = await phone.page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.ok(overflow <= 1, `${name}: the page is ${overflow}px wider than a phone`);
        await phone.page.screenshot({ path: `${dir}/${name}-phone.png` });
        // Print: the navigation goes, the plots stay.
        await phone.page.emulateMedia({ media: "print" });
        assert.equal(await phone.page.$eval("nav", (e) => getComputedStyle(e).display), "none");
        const pdf = await page.pdf({ format: "A4" });
        assert.ok(pdf.length > 10_000);
        await phone.page.close();
        await page.close();
      }
      // Controls: the listeners do see a blocked request and a CSP violation.
      const path = `${dir}/control.html`;
      await Deno.writeTextFile(
        path,
        (await Deno.readTextFile(`${dir}/arithmetic-validated.html`)).replace(
          "</body>",
          '<img src="http://example.invalid/x.png"><div style="color:red">x</div></body>',
        ),
      );
      const c = await watchedPage(browser, (u) => u === `file://${path}`);
      await c.page.goto(`file://${path}`, { waitUntil: "load" });
      await c.page.waitForTimeout(200);
      assert.ok(c.errors.some((e) => /Content Security Policy/i.test(e)), c.errors.join("; "));
      console.log(`screenshots: ${dir}`);
    } finally {
      await browser.close();
    }
  },
});

Deno.test({
  name: "GET /ui in Chromium: filter by outcome, follow a row to its report, back to the list",
  ignore: !haveChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const t = await testApp({ key: TEST_SIGN_KEY });
    await copyIntoStore(t.store, FIXTURES);
    await t.store.reindex();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req, info) => t.app.fetch(req, info),
    );
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const dir = await Deno.makeTempDir({ prefix: "empiric-ui-browser-" });
    const { browser } = await launch();
    try {
      const { page, errors, foreign } = await watchedPage(
        browser,
        (u) => u.startsWith(origin + "/"),
      );
      const res = await page.goto(`${origin}/ui`, { waitUntil: "load" });
      assert.equal(res?.status(), 200);
      assert.equal(await page.$$eval("tbody tr", (r) => r.length), FIXTURES.length);
      await page.screenshot({ path: `${dir}/ui.png`, fullPage: true });
      await page.selectOption("select[name=outcome]", "REFUTED");
      await Promise.all([page.waitForNavigation(), page.click("form.filters button")]);
      assert.match(page.url(), /outcome=REFUTED/);
      const rows = await page.$$eval("tbody tr", (r) => r.map((x) => x.textContent ?? ""));
      assert.equal(rows.length, 1);
      assert.match(rows[0], /REFUTED/);
      await Promise.all([page.waitForNavigation(), page.click("tbody a:has-text('report')")]);
      assert.match(page.url(), /\/proofs\/[0-9a-f]{64}\/report$/);
      await checkReport(page, "REFUTED", { observations: true });
      assert.match((await page.textContent(".status")) ?? "", /Signature verified/);
      await page.screenshot({ path: `${dir}/report-over-http.png` });
      await Promise.all([page.waitForNavigation(), page.click("nav a:has-text('All proofs')")]);
      assert.match(page.url(), /\/ui$/);
      assert.deepEqual(foreign, []);
      assert.deepEqual(errors, []);
      console.log(`screenshots: ${dir}`);
    } finally {
      await browser.close();
      await server.shutdown();
      t.close();
    }
  },
});
