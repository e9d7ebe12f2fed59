// What each performance trick of src/json/ buys, measured against its plain reference in the
// same run (the figures quoted in the modules' comments come from here):
//   canonicalize (byte buffer, cached quoted keys, cached shape orders) vs canonicalizeReference
//   parseJson with object templates (layout.ts)                      vs parseJson without them
//
//   deno run -A bench/json_tricks.ts [--seconds 2]
import { canonicalize, parseJson, prettyJson } from "../src/json/mod.ts";
import { canonicalizeReference } from "../src/json/reference.ts";
import { useLayouts } from "../src/json/layout.ts";
import { signedBenchRecord } from "./records.ts";

const seconds = Number(Deno.args[Deno.args.indexOf("--seconds") + 1] || 2);

/** Operations per second of f: the median of 5 rounds after a warm-up. */
function rate(f: () => unknown): number {
  const per = (seconds * 1000) / 5;
  const w0 = performance.now();
  while (performance.now() - w0 < per / 2) f();
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < per) {
      for (let i = 0; i < 4; i++) f();
      n += 4;
      t = performance.now();
    }
    rounds.push((n * 1000) / (t - t0));
  }
  return rounds.sort((a, b) => a - b)[2];
}

const fmt = (x: number) => x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1);
console.log("| record | operation | trick (ops/s) | reference (ops/s) | ratio |");
console.log("| --- | --- | ---: | ---: | ---: |");
for (const [label, pillars] of [["6 KB", 9], ["1 MB", 2100]] as const) {
  const value = await signedBenchRecord(pillars);
  const text = prettyJson(value);
  const fast = rate(() => canonicalize(value));
  const plain = rate(() => canonicalizeReference(value));
  console.log(
    `| ${label} | canonicalize | ${fmt(fast)} | ${fmt(plain)} | ${(fast / plain).toFixed(2)}x |`,
  );
  useLayouts(true);
  const withTemplates = rate(() => parseJson(text));
  useLayouts(false);
  const without = rate(() => parseJson(text));
  useLayouts(true);
  console.log(
    `| ${label} | parseJson | ${fmt(withTemplates)} | ${fmt(without)} | ${
      (withTemplates / without).toFixed(2)
    }x |`,
  );
}
