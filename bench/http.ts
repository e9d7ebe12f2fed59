// HTTP API benchmark (issue 4), all on loopback, bounded runs:
//  1. the in-process verify rate of a ~6 KB record (verifyProofImpl in a loop, one core);
//  2. POST /verify of that record under wrk, against a bare Deno.serve handler that only reads
//     the body and a minimal one that only verifies (bench/http_bare.ts, separate processes),
//     with --workers 1 and 2;
//  3. GET /health against the bare handler's GET.
// Prints a table with the ratios the issue sets targets for. Besides wall-clock rates it reports
// requests per CPU-second of the server processes (from /proc), which stays meaningful when other
// processes share the machine: "/verify per CPU-second ÷ in-process verifies per CPU-second" is
// the throughput ratio a server with one dedicated core would have.
//
//   deno run -A bench/http.ts [--seconds 10] [--connections 50] [--threads 2]
//
// Needs wrk (apt-get install -y wrk). Server logs go to /dev/null.
import process from "node:process";
import { prettyJson } from "../src/json/mod.ts";
import { verifyProofImpl } from "../src/ops/verify_proof.ts";
import { BENCH_KEY, signedBenchRecord } from "./records.ts";
import { CLI_FLAGS } from "../tests/support/run_cli.ts";

const arg = (name: string, dflt: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 10);
const CONNECTIONS = arg("connections", 50);
const THREADS = arg("threads", 2);
const ROOT = new URL("../", import.meta.url).pathname;

const wrkOk = await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then(() => true, () => false);
if (!wrkOk) {
  console.error("bench/http.ts needs wrk: apt-get install -y wrk");
  Deno.exit(1);
}

const loadBefore = Deno.loadavg();
const tmp = await Deno.makeTempDir({ prefix: "empiric-bench-http-" });
const recordText = prettyJson(await signedBenchRecord(9));
const requestBody = JSON.stringify({ proof_json: recordText });
await Deno.writeTextFile(`${tmp}/body.json`, requestBody);
await Deno.writeFile(`${tmp}/key`, BENCH_KEY);
await Deno.writeTextFile(
  `${tmp}/post.lua`,
  `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n` +
    `local f = io.open("${tmp}/body.json", "rb")\nwrk.body = f:read("*a")\nf:close()\n`,
);

// 1. In-process verify rate (one core, nothing else running).
const check = await verifyProofImpl(recordText, { key: BENCH_KEY });
if (!check.verified) throw new Error(`the benchmark record does not verify: ${check.reason}`);
for (let i = 0; i < 2000; i++) await verifyProofImpl(recordText, { key: BENCH_KEY });
let n = 0;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const until = t0 + Math.min(SECONDS, 5) * 1000;
while (performance.now() < until) {
  for (let i = 0; i < 100; i++) await verifyProofImpl(recordText, { key: BENCH_KEY });
  n += 100;
}
const inProcess = n / ((performance.now() - t0) / 1000);
const cpu1 = process.cpuUsage(cpu0);
const inProcessPerCpu = n / ((cpu1.user + cpu1.system) / 1e6);
const verifyUs = 1e6 / inProcessPerCpu;

const CLK_TCK = Number(
  new TextDecoder().decode(
    (await new Deno.Command("getconf", { args: ["CLK_TCK"] }).output()).stdout,
  )
    .trim(),
) || 100;

/** CPU seconds used so far by a process and all its descendants (Linux /proc). */
function cpuSeconds(root: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const text = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
      // fields after the command: state(0) ppid(1) ... utime(11) stime(12)
      stats.set(Number(e.name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone */ }
  }
  let ticks = 0;
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    ticks += stats.get(pid)?.ticks ?? 0;
    for (const [child, s] of stats) if (s.ppid === pid) todo.push(child);
  }
  return ticks / CLK_TCK;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitUp(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(url);
      await r.body?.cancel();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not come up`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Spawn `deno run <args>` (a server on `port`) and wait until `upPath` answers. */
async function spawnServer(
  args: string[],
  port: number,
  upPath: string,
  stderr: "null" | "inherit",
): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...args],
    stdin: "null",
    stdout: "null",
    stderr,
    cwd: tmp,
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}${upPath}`);
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

function startEmpiric(workers: number): Promise<Server> {
  const port = freePort();
  return spawnServer(
    [
      ...CLI_FLAGS,
      `${ROOT}cli.ts`,
      "http",
      "serve",
      "--port",
      String(port),
      "--workers",
      String(workers),
      "--key-file",
      `${tmp}/key`,
      "--store",
      `${tmp}/store`,
      "--max-body-bytes",
      String(4 * 1024 * 1024),
    ],
    port,
    "/health",
    "null",
  );
}

/** The baseline handler of bench/http_bare.ts; with `verify`, the minimal verify server. */
function startBare(verify = false): Promise<Server> {
  const port = freePort();
  return spawnServer(
    [
      "--allow-net",
      ...(verify ? ["--allow-read"] : []),
      `${ROOT}bench/http_bare.ts`,
      String(port),
      ...(verify ? [`${tmp}/key`] : []),
    ],
    port,
    "",
    "inherit",
  );
}

interface WrkResult {
  rps: number;
  /** Requests per CPU-second of the server (all its processes). */
  perCpu: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
}

