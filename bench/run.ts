// Run-pipeline benchmark (issues 3 and 13):
//  1. measurement overhead: a `cmd:` substrate sleeping 20 ms per call (fixtures/substrates/
//     sleep.py), timed by empiric and by a plain pipe driver (write a line, read a line) in the
//     same run; target: empiric's median at most 0.1 ms above the driver's;
//  2. items/s through a `cmd:` echo substrate, and the share of wall time spent outside the
//     substrate, against the same echo process answering the same lines fed in one go;
//  3. bootstrap time for 10,000 resamples over 10,000 items (mean: percentile and BCa;
//     quantile 0.95: the bootstrap distribution alone, since quantile intervals are order
//     statistics now).
//
//   deno run -A bench/run.ts [--items 20000] [--sleep-calls 150]
import { executeProbe } from "../src/run/execute.ts";
import { bcaInterval, bootstrapDistribution, jackknifeAcceleration } from "../src/stats/mod.ts";
import { normalizeScenario } from "../src/scenario/load.ts";
import { openSubstrate } from "../src/substrate/open.ts";
import { canonicalize } from "../src/json/mod.ts";
import { estimateInterval } from "../src/stats/mod.ts";
import { mulberry32 } from "./records.ts";

const argOf = (name: string, d: number) =>
  Deno.args.includes(name) ? Number(Deno.args[Deno.args.indexOf(name) + 1]) : d;
const n = argOf("--items", 20000);
const sleepCalls = argOf("--sleep-calls", 150);
const echo = new URL("../fixtures/substrates/echo.py", import.meta.url).pathname;
const items = Array.from(
  { length: n },
  (_, i) => ({ id: `i${i}`, input: { q: `item ${i}`, k: BigInt(i) } }),
);

function scenario(concurrency: number, latency = false) {
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
      metrics: latency
        ? { ok: { kind: "success" }, lat: { kind: "latency_ms" } }
        : { ok: { kind: "success" } },
      analysis: { pillars: [{ name: "ok.rate", metric: "ok", statistic: "proportion" }] },
    },
    "bench",
    () => "",
  );
}

const median = (xs: number[]) => {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// 1. Overhead per call against a plain pipe driver, both talking to sleep.py (20 ms a call).
const sleepPy = new URL("../fixtures/substrates/sleep.py", import.meta.url).pathname;
async function pipeDriver(calls: number): Promise<number[]> {
  const child = new Deno.Command("python3", { args: [sleepPy], stdin: "piped", stdout: "piped" })
    .spawn();
  const w = child.stdin.getWriter();
  const r = child.stdout.getReader();
  const enc = new TextEncoder(), dec = new TextDecoder();
  let buf = "";
  const out: number[] = [];
  for (let i = 0; i < calls + 5; i++) {
    const t = performance.now();
    await w.write(enc.encode(`{"i":${i}}\n`));
    while (!buf.includes("\n")) {
      const { value } = await r.read();
      buf += dec.decode(value!, { stream: true });
    }
    buf = buf.slice(buf.indexOf("\n") + 1);
    if (i >= 5) out.push(performance.now() - t); // the first five warm the process
  }
  await w.close();
  await child.status;
  return out;
}
const sleepItems = Array.from(
  { length: sleepCalls },
  (_, i) => ({ id: `s${i}`, input: { i: BigInt(i) } }),
);
console.log(
  `| overhead, ${sleepCalls} calls of a 20 ms cmd: substrate | driver median ms | empiric median ms | empiric − driver ms | ratio |`,
);
console.log(`|---|---:|---:|---:|---:|`);
const diffs: number[] = [];
for (let round = 1; round <= 3; round++) {
  const driver = median(await pipeDriver(sleepCalls));
  const sub = openSubstrate(`cmd:python3 ${sleepPy}`);
  const { outcomes } = await executeProbe(scenario(1, true), sleepItems, sub, {
    monotonic: () => performance.now(),
  });
  await sub.close();
  const emp = median(outcomes.map((o) => o.elapsed_ms));
  diffs.push(emp - driver);
  console.log(
    `| round ${round} | ${driver.toFixed(3)} | ${emp.toFixed(3)} | ${(emp - driver).toFixed(3)} | ${
      (emp / driver).toFixed(4)
    } |`,
  );
}
console.log(
  `\nmedian difference over rounds: ${
    median(diffs).toFixed(3)
  } ms (target ≤ 0.1 ms; before issue 13: 0.32–0.37 ms on this machine, 0.57 ms in the issue)\n`,
);

// 2. Baseline: the echo process alone, all lines piped in one go.
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
// items/s measured on this machine before issue 13's changes (same script, main's code). The
// ratio is indicative only: on a shared machine the load moves it by ±40%. A paired run of the old
// and new executor in one process (issue 13's report) gave 1.44× at concurrency 1 and 1.00× at 4.
const BEFORE: Record<number, number> = { 1: 5872, 4: 4828 };
for (const c of [1, 4]) {
  const s = scenario(c);
  const sub = openSubstrate(`cmd:python3 ${echo}`);
  const t = performance.now();
  const { outcomes: out } = await executeProbe(s, items, sub, {
    monotonic: () => performance.now(),
  });
  const ms = performance.now() - t;
  await sub.close();
  if (out.some((o) => !o.ok)) throw new Error("echo failed");
  const share = Math.max(0, 1 - baselineMs / ms);
  console.log(
    `| empiric → cmd: echo.py, concurrency ${c} | ${n} | ${(ms / 1000).toFixed(2)} | ${
      Math.round(n / (ms / 1000))
    } | ${(share * 100).toFixed(0)}% |`,
  );
  console.log(
    `|   items/s against before issue 13 (${BEFORE[c]} items/s) | | | ${
      (n / (ms / 1000) / BEFORE[c]).toFixed(2)
    }× | |`,
  );
}

const rnd = mulberry32(7);
const data = Array.from({ length: 10_000 }, () => rnd() * 40); // symmetric: a skewed mean is refused
console.log(`\n| bootstrap, 10,000 items × 10,000 resamples | seconds |`);
console.log(`|---|---:|`);
for (
  const [label, stat, method] of [
    ["mean, percentile", { kind: "mean" }, "bootstrap_percentile"],
    ["mean, BCa", { kind: "mean" }, "bootstrap_bca"],
    ["quantile 0.95, distribution + BCa", { kind: "quantile", p: 0.95 }, "bca_direct"],
  ] as const
) {
  const t = performance.now();
  if (method === "bca_direct") {
    const dist = bootstrapDistribution(data, stat, 10_000, 1);
    bcaInterval(dist, 0, jackknifeAcceleration(data, stat), 0.95);
  } else {
    const r = estimateInterval(data, stat, method, {
      confidence: 0.95,
      resamples: 10_000,
      seed: 1,
    });
    if (r.refused) throw new Error(r.refused);
  }
  console.log(`| ${label} | ${((performance.now() - t) / 1000).toFixed(3)} |`);
}
