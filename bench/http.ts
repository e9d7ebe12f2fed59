// HTTP API benchmark (issue 4), all on loopback, bounded runs:
//  1. the in-process verify rate of a ~6 KB record (verifyProofImpl in a loop, one core);
//  2. POST /verify of that record under wrk, against a bare Deno.serve handler that only reads
//     the body (bench/http_bare.ts, a separate process), with --workers 1 and 2;
//  3. GET /health against the bare handler's GET.
// Prints a table with the ratios the issue sets targets for.
//
//   deno run -A bench/http.ts [--seconds 10] [--connections 50] [--threads 2]
//
// Needs wrk (apt-get install -y wrk). Server logs go to /dev/null.
import { prettyJson } from "../src/json/mod.ts";
import { verifyProofImpl } from "../src/ops/verify_proof.ts";
import { BENCH_KEY, signedBenchRecord } from "./records.ts";

const arg = (name: string, dflt: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 10);
const CONNECTIONS = arg("connections", 50);
const THREADS = arg("threads", 2);
const ROOT = new URL("../", import.meta.url).pathname;
const FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run",
  "--allow-sys",
];

const wrkOk = await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then(() => true, () => false);
if (!wrkOk) {
  console.error("bench/http.ts needs wrk: apt-get install -y wrk");
  Deno.exit(1);
}

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
const until = t0 + Math.min(SECONDS, 5) * 1000;
while (performance.now() < until) {
  for (let i = 0; i < 100; i++) await verifyProofImpl(recordText, { key: BENCH_KEY });
  n += 100;
}
const inProcess = n / ((performance.now() - t0) / 1000);
const verifyUs = 1e6 / inProcess;

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
  stop(): Promise<void>;
}

async function startEmpiric(workers: number): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...FLAGS,
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
    stdin: "null",
    stdout: "null",
    stderr: "null",
    cwd: tmp,
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}/health`);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

async function startBare(): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", `${ROOT}bench/http_bare.ts`, String(port)],
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitUp(url);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

interface WrkResult {
  rps: number;
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
  return await wrk(`${server.url}${path}`, post);
}

const results: Record<string, WrkResult> = {};
const bare = await startBare();
try {
  results["bare POST (read body)"] = await measure(bare, "/", true);
  results["bare GET"] = await measure(bare, "/", false);
} finally {
  await bare.stop();
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
  `\nrecord ${recordText.length} bytes (request body ${requestBody.length}); wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s; ${navigator.hardwareConcurrency} CPUs\n`,
);
console.log(`| measure | req/s | p50 ms | p99 ms | errors | requests |`);
console.log(`|---|---:|---:|---:|---:|---:|`);
console.log(
  `| in-process verifyProofImpl, one core | ${f(inProcess)} | ${
    f(verifyUs / 1000, 3)
  } | – | – | ${n} |`,
);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `| ${name} | ${f(r.rps)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${r.errors} | ${r.requests} |`,
  );
}
const v1 = results["POST /verify, --workers 1"], v2 = results["POST /verify, --workers 2"];
const h1 = results["GET /health, --workers 1"], h2 = results["GET /health, --workers 2"];
const bareGet = results["bare GET"], barePost = results["bare POST (read body)"];
const ok = (b: boolean) => b ? "yes" : "NO";
console.log(`\n| ratio | value | target | met |`);
console.log(`|---|---:|---:|---|`);
console.log(
  `| /verify (1 worker) ÷ in-process verify | ${f(v1.rps / inProcess, 2)} | ≥ 0.8 | ${
    ok(v1.rps / inProcess >= 0.8)
  } |`,
);
console.log(
  `| /verify (2 workers) ÷ in-process verify | ${f(v2.rps / inProcess, 2)} | ≥ 0.8 | ${
    ok(v2.rps / inProcess >= 0.8)
  } |`,
);
console.log(`| /verify p99, 1 worker (ms) | ${f(v1.p99, 2)} | < 10 | ${ok(v1.p99 < 10)} |`);
console.log(`| /verify p99, 2 workers (ms) | ${f(v2.p99, 2)} | < 10 | ${ok(v2.p99 < 10)} |`);
console.log(
  `| errors (all empiric runs) | ${v1.errors + v2.errors + h1.errors + h2.errors} | 0 | ${
    ok(v1.errors + v2.errors + h1.errors + h2.errors === 0)
  } |`,
);
console.log(
  `| /health (1 worker) ÷ bare GET | ${f(h1.rps / bareGet.rps, 2)} | ≥ 0.7 | ${
    ok(h1.rps / bareGet.rps >= 0.7)
  } |`,
);
console.log(`| /verify ÷ bare POST (1 worker) | ${f(v1.rps / barePost.rps, 2)} | – | – |`);
console.log(`| /verify scaling, 2 workers ÷ 1 | ${f(v2.rps / v1.rps, 2)} | – | – |`);
console.log(`| /health scaling, 2 workers ÷ 1 | ${f(h2.rps / h1.rps, 2)} | – | – |`);
console.log(
  `| HTTP cost per /verify request beyond verification (µs, 1 worker) | ${
    f(1e6 / v1.rps - verifyUs)
  } | – | – |`,
);
await Deno.remove(tmp, { recursive: true });
