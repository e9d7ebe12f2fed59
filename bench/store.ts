// Store benchmark (issue 18): the directory store (files + SQLite index) against PostgreSQL,
// measured in the same run, through the real `empiric http serve`:
//  1. ingest rate of POST /proofs (distinct signed ~3 KB records, 8 concurrent clients), with
//     one and with two server processes on the same store; baseline: POST /verify of the same
//     bodies on one server (the verify-only ceiling of an ingest);
//  2. GET /proofs latency with 100,000 stored records: the first page, a filtered page, a time
//     window, a deep page by cursor and the same depth by offset (one client, sequential).
// Each figure is printed with p50/p99 per request and the PostgreSQL/directory ratio.
//
//   deno run -A bench/store.ts [--records 100000] [--ingest 1600] [--clients 8] [--requests 200]
//
// Needs PostgreSQL's server binaries (apt-get install -y postgresql). The PostgreSQL server runs
// with its durable defaults (fsync, synchronous_commit on), as the directory store fsyncs every
// record file. Server logs go to /dev/null.
import postgres from "postgres";
import { prettyJson } from "../src/json/mod.ts";
import type { JsonObject, JsonValue } from "../src/json/mod.ts";
import { signRecord } from "../src/record/mod.ts";
import { createdMs, encodeCursor, indexFieldsOf } from "../src/store/keys.ts";
import { openStore } from "../src/store/store.ts";
import { CLI_FLAGS } from "../tests/support/run_cli.ts";
import { postgresBinDir, startPostgres } from "../tests/support/postgres.ts";
import { BENCH_KEY, benchRecord } from "./records.ts";

const arg = (name: string, dflt: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : dflt;
};
const RECORDS = arg("records", 100_000);
const INGEST = arg("ingest", 1600);
const CLIENTS = arg("clients", 8);
const REQUESTS = arg("requests", 200);
const ROOT = new URL("../", import.meta.url).pathname;
const TOKEN = "store-bench-token-0123456789";

if (!(await postgresBinDir())) {
  console.error("bench/store.ts needs PostgreSQL: apt-get install -y postgresql");
  Deno.exit(1);
}

const loadBefore = Deno.loadavg();
const tmp = await Deno.makeTempDir({ prefix: "empiric-bench-store-" });
await Deno.writeFile(`${tmp}/key`, BENCH_KEY);

const SCENARIOS = Array.from({ length: 20 }, (_, i) => `scenario-${i}`);
const SUBSTRATES = [
  "builtin:echo",
  "builtin:calculator",
  "cmd:./svc",
  "http://svc/a",
  "http://svc/b",
];
const OUTCOMES = ["VALIDATED", "REFUTED", "INCONCLUSIVE"];
const T0 = Date.UTC(2026, 0, 1);

