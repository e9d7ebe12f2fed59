import { openCmdSubstrate } from "../src/substrate/cmd.ts";
import { executeProbe } from "../src/run/execute.ts";
import { normalizeScenario } from "../src/scenario/load.ts";
const sleepPy = new URL("../fixtures/substrates/sleep.py", import.meta.url).pathname;
const N = 150;
const items = Array.from({ length: N }, (_, i) => ({ id: `i${i}`, input: { i: BigInt(i) } }));
const sc = normalizeScenario(
  {
    name: "b",
    claim: {
      statement: "s",
      operationalization: "o",
      threshold: { metric: "ok.rate", comparator: ">=", value: 0.5, units: "" },
      h0: "h",
      h1: "h",
    },
    datasets: [{ name: "d", path: "x.jsonl", kind: "corpus" }],
    probe: { send: "/input", timeout_ms: 10000n },
    metrics: { ok: { kind: "success" } },
    analysis: { pillars: [{ name: "ok.rate", metric: "ok", statistic: "proportion" }] },
  } as never,
  "b",
  () => "",
);
const s = openCmdSubstrate(`python3 ${sleepPy}`);
await executeProbe(sc, items, s, { monotonic: () => performance.now() });
await s.close();
// deno-lint-ignore no-explicit-any
const log = (globalThis as any).__log as number[][];
const med = (i: number) => log.map((x) => x[i]).sort((a, b) => a - b)[log.length >> 1];
console.log(
  ["callOnce setup", "listener+encode", "write()", "read wait", "after read"].map((n, i) =>
    `${n} ${med(i).toFixed(4)}`
  ).join(" | "),
);
