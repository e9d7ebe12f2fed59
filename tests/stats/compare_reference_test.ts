// Comparative statistics against scipy and statsmodels (tests/support/stats_reference.py): the
// exact McNemar p-value and the two Clopper-Pearson parts of the paired-proportion interval
// (1e-10), the combined order-statistic bounds from scipy's quantile_test (exact), and the
// two-sample percentile bootstraps, paired and not, against scipy.stats.bootstrap within
// 5·√2 Monte Carlo standard errors, and the expanded percentile's tail shares from scipy's t
// and normal (1e-12).
import assert from "node:assert/strict";
import {
  combineBounds,
  compareInterval,
  mcnemarExactP,
  pairedProportionInterval,
  seededRandom,
} from "../../src/stats/mod.ts";
import { expandedTailShare } from "../../src/stats/expanded_percentile.ts";
import { pythonModule } from "../support/peers.ts";

const haveScipy = await pythonModule("scipy");
const haveStatsmodels = await pythonModule("statsmodels");
const script = new URL("../support/stats_reference.py", import.meta.url).pathname;

/** Results in request order, from one Python process per call. */
async function reference(requests: Record<string, unknown>[]): Promise<unknown[]> {
  const child = new Deno.Command("python3", {
    args: ["-u", script],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n") + "\n"));
  await w.close();
  const out = await child.output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, requests.length);
  return lines.map((l, i) => {
    assert.ok(!("error" in l), `${JSON.stringify(requests[i]).slice(0, 200)}: ${l.error}`);
    return l.result;
  });
}

const u = seededRandom(20261123);
const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());

Deno.test({
  name: "mcnemar: exact p-value and both Clopper-Pearson parts against statsmodels",
  ignore: !haveStatsmodels,
}, async () => {
  const cases = [[3, 1, 200], [0, 0, 50], [12, 4, 300], [40, 37, 1000], [0, 9, 30], [25, 0, 25]];
  const beta = 0.025;
  const reqs = cases.flatMap(([b, c, n]) => [
    { op: "mcnemar_p", b, c },
    ...(b + c > 0 ? [{ op: "cp", k: b, n: b + c, confidence: 1 - beta }] : []),
    { op: "cp", k: b + c, n, confidence: 1 - beta },
  ]);
  const ref = await reference(reqs);
  let i = 0;
  for (const [b, c, n] of cases) {
    const r = pairedProportionInterval({ n, candidateOnly: b, baselineOnly: c }, 0.95);
    const p = ref[i++] as number;
    assert.ok(Math.abs(mcnemarExactP(b, c) - p) < 1e-12, `p(${b}, ${c}): ${p}`);
    if (b + c > 0) {
      const [lo, hi] = ref[i++] as number[];
      assert.ok(Math.abs(r.share.low - lo) < 1e-10 && Math.abs(r.share.high - hi) < 1e-10);
    }
    const [lo, hi] = ref[i++] as number[];
    assert.ok(
      Math.abs(r.discordance.low - lo) < 1e-10 && Math.abs(r.discordance.high - hi) < 1e-10,
    );
  }
});

Deno.test({
  name: "combined order statistics: each side is scipy's quantile_test interval at one-sided β/2",
  ignore: !haveScipy,
}, async () => {
  const b = Array.from({ length: 300 }, () => Math.exp(0.5 * normal()));
  const c = b.map((x) => 1.1 * x * Math.exp(0.2 * normal()));
  for (const p of [0.5, 0.95, 0.99]) {
    const [rc, rb] = await reference([
      { op: "quantile_ci", x: c, p, confidence: 0.975 },
      { op: "quantile_ci", x: b, p, confidence: 0.975 },
    ]) as [number | null, number | null][];
    const s = p === 0.5 ? { kind: "median" as const } : { kind: "quantile" as const, p };
    for (const kind of ["ratio", "difference"] as const) {
      const r = compareInterval(c, b, s, kind, "order_statistic", {
        confidence: 0.95,
        paired: true,
        resamples: 1,
        seed: 0,
      });
      const side = (x: [number | null, number | null]) => ({
        low: x[0] ?? -Infinity,
        high: x[1] ?? Infinity,
      });
      const want = combineBounds(kind, side(rc), side(rb));
      assert.deepEqual([r.low, r.high], [want.low, want.high], `p=${p} ${kind}`);
    }
  }
});

Deno.test({
  name: "two-sample percentile bootstraps agree with scipy.stats.bootstrap within 5·√2 MC SE",
  ignore: !haveScipy,
}, async () => {
  const n = 200;
  const b = Array.from({ length: n }, () => 10 * Math.exp(0.3 * normal()));
  const c = b.map((x) => 1.05 * x * Math.exp(0.1 * normal()));
  const other = Array.from({ length: 150 }, () => 11 + normal());
  const cases = [
    { statistic: "median", kind: "ratio", paired: true, c, b },
    { statistic: "mean", kind: "ratio", paired: true, c, b },
    { statistic: "mean", kind: "difference", paired: false, c: other, b: b.slice(0, 180) },
    { statistic: "quantile", p: 0.3, kind: "difference", paired: false, c, b: other },
  ] as const;
  const B = 20000;
  const ref = await reference(cases.map((x) => ({
    op: "bootstrap2",
    statistic: x.statistic,
    ...("p" in x ? { p: x.p } : {}),
    kind: x.kind,
    paired: x.paired,
    candidate: x.c,
    baseline: x.b,
    confidence: 0.95,
    resamples: B,
    seed: 5,
  }))) as number[][];
  cases.forEach((x, i) => {
    const s = x.statistic === "quantile"
      ? { kind: "quantile" as const, p: x.p }
      : { kind: x.statistic };
    const r = compareInterval(x.c, x.b, s, x.kind, "bootstrap_percentile", {
      confidence: 0.95,
      paired: x.paired,
      resamples: B,
      seed: 5,
    });
    assert.equal(r.refused, undefined, String(r.refused));
    const tl = 5 * Math.SQRT2 * r.mc_se!.low, th = 5 * Math.SQRT2 * r.mc_se!.high;
    const what = `${x.statistic} ${x.kind} ${x.paired ? "paired" : "unpaired"}`;
    assert.ok(Math.abs(r.low - ref[i][0]) < tl, `${what} low ${r.low} vs ${ref[i][0]} ±${tl}`);
    assert.ok(Math.abs(r.high - ref[i][1]) < th, `${what} high ${r.high} vs ${ref[i][1]} ±${th}`);
  });
});

Deno.test({
  name: "expanded percentile: the tail shares of a mean's bootstrap from scipy's t and normal",
  ignore: !haveScipy,
}, async () => {
  const cases = [[2, 0.025], [3, 0.025], [30, 0.005], [100, 0.025], [101, 0.05], [1000, 0.025], [
    100_000,
    0.025,
  ]];
  const ref = await reference(cases.map(([n, alpha]) => ({ op: "expanded_share", n, alpha })));
  cases.forEach(([n, alpha], i) => {
    const want = ref[i] as number;
    const got = expandedTailShare(alpha, n);
    assert.ok(Math.abs(got - want) <= 1e-12 * want, `n ${n}, α ${alpha}: ${got} vs scipy ${want}`);
    assert.ok(got < alpha, `n ${n}: the expanded share ${got} is below ${alpha}`);
  });
});