async function wrk(url: string, post: boolean, seconds = SECONDS): Promise<WrkResult> {
  const args = [`-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency"];
  if (post) args.push("-s", `${tmp}/post.lua`);
  const out = await new Deno.Command("wrk", { args: [...args, url], stdout: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    perCpu: NaN,
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(text)?.[1] ?? ""),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(text)?.[1] ?? ""),
    errors: num(/Non-2xx or 3xx responses: (\d+)/) +
      (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
    requests: num(/(\d+) requests in/),
  };
}

async function measure(server: Server, path: string, post: boolean): Promise<WrkResult> {
  if (post) {
    const r = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: requestBody,
    });
    const text = await r.text();
    if (path === "/verify" && (r.status !== 200 || !JSON.parse(text).verified)) {
      throw new Error(`POST /verify does not verify the record: ${r.status} ${text.slice(0, 200)}`);
    }
  }
  await wrk(`${server.url}${path}`, post, 2); // warm-up
  const before = cpuSeconds(server.pid);
  const r = await wrk(`${server.url}${path}`, post);
  r.perCpu = r.requests / (cpuSeconds(server.pid) - before);
  return r;
}

const results: Record<string, WrkResult> = {};
const bare = await startBare();
try {
  results["bare POST (read body)"] = await measure(bare, "/", true);
  results["bare GET"] = await measure(bare, "/", false);
} finally {
  await bare.stop();
}
const minimal = await startBare(true);
try {
  results["minimal verify handler (no framework)"] = await measure(minimal, "/verify", true);
} finally {
  await minimal.stop();
}
for (const workers of [1, 2]) {
  const server = await startEmpiric(workers);
  try {
    results[`POST /verify, --workers ${workers}`] = await measure(server, "/verify", true);
    results[`GET /health, --workers ${workers}`] = await measure(server, "/health", false);
  } finally {
    await server.stop();
  }
}

const f = (x: number, d = 0) => x.toFixed(d);
console.log(
  `\nrecord ${recordText.length} bytes (request body ${requestBody.length}); wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s; ${navigator.hardwareConcurrency} CPUs; load average (1, 5, 15 min) before: ${
    loadBefore.map((x) => x.toFixed(2)).join(" ")
  }, after: ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}\n`,
);
console.log(`| measure | req/s | req per CPU-s | p50 ms | p99 ms | errors | requests |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|`);
console.log(
  `| in-process verifyProofImpl, one core | ${f(inProcess)} | ${f(inProcessPerCpu)} | ${
    f(verifyUs / 1000, 3)
  } | – | – | ${n} |`,
);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `| ${name} | ${f(r.rps)} | ${f(r.perCpu)} | ${f(r.p50, 2)} | ${
      f(r.p99, 2)
    } | ${r.errors} | ${r.requests} |`,
  );
}
const v1 = results["POST /verify, --workers 1"], v2 = results["POST /verify, --workers 2"];
const h1 = results["GET /health, --workers 1"], h2 = results["GET /health, --workers 2"];
const bareGet = results["bare GET"], barePost = results["bare POST (read body)"];
const least = results["minimal verify handler (no framework)"];
const ok = (b: boolean) => b ? "yes" : "NO";
const row = (name: string, value: number, target: string, met: boolean | undefined, d = 2) =>
  console.log(`| ${name} | ${f(value, d)} | ${target} | ${met === undefined ? "–" : ok(met)} |`);
console.log(`\n| ratio | value | target | met |`);
console.log(`|---|---:|---:|---|`);
row(
  "/verify req/s (1 worker) ÷ in-process verify/s",
  v1.rps / inProcess,
  "≥ 0.8",
  v1.rps / inProcess >= 0.8,
);
row(
  "/verify req/s (2 workers) ÷ in-process verify/s",
  v2.rps / inProcess,
  "≥ 0.8",
  v2.rps / inProcess >= 0.8,
);
row(
  "/verify per server CPU-s ÷ in-process verify per CPU-s (1 worker)",
  v1.perCpu / inProcessPerCpu,
  "≥ 0.8",
  v1.perCpu / inProcessPerCpu >= 0.8,
);
row(
  "ceiling: minimal verify handler req/s ÷ in-process verify/s",
  least.rps / inProcess,
  "–",
  undefined,
);
row("/verify req/s (1 worker) ÷ minimal verify handler req/s", v1.rps / least.rps, "–", undefined);
row("/verify p99, 1 worker (ms)", v1.p99, "< 10", v1.p99 < 10);
row("/verify p99, 2 workers (ms)", v2.p99, "< 10", v2.p99 < 10);
const errors = v1.errors + v2.errors + h1.errors + h2.errors;
row("errors (all empiric runs)", errors, "0", errors === 0, 0);
row(
  "/health req/s (1 worker) ÷ bare GET req/s",
  h1.rps / bareGet.rps,
  "≥ 0.7",
  h1.rps / bareGet.rps >= 0.7,
);
row(
  "/health per CPU-s (1 worker) ÷ bare GET per CPU-s",
  h1.perCpu / bareGet.perCpu,
  "≥ 0.7",
  h1.perCpu / bareGet.perCpu >= 0.7,
);
row("/verify req/s ÷ bare POST req/s (1 worker)", v1.rps / barePost.rps, "–", undefined);
row("/verify scaling, 2 workers ÷ 1 (req/s)", v2.rps / v1.rps, "–", undefined);
row("/health scaling, 2 workers ÷ 1 (req/s)", h2.rps / h1.rps, "–", undefined);
row(
  "server CPU µs per /verify beyond verification (1 worker)",
  1e6 / v1.perCpu - verifyUs,
  "–",
  undefined,
  0,
);
row("server CPU µs per bare POST (body read)", 1e6 / barePost.perCpu, "–", undefined, 0);
row(
  "server CPU µs per minimal verify beyond verification",
  1e6 / least.perCpu - verifyUs,
  "–",
  undefined,
  0,
);
await Deno.remove(tmp, { recursive: true });