/** Record `i`: one of 20 scenarios × 5 substrates × 3 outcomes, one every 30 s from T0. */
async function record(i: number, offset = 0): Promise<string> {
  const r = benchRecord(1, i + 1) as unknown as Record<string, JsonObject>;
  r.identity.created_at = new Date(T0 + (i + offset) * 30_000).toISOString().replace(".000Z", "Z");
  r.reproduction.command = `empiric run ${SCENARIOS[i % 20]} --substrate ${
    SUBSTRATES[Math.floor(i / 20) % 5]
  }`;
  r.verdict.outcome = OUTCOMES[i % 3];
  return prettyJson(await signRecord(r as never, BENCH_KEY) as unknown as JsonValue);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

interface Server {
  url: string;
  stop(): Promise<void>;
}

async function serve(store: string): Promise<Server> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...CLI_FLAGS,
      `${ROOT}cli.ts`,
      "http",
      "serve",
      "--port",
      String(port),
      "--key-file",
      `${tmp}/key`,
      "--token",
      TOKEN,
      "--store",
      store,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    cwd: tmp,
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const r = await fetch(`${url}/health`);
      await r.body?.cancel();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not come up`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

interface Rate {
  rate: number;
  p50: number;
  p99: number;
}

/** `bodies` posted to `path` by CLIENTS concurrent clients spread over `servers`. */
async function load(servers: Server[], path: string, bodies: string[], expect: number[]) {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    const server = servers[c % servers.length];
    while (next < bodies.length) {
      const body = bodies[next++];
      const s = performance.now();
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body,
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - s);
      if (!expect.includes(res.status)) throw new Error(`${path}: status ${res.status}`);
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: bodies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}

async function getLatency(url: string, n: number): Promise<{ p50: number; p99: number }> {
  const lat: number[] = [];
  for (let i = 0; i < n + 10; i++) {
    const s = performance.now();
    const res = await fetch(url);
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
    if (i >= 10) lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  return { p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) };
}

console.error(`building ${INGEST} signed records for the ingest runs …`);
const ingestBodies: string[] = [];
for (let i = 0; i < INGEST; i++) {
  ingestBodies.push(JSON.stringify({ proof_json: await record(i, 10_000_000) }));
}

// PostgreSQL with its durable defaults.
const pg = await startPostgres({
  settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on" },
});
const rows: string[] = [];
const results: Record<string, Rate | { p50: number; p99: number }> = {};
try {
  // 1. Ingest.
  for (const kind of ["directory", "postgres"] as const) {
    for (const n of [1, 2]) {
      const store = kind === "directory" ? `${tmp}/ingest-${n}` : await pg.database();
      const servers = await Promise.all(Array.from({ length: n }, () => serve(store)));
      try {
        const r = await load(servers, "/proofs", ingestBodies, [201]);
        results[`ingest ${kind} ${n}`] = r;
        // Pushed again: every one is already there.
        const again = await load(servers, "/proofs", ingestBodies.slice(0, 400), [200]);
        results[`again ${kind} ${n}`] = again;
      } finally {
        for (const s of servers) await s.stop();
      }
    }
  }
  {
    const server = await serve(`${tmp}/verify-only`);
    try {
      const bodies = ingestBodies;
      results["verify 1"] = await load([server], "/verify", bodies, [200]);
    } finally {
      await server.stop();
    }
  }

  // 2. GET /proofs with RECORDS stored.
  console.error(`building ${RECORDS} signed records for the index …`);
  const dir = `${tmp}/big`;
  await Deno.mkdir(dir);
  const url = await pg.database();
  const s = await openStore(url); // creates the schema
  await s.close();
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  const enc = new TextEncoder();
  try {
    const BATCH = 1000;
    for (let start = 0; start < RECORDS; start += BATCH) {
      const batch: { text: string; f: ReturnType<typeof indexFieldsOf> }[] = [];
      for (let i = start; i < Math.min(RECORDS, start + BATCH); i++) {
        const text = await record(i);
        const f = indexFieldsOf(JSON.parse(text));
        batch.push({ text, f });
        await Deno.writeTextFile(`${dir}/${f!.proof_id}.json`, text);
      }
      await sql.begin(async (tx) => {
        await tx`INSERT INTO empiric_records ${
          tx(batch.map((b) => ({ proof_id: b.f!.proof_id, record: enc.encode(b.text) })))
        }`;
        await tx`INSERT INTO empiric_proof_index ${
          tx(batch.map((b) => ({
            proof_id: b.f!.proof_id,
            scenario: b.f!.scenario,
            substrate: b.f!.substrate,
            outcome: b.f!.outcome,
            metric: b.f!.metric,
            observed_value: b.f!.observed_value,
            created_at: b.f!.created_at,
            created_ms: b.f!.created_ms,
          })))
        }`;
      });
    }
    // The steady state of a live table (autovacuum would have run): visibility map and statistics.
    await sql`VACUUM ANALYZE`;
  } finally {
    await sql.end();
  }
  // The directory store's index is built from the files when the store is first opened.
  const t0 = performance.now();
  const d = await openStore(dir);
  const reindexSeconds = (performance.now() - t0) / 1000;
  // The entry at depth 90% of the store, for the deep-page requests.
  const depth = Math.floor(RECORDS * 0.9);
  const deep = (await d.list({ limit: 1, offset: depth - 1 })).entries[0];
  const cursor = encodeCursor({ created_ms: createdMs(deep.created_at), proof_id: deep.proof_id });
  await d.close();
  const day = (k: number) => new Date(T0 + k * 86_400_000).toISOString();
  const queries: [string, string][] = [
    ["first page (limit 50)", "/proofs?limit=50"],
    ["filtered: scenario + outcome", "/proofs?limit=50&scenario=scenario-7&outcome=REFUTED"],
    [
      "time window (one day)",
      `/proofs?limit=50&created_after=${day(10)}&created_before=${day(11)}`,
    ],
    [`deep page by cursor (${depth})`, `/proofs?limit=50&cursor=${cursor}`],
    [`deep page by offset (${depth})`, `/proofs?limit=50&offset=${depth}`],
    ["one record (GET /proofs/{id})", `/proofs/${deep.proof_id}`],
  ];
  for (const kind of ["directory", "postgres"] as const) {
    const server = await serve(kind === "directory" ? dir : url);
    try {
      for (const [name, path] of queries) {
        results[`get ${kind} ${name}`] = await getLatency(`${server.url}${path}`, REQUESTS);
      }
    } finally {
      await server.stop();
    }
  }

  const f = (x: number, d = 1) => x.toFixed(d);
  rows.push(
    `POST /proofs ingest, ${INGEST} distinct ~3 KB records, ${CLIENTS} concurrent clients:`,
    "| store | servers | records/s | p50 ms | p99 ms | pushed again: records/s |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const n of [1, 2]) {
    for (const kind of ["directory", "postgres"]) {
      const r = results[`ingest ${kind} ${n}`] as Rate;
      const a = results[`again ${kind} ${n}`] as Rate;
      rows.push(
        `| ${kind} | ${n} | ${f(r.rate, 0)} | ${f(r.p50)} | ${f(r.p99)} | ${f(a.rate, 0)} |`,
      );
    }
  }
  const v = results["verify 1"] as Rate;
  rows.push(
    `| (baseline: POST /verify) | 1 | ${f(v.rate, 0)} | ${f(v.p50)} | ${f(v.p99)} | |`,
    "",
    "Ratios: " + [1, 2].map((n) => {
      const p = results[`ingest postgres ${n}`] as Rate;
      const dd = results[`ingest directory ${n}`] as Rate;
      return `${n} server(s): postgres/directory ${f(p.rate / dd.rate, 2)}, postgres/verify ${
        f(p.rate / v.rate, 2)
      }`;
    }).join("; "),
    "",
    `GET /proofs with ${RECORDS} stored records (one client, ${REQUESTS} requests each; a first or offset page also counts its total, a cursor page does not):`,
    "| request | directory p50 | p99 | postgres p50 | p99 | postgres/directory (p50) |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const [name] of queries) {
    const a = results[`get directory ${name}`];
    const b = results[`get postgres ${name}`];
    rows.push(
      `| ${name} | ${f(a.p50)} | ${f(a.p99)} | ${f(b.p50)} | ${f(b.p99)} | ${
        f(b.p50 / a.p50, 2)
      } |`,
    );
  }
  rows.push(
    "",
    `Directory store: index built from ${RECORDS} files on first open in ${f(reindexSeconds)} s.`,
  );
} finally {
  await pg.stop();
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
}
console.log(rows.join("\n"));
console.log(
  `\nload average before: ${loadBefore.map((x) => x.toFixed(2)).join(" ")}, after: ${
    Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
  } (2 shared cores)`,
);
