// Ports benchmark (issue 7): verify a ~6 KB and a ~1 MB record in TypeScript (Deno, in
// process), Rust, Python and Node (the npm build), in one run, as records/s and MB/s, next to
// the machine's raw HMAC-SHA256 throughput from `openssl speed`.
//
//   deno run -A bench/ports.ts [--seconds 3]
// Needs: cargo (builds the Rust CLI), python3, node, openssl; runs `deno task build:npm`.
import { prettyJson } from "../src/json/mod.ts";
import { verifyRecord } from "../src/record/mod.ts";
import { BENCH_KEY, signedBenchRecord } from "./records.ts";
import { rate } from "./wire.ts";

const seconds = Number(Deno.args[Deno.args.indexOf("--seconds") + 1] || 3);
const root = new URL("../", import.meta.url).pathname;
const dec = new TextDecoder();

async function sh(cmd: string, args: string[], env?: Record<string, string>): Promise<string> {
  const o = await new Deno.Command(cmd, { args, cwd: root, env, stderr: "inherit" }).output();
  if (!o.success) throw new Error(`${cmd} ${args.join(" ")} failed`);
  return dec.decode(o.stdout);
}

await sh("cargo", [
  "build",
  "-q",
  "--release",
  "--manifest-path",
  "ports/rust/Cargo.toml",
  "--bin",
  "empiric-proof",
]);
await sh(Deno.execPath(), ["task", "build:npm"]);
const dir = await Deno.makeTempDir({ prefix: "empiric-bench-" });
const keyFile = `${dir}/key`;
await Deno.writeFile(keyFile, BENCH_KEY);

const NODE_BENCH = `
import { verifyRecord } from ${JSON.stringify(`${root}dist/npm/index.mjs`)};
import { readFileSync } from "node:fs";
const [file, key, secs] = process.argv.slice(2);
const text = readFileSync(file, "utf8"); const k = readFileSync(key);
if (!(await verifyRecord(text, { key: k })).verified) throw new Error("must verify");
let n = 0; const t0 = performance.now();
while (performance.now() - t0 < secs * 1000) { await verifyRecord(text, { key: k }); n++; }
const s = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ records_per_s: n / s, mb_per_s: n * Buffer.byteLength(text) / s / 1e6 }));
`;
await Deno.writeTextFile(`${dir}/node_bench.mjs`, NODE_BENCH);

const hmacLine = (bytes: number) =>
  sh("openssl", [
    "speed",
    "-mr",
    "-seconds",
    String(Math.max(1, Math.round(seconds / 2))),
    "-bytes",
    String(bytes),
    "-hmac",
    "sha256",
  ])
    .then((o) => Number(o.match(/\+F:\d+:hmac\(sha256\):([\d.]+)/)![1]) / 1e6);

console.log("| record | port | records/s | MB/s | × slower than raw HMAC-SHA256 |");
console.log("|---|---|---:|---:|---:|");
for (const [label, pillars] of [["6 KB", 9], ["1 MB", 2100]] as const) {
  const text = prettyJson(await signedBenchRecord(pillars));
  const bytes = new TextEncoder().encode(text).length;
  const file = `${dir}/${pillars}.json`;
  await Deno.writeTextFile(file, text);
  const raw = await hmacLine(bytes);
  const rows: [string, number][] = [];
  const ts = await rate(() => verifyRecord(text, { key: BENCH_KEY }), seconds);
  rows.push(["TypeScript (Deno)", ts]);
  const parse = (s: string) => JSON.parse(s.trim().split("\n").at(-1)!).records_per_s as number;
  rows.push([
    "Rust",
    parse(
      await sh(`${root}ports/rust/target/release/empiric-proof`, [
        "bench",
        file,
        "--key-file",
        keyFile,
        "--seconds",
        String(seconds),
      ]),
    ),
  ]);
  rows.push([
    "Python",
    parse(
      await sh("python3", [
        "-m",
        "empiric_proof",
        "bench",
        file,
        "--key-file",
        keyFile,
        "--seconds",
        String(seconds),
      ], { PYTHONPATH: `${root}ports/python/src` }),
    ),
  ]);
  rows.push([
    "Node (npm build)",
    parse(await sh("node", [`${dir}/node_bench.mjs`, file, keyFile, String(seconds)])),
  ]);
  console.log(
    `| ${label} (${bytes} B) | raw HMAC-SHA256 (openssl) | ${Math.round((raw * 1e6) / bytes)} | ${
      raw.toFixed(0)
    } | 1.0 |`,
  );
  for (const [port, r] of rows) {
    const mbs = (r * bytes) / 1e6;
    console.log(
      `| ${label} | ${port} | ${r >= 100 ? Math.round(r) : r.toFixed(1)} | ${mbs.toFixed(1)} | ${
        (raw / mbs).toFixed(1)
      } |`,
    );
  }
}
