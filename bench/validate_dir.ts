// `empiric schema validate --recursive` over a folder of 1,000 and of 10,000 signed ~6 KB
// records: wall time, records/s, and peak memory (from /usr/bin/time), to show that the walk
// streams in bounded memory. Baseline in the same run: `cat` of every file (the I/O floor).
//
//   deno run -A bench/validate_dir.ts
import { prettyJson } from "../src/json/mod.ts";
import { signRecord } from "../src/record/mod.ts";
import { BENCH_KEY, benchRecord } from "./records.ts";
import { CLI_FLAGS } from "../tests/support/run_cli.ts";

const root = new URL("../", import.meta.url).pathname;
const dir = await Deno.makeTempDir({ prefix: "empiric-validate-" });

async function fill(n: number, from: number): Promise<void> {
  for (let i = from; i < n; i++) {
    const r = benchRecord(9, i + 1);
    r.identity.created_at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(
      ".000Z",
      "Z",
    );
    const sub = `${dir}/${String(Math.floor(i / 1000)).padStart(2, "0")}`;
    if (i % 1000 === 0) await Deno.mkdir(sub, { recursive: true });
    await Deno.writeTextFile(
      `${sub}/${i}.json`,
      prettyJson(await signRecord(r, BENCH_KEY) as never),
    );
  }
}

async function timed(args: string[]): Promise<{ wall: number; rssMiB: number; out: string }> {
  const t0 = performance.now();
  const o = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%M", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wall = (performance.now() - t0) / 1000;
  const err = new TextDecoder().decode(o.stderr).trim().split("\n");
  return { wall, rssMiB: Number(err.at(-1)) / 1024, out: new TextDecoder().decode(o.stdout) };
}

console.log("| records | command | wall s | records/s | peak RSS MiB |");
console.log("|---:|---|---:|---:|---:|");
let have = 0;
for (const n of [1000, 10000]) {
  await fill(n, have);
  have = n;
  const cat = await timed(["sh", "-c", `find ${dir} -name '*.json' -exec cat {} + > /dev/null`]);
  console.log(
    `| ${n} | cat every file (I/O floor) | ${cat.wall.toFixed(2)} | ${Math.round(n / cat.wall)} | ${
      cat.rssMiB.toFixed(0)
    } |`,
  );
  const v = await timed([
    Deno.execPath(),
    "run",
    ...CLI_FLAGS,
    `${root}cli.ts`,
    "schema",
    "validate",
    dir,
    "--recursive",
    "--key",
    new TextDecoder().decode(BENCH_KEY),
  ]);
  const summary = v.out.trim().split("\n").at(-1);
  if (summary !== `${n} files: ${n} OK, 0 FAIL`) throw new Error(`unexpected: ${summary}`);
  console.log(
    `| ${n} | empiric schema validate --recursive --key | ${v.wall.toFixed(2)} | ${
      Math.round(n / v.wall)
    } | ${v.rssMiB.toFixed(0)} |`,
  );
}
await Deno.remove(dir, { recursive: true });
