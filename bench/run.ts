// Run-pipeline benchmark (issue 3):
//  1. items/s through a `cmd:` echo substrate, and the share of wall time spent outside the
//     substrate, against the same echo process answering the same lines fed in one go;
//  2. bootstrap time for 10,000 resamples over 10,000 items (mean: percentile and BCa;
//     quantile 0.95: percentile).
//
//   deno run -A bench/run.ts [--items 20000]
import { executeProbe } from "../src/run/execute.ts";
import { normalizeScenario } from "../src/scenario/load.ts";
import { openSubstrate } from "../src/substrate/open.ts";
import { canonicalize } from "../src/json/mod.ts";
import { estimateInterval } from "../src/stats/mod.ts";
import { mulberry32 } from "./records.ts";

const n = Number(Deno.args[Deno.args.indexOf("--items") + 1] || 20000);
const echo = new URL("../fixtures/substrates/echo.py", import.meta.url).pathname;
const items = Array.from(
  { length: n },
  (_, i) => ({ id: `i${i}`, input: { q: `item ${i}`, k: BigInt(i) } }),
);

function scenario(concurrency: number) {
  return normalizeScenario(
    {
      name: "bench-echo",
      claim: {
        statement: "s",
        operationalization: "o",
        threshold: { metric: "ok.rate", comparator: ">=", value: 0.5, units: "" },
        h0: "h0",
        h1: "h1",
      },
      datasets: [{ name: "d", path: "x.jsonl", kind: "corpus" }],
      probe: { send: "/input", timeout_ms: 10000n, concurrency: BigInt(concurrency) },
      metrics: { ok: { kind: "success" } },
      analysis: { pillars: [{ name: "ok.rate", metric: "ok", statistic: "proportion" }] },
    },
    "bench",
    () => "",
  );
}

// Baseline: the echo process alone, all lines piped in one go.
const lines = items.map((it) => canonicalize(it.input)).join("\n") + "\n";
const t0 = performance.now();
const child = new Deno.Command("python3", { args: [echo], stdin: "piped", stdout: "piped" })
  .spawn();
const w = child.stdin.getWriter();
await Promise.all([w.write(new TextEncoder().encode(lines)).then(() => w.close()), child.output()]);
const baselineMs = performance.now() - t0;

console.log(`| measure | items | wall s | items/s | share outside the substrate |`);
console.log(`|---|---:|---:|---:|---:|`);
console.log(
  `| echo.py alone, lines piped in bulk (baseline) | ${n} | ${(baselineMs / 1000).toFixed(2)} | ${
    Math.round(n / (baselineMs / 1000))
  } | – |`,
);
for (const c of [1, 4]) {
  const s = scenario(c);
  const sub = openSubstrate(`cmd:python3 ${echo}`, { concurrency: c });
  const t = performance.now();
  const out = await executeProbe(s, items, sub, { monotonic: () => performance.now() });
  const ms = performance.now() - t;
  await sub.close();
  if (out.some((o) => !o.ok)) throw new Error("echo failed");
  const share = Math.max(0, 1 - baselineMs / ms);
  console.log(
    `| empiric → cmd: echo.py, concurrency ${c} | ${n} | ${(ms / 1000).toFixed(2)} | ${
      Math.round(n / (ms / 1000))
    } | ${(share * 100).toFixed(0)}% |`,
  );
}

const rnd = mulberry32(7);
const data = Array.from({ length: 10_000 }, () => -Math.log(1 - rnd()) * 20);
console.log(`\n| bootstrap, 10,000 items × 10,000 resamples | seconds |`);
console.log(`|---|---:|`);
for (
  const [label, stat, method] of [
    ["mean, percentile", { kind: "mean" }, "bootstrap_percentile"],
    ["mean, BCa", { kind: "mean" }, "bootstrap_bca"],
    ["quantile 0.95, percentile", { kind: "quantile", p: 0.95 }, "bootstrap_percentile"],
    ["quantile 0.95, BCa", { kind: "quantile", p: 0.95 }, "bootstrap_bca"],
  ] as const
) {
  const t = performance.now();
  estimateInterval(data, stat, method, { confidence: 0.95, resamples: 10_000, seed: 1 });
  console.log(`| ${label} | ${((performance.now() - t) / 1000).toFixed(3)} |`);
}
