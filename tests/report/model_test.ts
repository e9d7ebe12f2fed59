// The report model: aggregation stays bounded at any n, open-ended bounds are never numbers,
// observations that do not belong to the record are refused, items and lineage come out right.
import assert from "node:assert/strict";
import fc from "fast-check";
import { quantileSorted as ssQuantileSorted } from "simple-statistics";
import {
  ecdf,
  histogram,
  logHistogram,
  MAX_BINS,
  quantileSorted,
  sortSample,
} from "../../src/report/aggregate.ts";
import { buildReport, formatInterval, formatNumber } from "../../src/report/model.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { renderJunit } from "../../src/report/junit.ts";
import { renderHtml } from "../../src/report/html.ts";
import { fixtureReport, loadFixture, VERIFIED } from "./support.ts";

Deno.test("aggregation of 100,000 values is bounded: at most 60 bins and 400 ECDF points", () => {
  let x = 12345;
  const values = Array.from({ length: 100_000 }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return -Math.log((x + 1) / 2 ** 31) * 3; // exponential, a long right tail
  });
  const s = sortSample(values);
  const bins = histogram(s);
  assert.ok(bins.length <= MAX_BINS, `${bins.length} bins`);
  assert.equal(bins.reduce((a, b) => a + b.count, 0), 100_000);
  const logBins = logHistogram(s);
  assert.ok(logBins.length <= MAX_BINS);
  assert.equal(logBins.reduce((a, b) => a + b.count, 0), 100_000);
  const e = ecdf(s.values);
  assert.ok(e.length <= 400);
  assert.equal(e.at(-1)!.p, 1);
  for (let i = 1; i < e.length; i++) assert.ok(e[i].x > e[i - 1].x && e[i].p > e[i - 1].p);
});

Deno.test("every value lands in the bin that contains it, censored flags travel with values", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
      fc.array(fc.boolean(), { minLength: 300, maxLength: 300 }),
      (values, flags) => {
        const censored = values.map((_, i) => flags[i]);
        const s = sortSample(values, censored);
        assert.equal(s.censored.reduce((a, b) => a + b, 0), censored.filter(Boolean).length);
        const bins = histogram(s);
        assert.equal(bins.reduce((a, b) => a + b.count, 0), values.length);
        assert.equal(bins.reduce((a, b) => a + b.censored, 0), censored.filter(Boolean).length);
        for (const v of values) {
          const inside = bins.filter((b, i) =>
            v >= b.x0 && (v < b.x1 || (i === bins.length - 1 && v <= b.x1))
          );
          assert.ok(inside.length >= 1, `${v} in no bin`);
        }
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("quantiles are type 7, as simple-statistics computes them", () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 200 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (values, p) => {
        const sorted = Float64Array.from(values).sort();
        assert.equal(quantileSorted(sorted, p), ssQuantileSorted([...sorted], p));
      },
    ),
  );
});

Deno.test("an unbounded side is written open-ended (∞) in every format, never as a number", async () => {
  const f = await loadFixture("latency-earlier");
  const record = structuredClone(f.record);
  record.evidence[0].ci_high = Number.MAX_VALUE;
  const entity = Object.values(record.provenance.entity as Record<string, Record<string, unknown>>)
    .find((e) => e["empiric:pillar"] === record.evidence[0].pillar)!;
  entity["empiric:ci_high"] = Number.MAX_VALUE;
  entity["empiric:ci_high_bounded"] = false;
  entity["empiric:deciding_high"] = Number.MAX_VALUE;
  const report = buildReport({
    record,
    observations: { items: f.observations, source: { kind: "run" } },
    verification: VERIFIED,
  });
  assert.equal(report.pillars[0].high, null);
  assert.equal(report.deciding!.decision!.high, null);
  const md = renderMarkdown(report);
  const xml = renderJunit(report);
  const html = await renderHtml(report);
  for (const text of [md, xml, html]) {
    assert.doesNotMatch(text, /1\.797|e\+?308|179769/);
    assert.match(text, /∞\)/);
  }
  assert.match(html, /open-ended/);
  assert.match(html, /straddles|no part of the interval/);
  assert.equal(formatInterval(null, 3), "(−∞, 3]");
  assert.equal(formatNumber(Number.MAX_VALUE), "∞");
});

