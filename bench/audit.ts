// Bundle and audit benchmark (issue 14):
//  1. what the observations file adds to a run: a whole `runScenario` through a `cmd:` echo
//     substrate (fixtures/substrates/echo.py, 20,000 items), against the same run's own cost of
//     the bundle (canonical lines, hash, and writing the observations and scenario files
//     atomically, as `run --out` and the store do); target: at most 15% of the run without it;
//  2. `empiric audit` (auditProof: verify, hashes, recompute evidence, verdict and pillar
//     entities) of a record with 100,000 observations; target: under 1 s. Baseline in the same
//     run: JSON.parse of every line of the observations file (reading it at all).
//
//   deno run -A bench/audit.ts [--items 20000] [--audit-items 100000] [--rounds 3]
import { runImported, runScenario } from "../src/run/run.ts";
import { openSubstrate } from "../src/substrate/open.ts";
import { parseResolved } from "../src/scenario/resolve.ts";
import { bundleBytes, bundlePaths, observationsDataset } from "../src/run/bundle.ts";
import { writeFileAtomic } from "../src/fs/atomic.ts";
import { importResults } from "../src/run/import.ts";
import { auditProof } from "../src/run/audit.ts";
import { prettyJson } from "../src/json/pretty.ts";
import { mulberry32 } from "./records.ts";

const argOf = (name: string, d: number) =>
  Deno.args.includes(name) ? Number(Deno.args[Deno.args.indexOf(name) + 1]) : d;
const n = argOf("--items", 20000);
const auditN = argOf("--audit-items", 100000);
const rounds = argOf("--rounds", 3);
const key = new TextEncoder().encode("empiric-bench-key-0123456789abcdef-xx");
const runtime = {
  empiricVersion: "0.1.0",
  empiricCommit: "bench",
  host: {},
  libraries: {},
};
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const SCENARIO = (corpus: boolean) => `
name: bench-bundle
claim:
  statement: s
  operationalization: o
  threshold: { metric: latency.p95, comparator: "<=", value: 50.0, units: ms }
  h0: h0
  h1: h1
datasets: ${corpus ? "[{ name: items, path: items.jsonl, kind: corpus }]" : "[]"}
probe: { send: /input, timeout_ms: 10000 }
metrics:
  latency: { kind: latency_ms }
  ok: { kind: success }
analysis:
  min_n: 30
  max_failure_rate: 0.01
  pillars:
    - { name: latency.p95, metric: latency, statistic: quantile, p: 0.95 }
    - { name: latency.median, metric: latency, statistic: median }
    - { name: reliability.success_rate, metric: ok, statistic: proportion }
`;

// 1. The bundle's share of a run.
const echo = new URL("../fixtures/substrates/echo.py", import.meta.url).pathname;
const corpus = new TextEncoder().encode(
  Array.from({ length: n }, (_, i) => JSON.stringify({ id: `i${i}`, input: { q: `item ${i}` } }))
    .join("\n") + "\n",
);
const resolved = parseResolved(SCENARIO(true), "bench/bench.yaml", {
  readFile: () => Promise.resolve(corpus),
});
const dir = await Deno.makeTempDir({ prefix: "empiric-bench-bundle-" });
const shares: number[] = [];
let runMs = 0, bundleMs = 0;
for (let r = 0; r < rounds; r++) {
  const substrate = openSubstrate(`cmd:python3 ${echo}`);
  const t0 = performance.now();
  let out;
  try {
    out = await runScenario({
      resolved,
      substrateSpec: `cmd:python3 ${echo}`,
      substrate,
      key,
      runtime,
      now: () => Date.now(),
      monotonic: () => performance.now(),
    });
  } finally {
    await substrate.close();
  }
  const total = performance.now() - t0;
  // The bundle's cost, on this run's observations: built in memory (inside the run above) and
  // written beside the record (after it).
  const t1 = performance.now();
  const b = bundleBytes(resolved.scenario, out.observations);
  await observationsDataset(b.observations, out.observations.length);
  const inMemory = performance.now() - t1;
  const paths = bundlePaths(`${dir}/run.json`);
  const t2 = performance.now();
  await writeFileAtomic(paths.observations, b.observations);
  await writeFileAtomic(paths.scenario, b.scenario);
  const written = performance.now() - t2;
  const without = total - inMemory;
  shares.push((inMemory + written) / without);
  runMs = without;
  bundleMs = inMemory + written;
}
console.log(`| run through cmd: echo | items | run without bundle ms | bundle ms | bundle / run |`);
console.log(`| --- | ---: | ---: | ---: | ---: |`);
console.log(
  `| last of ${rounds} rounds | ${n} | ${runMs.toFixed(0)} | ${bundleMs.toFixed(1)} | ${
    (median(shares) * 100).toFixed(2)
  }% (median; target at most 15%) |`,
);

// 2. Audit of a record with 100,000 observations.
const rand = mulberry32(14);
const lines: string[] = [];
for (let i = 0; i < auditN; i++) {
  const lat = Math.exp(
    2 + 0.5 * Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()),
  );
  lines.push(JSON.stringify(i % 997 === 5 ? { ok: false, latency_ms: lat } : { latency_ms: lat }));
}
const results = new TextEncoder().encode(lines.join("\n") + "\n");
const imported = importResults("jsonl", results, "latencies.jsonl");
const importScenario = parseResolved(SCENARIO(false), "bench/import.yaml", {
  readFile: () => Promise.reject(new Error("no files")),
});
const output = await runImported({
  resolved: importScenario,
  substrateSpec: "import:jsonl",
  key,
  runtime,
  now: () => Date.now(),
  file: { name: "latencies.jsonl", bytes: results, format: "jsonl" },
  imported,
});
const recordText = prettyJson(output.record as never);
const auditMs: number[] = [];
const baseMs: number[] = [];
for (let r = 0; r < Math.max(rounds, 5); r++) {
  const t0 = performance.now();
  const a = await auditProof({
    record: recordText,
    observations: output.bundle.observations,
    scenario: output.bundle.scenario,
    key,
  });
  auditMs.push(performance.now() - t0);
  if (!a.agrees) throw new Error(`the audit must agree: ${JSON.stringify(a.differences[0])}`);
  const t1 = performance.now();
  const text = new TextDecoder().decode(output.bundle.observations);
  let count = 0;
  for (const line of text.split("\n")) if (line) count += JSON.parse(line).item >= 0 ? 1 : 0;
  baseMs.push(performance.now() - t1);
  if (count !== auditN) throw new Error("baseline miscounted");
}
console.log();
console.log(`| audit | observations | file MB | audit ms | JSON.parse of every line ms | ratio |`);
console.log(`| --- | ---: | ---: | ---: | ---: | ---: |`);
console.log(
  `| median of ${auditMs.length} | ${auditN} | ${
    (output.bundle.observations.length / 1e6).toFixed(1)
  } | ${median(auditMs).toFixed(0)} (target under 1000) | ${median(baseMs).toFixed(0)} | ${
    (median(auditMs) / median(baseMs)).toFixed(2)
  } |`,
);
await Deno.remove(dir, { recursive: true });
