// The HTML report of a record with 100,000 observations: time and size, against targets of
// 1 s and 2 MB (issue 16). Baselines in the same run: JSON.stringify of the observations (the
// cost of merely writing them out) and the size of the observations file itself. Also the
// Markdown and JUnit reports, and reading the observations file (parse and check every line).
//
//   deno run -A bench/report.ts [--items 100000] [--rounds 5]
import { parseArgs } from "node:util";
import { buildReport, type PlainRecord } from "../src/report/model.ts";
import { renderHtml } from "../src/report/html.ts";
import { renderMarkdown } from "../src/report/markdown.ts";
import { renderJunit } from "../src/report/junit.ts";
import { observationsJsonl, parseObservations } from "../src/report/observations.ts";
import type { Observation } from "../src/run/observation.ts";
import { parseJson } from "../src/json/parse.ts";
import { toPlainJson } from "../src/json/plain.ts";
import { mulberry32 } from "./records.ts";

const { values } = parseArgs({
  options: {
    items: { type: "string", default: "100000" },
    rounds: { type: "string", default: "5" },
  },
});
const n = Number(values.items), rounds = Number(values.rounds);

// A real latency record (fixtures/reports), its run-wide and per-pillar n set to the sample's.
const text = await Deno.readTextFile(
  new URL("../fixtures/reports/latency-later.json", import.meta.url),
);
const record = toPlainJson(parseJson(text)) as unknown as PlainRecord;
const prov = record.provenance as Record<string, Record<string, Record<string, unknown>>>;
for (const a of Object.values(prov.activity)) a["empiric:measured"] = n;
for (const e of Object.values(prov.entity)) if ("empiric:n" in e) e["empiric:n"] = n;

// Latency-like observations: log-normal around 0.5 ms, 0.5% timeouts (censored at 1000 ms).
const rnd = mulberry32(16);
const observations: Observation[] = [];
for (let i = 0; i < n; i++) {
  const z = Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const failed = rnd() < 0.005;
  const latency = failed ? 1000 : Math.exp(Math.log(0.5) + 0.6 * z);
  observations.push(
    failed
      ? {
        item: i,
        id: `req-${i}`,
        ok: false,
        attempts: 2,
        failure: { kind: "timeout", message: "no answer within 1000 ms" },
        latency_ms: latency,
        censored: true,
        metrics: { latency: null, ok: 0 },
      }
      : {
        item: i,
        id: `req-${i}`,
        ok: true,
        attempts: 1,
        latency_ms: latency,
        censored: false,
        metrics: { latency, ok: 1 },
      },
  );
}
const jsonl = observationsJsonl(observations);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time<T>(f: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    value = await f();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), value };
}

const input = () => ({
  record,
  observations: { items: observations, source: { kind: "run" as const } },
  verification: { state: "verified" as const, structure: true, summary: "benchmark" },
});
// Warm-up (module initialisation, JIT), not counted.
await renderHtml(buildReport(input()));

const baseline = await time(() => JSON.stringify(observations).length);
const html = await time(async () => await renderHtml(buildReport(input())));
const md = await time(() => renderMarkdown(buildReport(input())));
const junit = await time(() => renderJunit(buildReport(input())));
const read = await time(() => parseObservations(jsonl).length);
const fromFile = await time(async () =>
  await renderHtml(buildReport({
    ...input(),
    observations: { items: parseObservations(jsonl), source: { kind: "run" as const } },
  }))
);
const bytes = new TextEncoder().encode(html.value).length;

const mb = (b: number) => (b / 1024 / 1024).toFixed(2);
console.log(`report of ${n.toLocaleString("en")} observations (median of ${rounds} rounds)`);
console.log(
  `  HTML:      ${html.ms.toFixed(0)} ms, ${mb(bytes)} MB  (targets: < 1000 ms, < 2 MB)  ${
    html.ms < 1000 && bytes < 2 * 1024 * 1024 ? "OK" : "MISSED"
  }`,
);
console.log(
  `  HTML from the observations file's text (read, check, report): ${fromFile.ms.toFixed(0)} ms`,
);
console.log(`  Markdown:  ${md.ms.toFixed(0)} ms, JUnit: ${junit.ms.toFixed(0)} ms`);
console.log(
  `  reading the observations file (${mb(jsonl.length)} MB, parse and check each line): ${
    read.ms.toFixed(0)
  } ms`,
);
console.log(
  `  baseline JSON.stringify of the observations: ${baseline.ms.toFixed(0)} ms; HTML/baseline ${
    (html.ms / baseline.ms).toFixed(2)
  }x`,
);
console.log(`  HTML size / observations file size: ${(bytes / jsonl.length).toFixed(4)}`);
