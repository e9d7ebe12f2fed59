// Every interval, and the distribution functions behind them, against scipy and statsmodels
// (tests/support/stats_reference.py). Tolerances are stated per case.
import assert from "node:assert/strict";
import { jStat } from "../../src/stats/jstat.ts";
import {
  betaQuantile,
  binomialCdf,
  binomialQuantile,
  boundedMeanInterval,
  clopperPearsonInterval,
  estimateInterval,
  orderStatisticInterval,
  powerAt,
  sampleSkewness,
  seededRandom,
  studentTQuantile,
  tInterval,
  wilsonInterval,
} from "../../src/stats/mod.ts";
import { pythonModule } from "../support/peers.ts";

const haveScipy = await pythonModule("scipy");
const haveStatsmodels = await pythonModule("statsmodels");
const script = new URL("../support/stats_reference.py", import.meta.url).pathname;

// One Python process serves every test of this file (importing scipy and statsmodels takes
// seconds on a busy machine); the last test closes it.
let server: {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  lines: AsyncIterator<string>;
} | undefined;

async function* splitLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buf = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl);
      buf = buf.slice(nl + 1);
    }
  }
}

/** Results in request order (null for nan/inf). */
async function reference(requests: Record<string, unknown>[]): Promise<unknown[]> {
  if (!server) {
    const child = new Deno.Command("python3", { args: [script], stdin: "piped", stdout: "piped" })
      .spawn();
    server = { child, writer: child.stdin.getWriter(), lines: splitLines(child.stdout) };
  }
  const text = requests.map((r) => JSON.stringify(r)).join("\n") + "\n";
  await server.writer.write(new TextEncoder().encode(text));
  const out: unknown[] = [];
  for (const r of requests) {
    const next = await server.lines.next();
    assert.ok(!next.done, "the reference process ended early");
    const l = JSON.parse(next.value);
    assert.ok(!("error" in l), `${JSON.stringify(r)}: ${l.error}`);
    out.push(l.result);
  }
  return out;
}

const rnd = seededRandom(2026);
const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
const inf = (x: number) => (Number.isFinite(x) ? x : null);

Deno.test({
  name: "order-statistic bounds equal scipy.stats.quantile_test(...).confidence_interval exactly",
  ignore: !haveScipy,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const cases: { x: number[]; p: number; confidence: number }[] = [];
  for (const n of [5, 20, 71, 72, 100, 200, 367, 368, 1000]) {
    for (const p of [0.5, 0.9, 0.95, 0.99]) {
      for (const confidence of [0.9, 0.95, 0.99]) {
        // Rounded values make ties, which must not change the ranks.
        cases.push({
          x: Array.from({ length: n }, () => Math.round(normal() * 50) / 10),
          p,
          confidence,
        });
      }
    }
  }
  const ref = await reference(
    cases.map((c) => ({ op: "quantile_ci", ...c })),
  ) as (number | null)[][];
  cases.forEach((c, i) => {
    const r = orderStatisticInterval(c.x, c.p, c.confidence);
    assert.deepEqual(
      [inf(r.low), inf(r.high)],
      ref[i],
      `n=${c.x.length} p=${c.p} c=${c.confidence}`,
    );
  });
});

Deno.test({
  name: "Clopper-Pearson and Wilson equal statsmodels proportion_confint within 1e-10",
  ignore: !haveStatsmodels,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const cases: { k: number; n: number; confidence: number }[] = [];
  for (const n of [1, 2, 10, 30, 100, 263, 1000, 5000]) {
    for (const k of new Set([0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 1, n])) {
      if (k < 0 || k > n) continue;
      for (const confidence of [0.8, 0.95, 0.99]) cases.push({ k, n, confidence });
    }
  }
  const cp = await reference(cases.map((c) => ({ op: "cp", ...c }))) as number[][];
  const wilson = await reference(cases.map((c) => ({ op: "wilson", ...c }))) as number[][];
  cases.forEach((c, i) => {
    const a = clopperPearsonInterval(c.k, c.n, c.confidence);
    const b = wilsonInterval(c.k, c.n, c.confidence);
    const what = JSON.stringify(c);
    assert.ok(
      Math.abs(a.low - cp[i][0]) < 1e-10 && Math.abs(a.high - cp[i][1]) < 1e-10,
      `CP ${what}: ${[a.low, a.high]} vs ${cp[i]}`,
    );
    assert.ok(
      Math.abs(b.low - wilson[i][0]) < 1e-10 && Math.abs(b.high - wilson[i][1]) < 1e-10,
      `Wilson ${what}: ${[b.low, b.high]} vs ${wilson[i]}`,
    );
  });
});

Deno.test({
  name: "t interval equals scipy ttest_1samp(...).confidence_interval within 1e-10 (relative)",
  ignore: !haveScipy,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const cases = [3, 10, 50, 500].flatMap((n) =>
    [0.9, 0.95, 0.99].map((confidence) => ({
      x: Array.from({ length: n }, () => 10 + 2 * normal()),
      confidence,
    }))
  );
  const ref = await reference(cases.map((c) => ({ op: "t", ...c }))) as number[][];
  cases.forEach((c, i) => {
    const r = tInterval(c.x, c.confidence);
    for (const [ours, theirs] of [[r.low, ref[i][0]], [r.high, ref[i][1]]]) {
      assert.ok(Math.abs(ours - theirs) <= 1e-10 * Math.abs(theirs), `${ours} vs ${theirs}`);
    }
  });
});

