// Wire-format benchmark: canonicalize, typed parse and full verify of a ~6 KB and a ~1 MB
// record, each against a baseline measured in the same run:
//   canonicalize  vs JSON.stringify of the same value (ints as plain numbers)
//   parseJson     vs JSON.parse of the same text
//   verifyRecord  vs Python's standard-library path (json.loads + json.dumps + hmac), and in MB/s
//
//   deno run -A bench/wire.ts [--seconds 2]
import { canonicalize, parseJson, prettyJson, toPlainJson } from "../src/json/mod.ts";
import { verifyRecord } from "../src/record/mod.ts";
import { BENCH_KEY, signedBenchRecord } from "./records.ts";

const seconds = Number(Deno.args[Deno.args.indexOf("--seconds") + 1] || 2);

/** Run f repeatedly for ~`seconds`; return operations per second (median of 5 rounds). */
export async function rate(f: () => unknown | Promise<unknown>, secs = seconds): Promise<number> {
  const rounds: number[] = [];
  const per = (secs * 1000) / 5;
  const w0 = performance.now();
  while (performance.now() - w0 < per / 2) await f(); // warm-up
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < per) {
      for (let i = 0; i < 8; i++) await f();
      n += 8;
      t = performance.now();
    }
    rounds.push((n * 1000) / (t - t0));
  }
  rounds.sort((a, b) => a - b);
  return rounds[2];
}

function syncRate(f: () => unknown, secs = seconds): number {
  const rounds: number[] = [];
  const per = (secs * 1000) / 5;
  const w0 = performance.now();
  while (performance.now() - w0 < per / 2) f();
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < per) {
      for (let i = 0; i < 8; i++) f();
      n += 8;
      t = performance.now();
    }
    rounds.push((n * 1000) / (t - t0));
  }
  rounds.sort((a, b) => a - b);
  return rounds[2];
}

if (import.meta.main) {
  const fmt = (x: number) => x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1);
  const rows: string[][] = [];

  for (const [label, pillars] of [["6 KB", 9], ["1 MB", 2100]] as const) {
    const value = await signedBenchRecord(pillars);
    const text = prettyJson(value);
    const bytes = new TextEncoder().encode(text).length;
    const plain = toPlainJson(value);
    const plainText = JSON.stringify(plain);

    const canon = syncRate(() => canonicalize(value));
    const stringify = syncRate(() => JSON.stringify(plain));
    rows.push([
      label,
      "canonicalize",
      fmt(canon),
      "JSON.stringify",
      fmt(stringify),
      (canon / stringify).toFixed(2) + "x",
    ]);

    const parse = syncRate(() => parseJson(text));
    const jparse = syncRate(() => JSON.parse(plainText.length > 0 ? text : plainText));
    rows.push([
      label,
      "typed parse",
      fmt(parse),
      "JSON.parse",
      fmt(jparse),
      (parse / jparse).toFixed(2) + "x",
    ]);

    const r = await verifyRecord(text, { key: BENCH_KEY });
    if (!r.verified) throw new Error("benchmark record must verify: " + JSON.stringify(r.problems));
    const verify = await rate(() => verifyRecord(text, { key: BENCH_KEY }));
    const tmp = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(tmp, text);
    const py = new Deno.Command("python3", {
      args: [
        new URL("verify_python.py", import.meta.url).pathname,
        tmp,
        new TextDecoder().decode(BENCH_KEY),
        String(seconds),
      ],
    }).outputSync();
    await Deno.remove(tmp);
    const pyRate = py.success ? JSON.parse(new TextDecoder().decode(py.stdout)).records_per_s : NaN;
    rows.push([
      label,
      "verify (text→verdict)",
      `${fmt(verify)} (${fmt((verify * bytes) / 1e6)} MB/s)`,
      "Python stdlib verify",
      fmt(pyRate),
      (verify / pyRate).toFixed(2) + "x",
    ]);
    console.error(`${label}: record ${bytes} bytes, canonical ${canonicalize(value).length} bytes`);
  }

  const header = ["record", "operation", "ops/s", "baseline", "baseline ops/s", "ratio"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => "| " + r.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const r of rows) console.log(line(r));
}