Deno.test("observations that are not the record's are not shown, and the report says why", async () => {
  const f = await loadFixture("arithmetic-validated");
  const fewer = buildReport({
    record: f.record,
    observations: { items: f.observations.slice(1), source: { kind: "file", path: "x.jsonl" } },
    verification: VERIFIED,
  });
  assert.equal(fewer.observations.present, false);
  assert.match(fewer.observations.note, /do not match the \d+ items/);
  const pinned = structuredClone(f.record);
  pinned.data.datasets.push({
    name: "observations",
    kind: "observations",
    content_hash: "a".repeat(64),
    n_records: f.observations.length,
    source: "x.observations.jsonl",
  });
  const mismatch = buildReport({
    record: pinned,
    observations: {
      items: f.observations,
      source: { kind: "file", path: "x", sha256: "b".repeat(64) },
    },
    verification: VERIFIED,
  });
  assert.equal(mismatch.observations.present, false);
  assert.match(mismatch.observations.note, /does not match the record/);
  const none = buildReport({ record: f.record, verification: VERIFIED });
  assert.equal(none.observations.present, false);
  assert.match(none.observations.note, /No observations/);
  const md = renderMarkdown(none);
  assert.match(md, /No observations/);
  assert.doesNotMatch(md, /\| min \|/);
  const html = await renderHtml(none);
  assert.match(html, /needs the observations/);
  assert.doesNotMatch(html, /Histogram of/);
});

Deno.test("failed and wrong items are counted and listed, first 100 of each", async () => {
  const refuted = await fixtureReport("sentiment-refuted");
  const f = await loadFixture("sentiment-refuted");
  const wrong = f.observations.filter((o) => o.ok && o.metrics.correct === 0);
  assert.ok(wrong.length > 0);
  assert.equal(refuted.observations.items!.wrong.total, wrong.length);
  assert.deepEqual(
    refuted.observations.items!.wrong.rows.map((r) => r.id),
    wrong.slice(0, 100).map((o) => o.id),
  );
  const failures = await fixtureReport("arithmetic-failures");
  const g = await loadFixture("arithmetic-failures");
  const failed = g.observations.filter((o) => !o.ok);
  assert.ok(failed.length > 0);
  assert.equal(failures.observations.items!.failed.total, failed.length);
  assert.equal(
    failures.observations.items!.failed.byKind.reduce((a, k) => a + k.count, 0),
    failed.length,
  );
  assert.equal(failures.outcome, "INCONCLUSIVE");
});

Deno.test("the lineage trend and the comparison come from the earlier proof of the same scenario", async () => {
  const later = await fixtureReport("latency-later");
  const earlier = await loadFixture("latency-earlier");
  assert.equal(later.trend.length, 2);
  assert.equal(later.trend[0].proofId, earlier.record.identity.proof_id);
  assert.equal(later.trend[1].current, true);
  assert.equal(later.previous!.proofId, earlier.record.identity.proof_id);
  assert.ok(later.lineageChain.includes(earlier.record.identity.proof_id));
  const verdictRow = later.previous!.rows.find((r) => r.what === "verdict")!;
  assert.equal(verdictRow.current, later.outcome);
  // A record of another scenario is not in the trend.
  const other = await loadFixture("arithmetic-validated");
  const alone = buildReport({
    record: earlier.record,
    lineage: [other.record],
    verification: VERIFIED,
  });
  assert.equal(alone.trend.length, 1);
  assert.equal(alone.previous, null);
});

Deno.test("the provenance drawing has the run, its inputs, its pillars and the result", async () => {
  const r = await fixtureReport("latency-later");
  const kinds = r.provenance.nodes.map((n) => `${n.kind}:${n.type}`);
  for (
    const k of [
      "activity:ScenarioRun",
      "entity:Dataset",
      "entity:Scenario",
      "entity:Pillar",
      "entity:ProofRecord",
      "agent:SoftwareAgent",
    ]
  ) {
    assert.ok(kinds.includes(k), k);
  }
  assert.ok(r.provenance.nodes.some((n) => n.label.startsWith("earlier proof")));
  assert.ok(r.provenance.edges.some((e) => e.relation === "used" && e.drawn));
});
