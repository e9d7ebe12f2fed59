// Comparative statistics (src/stats/compare*.ts, mcnemar.ts): the fast two-sample bootstrap
// against the plain one, the resampling stream against the one-sample bootstrap, invariances of
// the intervals, refusals, and the cross-check.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  bootstrapDistribution,
  bootstrapTailShares,
  combine,
  combineBounds,
  compareInterval,
  crossCheckComparison,
  discordantCounts,
  pairedProportionInterval,
  referenceTwoSampleBootstrap,
  seededRandom,
  sortedQuantile,
  type Statistic,
  twoSampleBootstrap,
} from "../../src/stats/mod.ts";

const statistics: Statistic[] = [
  { kind: "mean" },
  { kind: "median" },
  { kind: "quantile", p: 0.3 },
  { kind: "quantile", p: 0.95 },
];

const sample = (n: number) =>
  fc.array(fc.double({ min: 0, max: 1e3, noNaN: true }), { minLength: 1, maxLength: n });

Deno.test("twoSampleBootstrap equals the plain bootstrap resample by resample", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 40 }),
      fc.boolean(),
      fc.constantFrom(...statistics),
      fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      fc.context(),
      (nc, nb, paired, s, seed, ctx) => {
        const u = seededRandom(seed);
        const c = Array.from({ length: nc }, () => Math.round(u() * 50) / 2);
        const b = Array.from({ length: paired ? nc : nb }, () => u() * 30);
        const fast = twoSampleBootstrap(c, b, s, paired, 30, seed);
        const plain = referenceTwoSampleBootstrap(c, b, s, paired, 30, seed);
        ctx.log(JSON.stringify({ c, b }));
        for (const side of ["candidate", "baseline"] as const) {
          fast[side].forEach((x, r) => {
            const y = plain[side][r];
            // jStat interpolates type-7 quantiles with its own arithmetic: last-bit differences.
            const tol = 1e-12 * Math.max(1, Math.abs(y));
            assert.ok(Math.abs(x - y) <= tol, `${side} resample ${r}: ${x} vs ${y}`);
          });
        }
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("a paired bootstrap draws the one-sample bootstrap's stream", () => {
  const u = seededRandom(4);
  const x = Array.from({ length: 57 }, () => u() * 10);
  for (const s of statistics) {
    const one = bootstrapDistribution(x, s, 200, 11);
    const two = twoSampleBootstrap(x, x.map((v) => v + 1), s, true, 200, 11);
    assert.deepEqual([...two.candidate], [...one]);
  }
});

Deno.test("difference intervals: swapping the sides negates them (combined methods, exactly)", () => {
  fc.assert(
    fc.property(sample(40), sample(40), fc.boolean(), (c, b, paired) => {
      fc.pre(c.length >= 1 && b.length >= 1 && (!paired || c.length === b.length));
      const opts = { confidence: 0.95, paired, resamples: 10, seed: 0 };
      const ab = compareInterval(c, b, { kind: "median" }, "difference", "order_statistic", opts);
      const ba = compareInterval(b, c, { kind: "median" }, "difference", "order_statistic", opts);
      // Equal as numbers: 0 and -0 are the same bound (a zero difference negated).
      const same = (x: number, y: number) => assert.ok(x === y, `${x} !== ${y}`);
      same(ab.low, -ba.high);
      same(ab.high, -ba.low);
      same(ab.estimate, -ba.estimate);
    }),
  );
});

Deno.test("ratio intervals do not depend on the unit (both sides scaled by 1000)", () => {
  const u = seededRandom(8);
  const b = Array.from({ length: 150 }, () => 5 + u() * 3);
  const c = b.map((x) => x * (1.1 + 0.1 * u()));
  for (const method of ["bootstrap_percentile", "order_statistic"] as const) {
    const opts = { confidence: 0.95, paired: true, resamples: 400, seed: 3 };
    const r1 = compareInterval(c, b, { kind: "median" }, "ratio", method, opts);
    const r2 = compareInterval(
      c.map((x) => x * 1000),
      b.map((x) => x * 1000),
      { kind: "median" },
      "ratio",
      method,
      opts,
    );
    for (const k of ["estimate", "low", "high"] as const) {
      assert.ok(Math.abs(r1[k] - r2[k]) < 1e-12 * r1[k], `${method} ${k}: ${r1[k]} vs ${r2[k]}`);
    }
  }
});

Deno.test("combined bounds: interval arithmetic, unbounded where the baseline may be 0", () => {
  assert.deepEqual(combineBounds("difference", { low: 1, high: 3 }, { low: -1, high: 2 }), {
    low: -1,
    high: 4,
  });
  assert.deepEqual(combineBounds("ratio", { low: -1, high: 3 }, { low: 1, high: Infinity }), {
    low: 0,
    high: 3,
  });
  assert.deepEqual(combineBounds("difference", { low: -Infinity, high: 3 }, { low: 0, high: 1 }), {
    low: -Infinity,
    high: 3,
  });
});

Deno.test("refusals name the reason and give the trivial interval", () => {
  const u = seededRandom(1);
  const x = Array.from({ length: 150 }, () => 1 + u());
  const y = Array.from({ length: 150 }, () => 1 + u());
  const opts = { confidence: 0.95, paired: true, resamples: 100, seed: 1 };
  const cases: [string, () => ReturnType<typeof compareInterval>, RegExp][] = [
    [
      "fewer than 100 values",
      () =>
        compareInterval(
          x.slice(0, 50),
          y.slice(0, 50),
          { kind: "mean" },
          "ratio",
          "bootstrap_percentile",
          opts,
        ),
      /at least 100/,
    ],
    [
      "a tail quantile",
      () =>
        compareInterval(x, y, { kind: "quantile", p: 0.99 }, "ratio", "bootstrap_percentile", opts),
      /order_statistic/,
    ],
    [
      "censored values",
      () =>
        compareInterval(x, y, { kind: "median" }, "ratio", "bootstrap_percentile", {
          ...opts,
          censored: { candidate: x.map((_, i) => i === 3) },
        }),
      /censored/,
    ],
    [
      "negative values in a ratio",
      () =>
        compareInterval(
          x.map((v) => v - 1.5),
          y,
          { kind: "median" },
          "ratio",
          "order_statistic",
          opts,
        ),
      /non-negative/,
    ],
    [
      "mcnemar unpaired",
      () =>
        compareInterval([1, 0, 1], [1, 1], { kind: "proportion" }, "difference", "mcnemar", {
          ...opts,
          paired: false,
        }),
      /paired/,
    ],
    [
      "constant side",
      () =>
        compareInterval(
          x,
          x.map(() => 2),
          { kind: "mean" },
          "difference",
          "bootstrap_percentile",
          opts,
        ),
      /constant/,
    ],
  ];
  for (const [what, run, reason] of cases) {
    const r = run();
    assert.match(r.refused ?? "", reason, what);
    const proportion = what === "mcnemar unpaired";
    assert.equal(r.low, r.kind === "ratio" ? 0 : proportion ? -1 : -Infinity, what);
    assert.equal(r.high, proportion ? 1 : Infinity, what);
  }
  assert.throws(
    () => compareInterval(x, y, { kind: "proportion" }, "ratio", "mcnemar", opts),
    /difference/,
  );
});

Deno.test("mcnemar: the interval is exact where it can be checked by enumeration", () => {
  // The worst one-sided error over a grid of joint distributions at n = 25, by enumerating every
  // multinomial outcome (b, c): never above β = 2.5%.
  const n = 25;
  const lf = [0];
  for (let i = 1; i <= n; i++) lf[i] = lf[i - 1] + Math.log(i);
  const bounds = new Map<string, { low: number; high: number }>();
  for (let b = 0; b <= n; b++) {
    for (let c = 0; b + c <= n; c++) {
      bounds.set(
        `${b},${c}`,
        pairedProportionInterval({ n, candidateOnly: b, baselineOnly: c }, 0.95),
      );
    }
  }
  let worst = 0;
  for (const p10 of [0.02, 0.05, 0.1, 0.2, 0.3]) {
    for (const p01 of [0.01, 0.05, 0.1, 0.25]) {
      const d = p10 - p01, p0 = 1 - p10 - p01;
      let below = 0, above = 0;
      for (let b = 0; b <= n; b++) {
        for (let c = 0; b + c <= n; c++) {
          const prob = Math.exp(
            lf[n] - lf[b] - lf[c] - lf[n - b - c] + b * Math.log(p10) + c * Math.log(p01) +
              (n - b - c) * Math.log(p0),
          );
          const iv = bounds.get(`${b},${c}`)!;
          if (iv.low > d) below += prob;
          if (iv.high < d) above += prob;
        }
      }
      worst = Math.max(worst, below, above);
    }
  }
  assert.ok(worst <= 0.025, `worst one-sided error ${worst}`);
  assert.deepEqual(discordantCounts([1, 0, 1, 1], [0, 0, 1, 0]), {
    n: 4,
    candidateOnly: 2,
    baselineOnly: 0,
  });
});

Deno.test("the cross-check agrees on every method, and notices a changed bound", () => {
  const u = seededRandom(21);
  const b = Array.from({ length: 120 }, () => 3 + u());
  const c = b.map((x) => x * 1.2 + u() * 0.1);
  const bin = (p: number) => Array.from({ length: 120 }, () => (u() < p ? 1 : 0));
  const pb = bin(0.8), pc = pb.map((x) => (u() < 0.05 ? 1 - x : x));
  const opts = { confidence: 0.95, paired: true, resamples: 300, seed: 5 };
  const runs: [number[], number[], Statistic, "ratio" | "difference", string][] = [
    [c, b, { kind: "median" }, "ratio", "bootstrap_percentile"],
    [c, b, { kind: "mean" }, "difference", "bootstrap_percentile"],
    [c, b, { kind: "quantile", p: 0.95 }, "ratio", "order_statistic"],
    [c, b, { kind: "mean" }, "difference", "t"],
    [pc, pb, { kind: "proportion" }, "difference", "mcnemar"],
    [pc, pb, { kind: "proportion" }, "ratio", "clopper_pearson"],
  ];
  for (const [x, y, s, kind, method] of runs) {
    const r = compareInterval(x, y, s, kind, method as never, opts);
    assert.equal(r.refused, undefined, `${method}: ${r.refused}`);
    const cc = crossCheckComparison(x, y, s, r, opts);
    assert.ok(cc.agrees, `${method}: ${cc.text}`);
    const moved = crossCheckComparison(x, y, s, { ...r, high: r.high * 1.001 + 1e-6 }, opts);
    assert.ok(!moved.agrees && /DISAGREE/.test(moved.text), `${method}: ${moved.text}`);
  }
});

Deno.test("bootstrapped means are read at the expanded percentile's shares, wider than β", () => {
  const u = seededRandom(11);
  const b = Array.from({ length: 120 }, () => 10 + 4 * u());
  const c = b.map((x) => x + 0.5 * (u() - 0.4));
  for (const [kind, paired] of [["difference", true], ["ratio", false]] as const) {
    const opts = { confidence: 0.95, paired, resamples: 999, seed: 3 };
    const r = compareInterval(c, b, { kind: "mean" }, kind, "bootstrap_percentile", opts);
    const d = twoSampleBootstrap(c, b, { kind: "mean" }, paired, 999, 3);
    const sorted = Float64Array.from(d.candidate, (x, i) => combine(kind, x, d.baseline[i])).sort();
    const levels = bootstrapTailShares({ kind: "mean" }, 0.95, 120);
    assert.deepEqual(r.percentile_levels, levels);
    assert.ok(levels.low < 0.025 && levels.high > 0.975);
    assert.equal(r.low, sortedQuantile(sorted, levels.low));
    assert.equal(r.high, sortedQuantile(sorted, levels.high));
    assert.ok(r.low < sortedQuantile(sorted, 0.025) && r.high > sortedQuantile(sorted, 0.975));
    // Medians keep β and 1 − β.
    const m = compareInterval(c, b, { kind: "median" }, kind, "bootstrap_percentile", opts);
    assert.equal(m.percentile_levels, undefined);
  }
});