Deno.test({
  name: "bounded-mean bounds equal the integral of scipy's ecdf within 1e-9",
  ignore: !haveScipy,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const cases = [5, 50, 500].flatMap((n) =>
    [0.9, 0.95].map((confidence) => ({
      x: Array.from({ length: n }, () => Math.min(10, -Math.log(1 - rnd()) * 2)),
      lo: 0,
      hi: 10,
      confidence,
    }))
  );
  const ref = await reference(cases.map((c) => ({ op: "bounded", ...c }))) as number[][];
  cases.forEach((c, i) => {
    const r = boundedMeanInterval(c.x, c.lo, c.hi, c.confidence);
    assert.ok(
      Math.abs(r.low - ref[i][0]) < 1e-9 && Math.abs(r.high - ref[i][1]) < 1e-9,
      `${[r.low, r.high]} vs ${ref[i]}`,
    );
  });
});

Deno.test({
  name:
    "bootstrap intervals for a mean agree with scipy.stats.bootstrap within 5·√2 Monte Carlo SE",
  ignore: !haveScipy,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const x = Array.from({ length: 200 }, () => 10 + 2 * normal());
  const methods = [["bootstrap_percentile", "percentile"], ["bootstrap_bca", "BCa"]] as const;
  const ref = await reference(methods.map(([, m]) => ({
    op: "bootstrap",
    x,
    confidence: 0.95,
    resamples: 20000,
    method: m,
    seed: 7,
  }))) as number[][];
  methods.forEach(([ours], i) => {
    const r = estimateInterval(x, { kind: "mean" }, ours, {
      confidence: 0.95,
      resamples: 20000,
      seed: 7,
    });
    // Two independent bootstraps of the same size: each bound differs by Monte Carlo error alone.
    const tolLow = 5 * Math.SQRT2 * r.mc_se!.low, tolHigh = 5 * Math.SQRT2 * r.mc_se!.high;
    assert.ok(
      Math.abs(r.low - ref[i][0]) < tolLow,
      `${ours} low ${r.low} vs ${ref[i][0]} (±${tolLow})`,
    );
    assert.ok(
      Math.abs(r.high - ref[i][1]) < tolHigh,
      `${ours} high ${r.high} vs ${ref[i][1]} (±${tolHigh})`,
    );
  });
});

Deno.test({
  name: "distribution functions and skewness against scipy (binomial exact ranks; 1e-12 otherwise)",
  ignore: !haveScipy,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const reqs: Record<string, unknown>[] = [];
  const checks: ((v: unknown) => void)[] = [];
  const close = (a: number, b: number, tol: number, what: string) =>
    assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
  for (const [k, n, p] of [[3, 30, 0.05], [180, 200, 0.95], [500, 1000, 0.5], [0, 10, 0.3]]) {
    reqs.push({ op: "binom_cdf", k, n, p });
    checks.push((v) =>
      close(binomialCdf(k, n, p), v as number, 1e-12, `binom.cdf(${k}, ${n}, ${p})`)
    );
  }
  for (
    const [q, n, p] of [[0.025, 200, 0.95], [0.975, 200, 0.95], [0.025, 368, 0.99], [0.5, 7, 0.3]]
  ) {
    reqs.push({ op: "binom_ppf", q, n, p });
    checks.push((v) => assert.equal(binomialQuantile(q, n, p), v, `binom.ppf(${q}, ${n}, ${p})`));
  }
  for (const [q, a, b] of [[0.025, 120, 1], [0.975, 82, 183], [0.5, 0.5, 0.5]]) {
    reqs.push({ op: "beta_ppf", q, a, b });
    checks.push((v) =>
      close(betaQuantile(q, a, b), v as number, 1e-12, `beta.ppf(${q}, ${a}, ${b})`)
    );
  }
  for (const [q, df] of [[0.975, 1], [0.975, 9], [0.995, 30], [0.025, 999]]) {
    reqs.push({ op: "t_ppf", q, df });
    checks.push((v) => close(studentTQuantile(q, df), v as number, 1e-12, `t.ppf(${q}, ${df})`));
  }
  // jStat's noncentral t CDF is what the t rule's power uses: 1e-6 (absolute).
  for (const [x, df, nc] of [[-2.0, 29, -1.5], [-1.98, 99, -3.0], [-2.26, 9, 0.5]]) {
    reqs.push({ op: "nct_cdf", x, df, nc });
    checks.push((v) =>
      assert.ok(
        Math.abs(jStat.noncentralt.cdf(x, df, nc) - (v as number)) < 1e-6,
        `nct.cdf(${x}, ${df}, ${nc})`,
      )
    );
  }
  const sk = Array.from({ length: 50 }, () => Math.exp(normal()));
  reqs.push({ op: "skew", x: sk });
  checks.push((v) => close(sampleSkewness(sk), v as number, 1e-12, "skew"));
  // Power of the order-statistic rule: P(Bin(n, f) >= k) with scipy's rank.
  for (const [n, f] of [[200, 0.97], [500, 0.96]]) {
    reqs.push({ op: "binom_isf", q: 0.025, n, p: 0.95 });
    checks.push((v) => {
      const k = (v as number) + 1;
      const q = {
        statistic: { kind: "quantile", p: 0.95 } as const,
        method: "order_statistic" as const,
        decision: "interval" as const,
        comparator: "<=" as const,
        threshold: 1,
        confidence: 0.95,
        assume: f,
      };
      close(powerAt(q, n)!, 1 - binomialCdf(k - 1, n, f), 1e-12, `power n=${n}`);
    });
  }
  const ref = await reference(reqs);
  checks.forEach((c, i) => c(ref[i]));
});

Deno.test({
  name: "the reference process exits cleanly",
  ignore: !haveScipy,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  if (!server) return;
  await server.writer.close();
  assert.equal((await server.child.status).code, 0);
  server = undefined;
});
