// Start-up of the CLI as CI steps meet it, against an empty Deno script measured in the same
// run (the machine is shared and noisy: ratios, not absolute times). Targets (issue 20):
// `--version` at most 3x, `schema validate` of one record at most 5x, `mcp serve` answering
// `initialize` at most 6x.
//
//   deno run -A bench/startup.ts [--runs N] [--only TEXT]   (--only: the cases whose name has TEXT)
import { CLI_FLAGS } from "../tests/support/run_cli.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const runs = Number(Deno.args[Deno.args.indexOf("--runs") + 1]) || 15;
const only = Deno.args.includes("--only") ? Deno.args[Deno.args.indexOf("--only") + 1] : "";
const empty = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(empty, "");

async function timeOnce(args: string[], stdin?: string): Promise<number> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_FLAGS, ...args],
    cwd: ROOT,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    // Wait for the answer to the first message, then close.
    const reader = child.stdout.getReader();
    let seen = "";
    while (!seen.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    const elapsed = performance.now() - t0;
    await w.close();
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.status;
    return elapsed;
  }
  await child.output();
  return performance.now() - t0;
}

/** Median of `runs` timings, interleaved with the baseline so drift hits both. */
async function measure(
  args: string[],
  stdin?: string,
): Promise<{ median: number; baseline: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    b.push(await timeOnce([empty]));
    a.push(await timeOnce(args, stdin));
  }
  const med = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { median: med(a), baseline: med(b) };
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "b", version: "1" },
  },
}) + "\n";

const cases: { name: string; args: string[]; stdin?: string; target?: number }[] = [
  { name: "--version", args: ["cli.ts", "--version"], target: 3 },
  {
    name: "schema validate (one record)",
    args: ["cli.ts", "schema", "validate", "fixtures/records/valid.json"],
    target: 5,
  },
  { name: "mcp serve → initialize", args: ["cli.ts", "mcp", "serve"], stdin: INIT, target: 6 },
  // Not empiric: the MCP SDK alone answering `initialize`, the floor under the row above.
  { name: "MCP SDK alone → initialize", args: ["bench/mcp_sdk_floor.ts"], stdin: INIT },
];

console.log(`start-up, median of ${runs} runs each, against an empty Deno script in the same run`);
for (const c of cases) {
  if (!c.name.includes(only)) continue;
  const { median, baseline } = await measure(c.args, c.stdin);
  const ratio = median / baseline;
  console.log(
    `${c.name.padEnd(30)} ${median.toFixed(0).padStart(5)} ms  empty ${
      baseline.toFixed(0).padStart(4)
    } ms  ratio ${ratio.toFixed(2).padStart(5)}  ${
      c.target === undefined
        ? "(floor, no target)"
        : `(target ≤ ${c.target}) ${ratio <= c.target ? "ok" : "OVER"}`
    }`,
  );
}
await Deno.remove(empty);
