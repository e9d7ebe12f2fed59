// The analysis of comparative claims as a pure function of (scenario, candidate observations,
// baseline observations): each side's failure budget and min_n, censoring, within, the point
// rule, and the scenario rules that reject what can never hold its level.
import assert from "node:assert/strict";
import { analysisPlanText, analyze, decide } from "../../src/run/analyze.ts";
import type { Observation } from "../../src/run/observation.ts";
import { normalizeScenario } from "../../src/scenario/load.ts";
import type { Scenario } from "../../src/scenario/types.ts";
import type { JsonValue } from "../../src/json/value.ts";
import { planScenario } from "../../src/run/plan.ts";
import { seededRandom } from "../../src/stats/mod.ts";

function scenario(over: {
  threshold: [string, string, number, string];
  pillars: Record<string, unknown>[];
  analysis?: Record<string, unknown>;
  metrics?: Record<string, Record<string, unknown>>;
}): Scenario {
  const [metric, comparator, value, units] = over.threshold;
  return normalizeScenario(
    {
      name: "cmp",
      claim: {
        statement: "s",
        operationalization: "o",
        threshold: { metric, comparator, value, units },
        h0: "h0",
        h1: "h1",
      },
      datasets: [{ name: "d", path: "d.jsonl", kind: "corpus" }],
      probe: { timeout_ms: 500n },
      metrics: over.metrics ?? { lat: { kind: "latency_ms" }, ok: { kind: "success" } },
      analysis: {
        min_n: 100n,
        max_failure_rate: 0.05,
        resamples: 499n,
        comparison: { kind: "ratio" },
        ...(over.analysis ?? {}),
        pillars: over.pillars,
      },
    } as unknown as JsonValue,
    "cmp.json",
    () => "",
  );
}

/** n latency observations, scale times a shared per-item base; `failed` items time out. */
function latencies(n: number, scale: number, seed: number, failed = 0): Observation[] {
  const u = seededRandom(seed);
  const base = seededRandom(99);
  return Array.from({ length: n }, (_, i) => {
    const b = 5 + 5 * base();
    const ok = i >= failed;
    const ms = ok ? scale * b * (0.97 + 0.06 * u()) : 500;
    return {
      item: i,
      id: `i${i}`,
      ok,
      attempts: 1,
      ...(ok ? {} : { failure: { kind: "timeout", message: "no response within 500 ms" } }),
      latency_ms: ms,
      censored: !ok,
      metrics: { lat: ok ? ms : null, ok: ok ? 1 : 0 },
    };
  });
}

const median = (over: Partial<{ comparator: string; value: number; interval: string }> = {}) =>
  scenario({
    threshold: ["lat.median.ratio", over.comparator ?? "<=", over.value ?? 1.05, "ratio"],
    pillars: [{
      name: "lat.median.ratio",
      metric: "lat",
      statistic: "median",
      ...(over.interval ? { interval: over.interval } : {}),
    }],
  });

Deno.test("comparisons: slowdown, speed-up and identical sides, paired", () => {
  const s = median();
  const base = latencies(150, 1, 2);
  for (
    const [scale, outcome] of [[1.5, "REFUTED"], [0.6, "VALIDATED"], [1, "VALIDATED"]] as const
  ) {
    const a = analyze(s, latencies(150, scale, 3), undefined, { observations: base, paired: true });
    assert.equal(a.outcome, outcome, a.reasoning);
    assert.equal(a.pillars[0].evidence.statistic_name, "median_ratio");
    assert.match(a.reasoning, /candidate .*, baseline /);
    assert.equal(a.baseline?.measured, 150);
  }
});

Deno.test("comparisons: each side has its own failure budget and min_n", () => {
  const s = median({ interval: "order_statistic" });
  const cand = latencies(150, 1, 3);
  const failing = analyze(s, cand, undefined, {
    observations: latencies(150, 1, 2, 20),
    paired: true,
  });
  assert.equal(failing.outcome, "INCONCLUSIVE");
  assert.match(failing.reasoning, /20 of 150 baseline items failed/);
  const short = analyze(s, cand, undefined, {
    observations: latencies(60, 1, 2),
    paired: false,
  });
  assert.equal(short.outcome, "INCONCLUSIVE");
  assert.match(short.reasoning, /60 baseline items, fewer than the pre-registered minimum of 100/);
});

Deno.test("comparisons: censored latencies refuse a bootstrap; order statistics take them", () => {
  const cand = latencies(150, 1.5, 3, 3);
  const base = { observations: latencies(150, 1, 2), paired: true };
  const boot = analyze(median(), cand, undefined, base);
  assert.equal(boot.outcome, "INCONCLUSIVE");
  assert.match(boot.reasoning, /censored values: only order_statistic/);
  const os = analyze(median({ interval: "order_statistic" }), cand, undefined, base);
  assert.equal(os.outcome, "REFUTED", os.reasoning);
});

Deno.test("comparisons: within decides by two one-sided bounds", () => {
  assert.equal(decide(0.96, 1.04, "within", 0.05, 1), "VALIDATED");
  assert.equal(decide(0.94, 1.04, "within", 0.05, 1), "INCONCLUSIVE");
  assert.equal(decide(1.06, 1.5, "within", 0.05, 1), "REFUTED");
  assert.equal(decide(-0.2, -0.11, "within", 0.1), "REFUTED");
  const s = median({ comparator: "within", value: 0.05 });
  const base = { observations: latencies(150, 1, 2), paired: true };
  assert.equal(analyze(s, latencies(150, 1, 3), undefined, base).outcome, "VALIDATED");
  const far = analyze(s, latencies(150, 1.5, 3), undefined, base);
  assert.equal(far.outcome, "REFUTED");
  assert.match(far.reasoning, /\|ratio − 1\| ≤ 0\.05/);
  assert.match(
    analysisPlanText(s),
    /within 0\.05 ratio \(\|ratio − 1\| <= 0\.05, two one-sided bounds\)/,
  );
});

Deno.test("comparisons: the point rule refuses censored sides", () => {
  const s = scenario({
    threshold: ["lat.median.ratio", "<=", 1.05, "ratio"],
    analysis: { decision: "point" },
    pillars: [{ name: "lat.median.ratio", metric: "lat", statistic: "median" }],
  });
  const a = analyze(s, latencies(150, 1, 3, 2), undefined, {
    observations: latencies(150, 1, 2),
    paired: true,
  });
  assert.equal(a.outcome, "INCONCLUSIVE");
  assert.match(a.reasoning, /censored latencies/);
});

Deno.test("comparisons: a comparative analysis without a baseline is an error, and vice versa", () => {
  assert.throws(() => analyze(median(), latencies(10, 1, 1)), /no baseline was given/);
  const plain = normalizeScenario(
    {
      name: "p",
      claim: {
        statement: "s",
        operationalization: "o",
        threshold: { metric: "l.m", comparator: "<=", value: 5.0, units: "ms" },
        h0: "a",
        h1: "b",
      },
      datasets: [{ name: "d", path: "d.jsonl", kind: "corpus" }],
      metrics: { lat: { kind: "latency_ms" } },
      analysis: { pillars: [{ name: "l.m", metric: "lat", statistic: "median" }] },
    } as unknown as JsonValue,
    "p.json",
    () => "",
  );
  assert.throws(
    () => analyze(plain, latencies(10, 1, 1), undefined, { observations: [], paired: false }),
    /declares no analysis.comparison/,
  );
});

Deno.test("comparisons: scenario rules reject what cannot hold its level", () => {
  const bad: [() => unknown, RegExp][] = [
    [() =>
      scenario({
        threshold: ["p99.ratio", "<=", 1.05, "ratio"],
        pillars: [{
          name: "p99.ratio",
          metric: "lat",
          statistic: "quantile",
          p: 0.99,
          interval: "bootstrap_percentile",
        }],
      }), /bootstrap of quantile 0\.99 does not hold its level/],
    [() =>
      scenario({
        threshold: ["acc.ratio", "<=", 1.05, "ratio"],
        pillars: [{ name: "acc.ratio", metric: "ok", statistic: "proportion", interval: "wilson" }],
      }), /wilson is not a comparison method/],
    [() =>
      scenario({
        threshold: ["acc.ratio", ">=", 0.9, "ratio"],
        pillars: [{
          name: "acc.ratio",
          metric: "ok",
          statistic: "proportion",
          interval: "mcnemar",
        }],
      }), /mcnemar gives the difference/],
    [() =>
      scenario({
        threshold: ["lat.m", "within", 0.05, "ms"],
        analysis: { comparison: undefined },
        pillars: [{ name: "lat.m", metric: "lat", statistic: "median" }],
      }), /within .* needs analysis.comparison/],
    [() =>
      scenario({
        threshold: ["lat.m", "within", -1, "ratio"],
        pillars: [{ name: "lat.m", metric: "lat", statistic: "median" }],
      }), /must be at least 0 for within/],
  ];
  for (const [make, message] of bad) assert.throws(make, message);
});

Deno.test("comparisons: defaults, plan text and plan", () => {
  const s = scenario({
    threshold: ["lat.median.ratio", "<=", 1.05, "ratio"],
    pillars: [
      { name: "lat.median.ratio", metric: "lat", statistic: "median" },
      { name: "lat.p95.ratio", metric: "lat", statistic: "quantile", p: 0.95 },
      { name: "lat.mean.ratio", metric: "lat", statistic: "mean" },
      { name: "ok.ratio", metric: "ok", statistic: "proportion" },
    ],
  });
  assert.deepEqual(
    s.analysis.pillars.map((p) => p.interval),
    ["bootstrap_percentile", "order_statistic", "bootstrap_percentile", "clopper_pearson"],
  );
  const text = analysisPlanText(s);
  assert.match(text, /Comparison \(ratio\)/);
  assert.match(text, /seeded with 2654435769 \(seed XOR 0x9E3779B9\)/);
  assert.match(text, /fewer than 100 items are measured on either side/);
  const plan = planScenario(s, 150);
  assert.equal(plan.comparison, "ratio");
  assert.equal(plan.smallest_decidable_n, 100);
  assert.equal(plan.power_at_corpus, null);
  assert.deepEqual(planScenario(s, 50).warnings.length, 1);
});

/** n reported scores around `center`; the items in `failedItems` failed (no value). */
function scores(n: number, center: number, seed: number, failedItems: number[]): Observation[] {
  const u = seededRandom(seed);
  const base = seededRandom(7);
  return Array.from({ length: n }, (_, i) => {
    const b = base();
    const v = center + 2 * b + 0.3 * (u() - 0.5);
    const ok = !failedItems.includes(i);
    return {
      item: i,
      id: `i${i}`,
      ok,
      attempts: 1,
      ...(ok ? {} : { failure: { kind: "error", message: "no answer" } }),
      latency_ms: 1,
      metrics: { score: ok ? v : null },
    };
  });
}

Deno.test("comparisons: failed items without a value decide nothing, under the point rule too; pairs stay pairs", () => {
  const s = scenario({
    threshold: ["score.mean.difference", ">=", -0.5, "points"],
    pillars: [{ name: "score.mean.difference", metric: "score", statistic: "mean", interval: "t" }],
    metrics: { score: { kind: "reported", output: "/score" } },
    analysis: {
      comparison: { kind: "difference" },
      max_failure_rate: 0.2,
      decision: "point",
      on_failure: "inconclusive",
    },
  });
  const cand = range(0, 5);
  for (
    const [what, candFailed, baseFailed] of [
      ["same number, other items", cand, range(5, 10)],
      ["other numbers", cand, range(5, 12)],
    ] as const
  ) {
    const a = analyze(s, scores(150, 10, 1, [...candFailed]), undefined, {
      observations: scores(150, 10, 2, [...baseFailed]),
      paired: true,
    });
    assert.equal(a.outcome, "INCONCLUSIVE", `${what}: ${a.reasoning}`);
    const p = a.pillars[0];
    assert.match(p.undecidable ?? "", /failed items have no value/, what);
    assert.doesNotMatch(p.refused ?? "", /analysis failed/, what);
    // The estimate is that of the items both sides answered, pair by pair.
    const both = 150 - candFailed.length - baseFailed.length;
    assert.equal(p.values.length, both, what);
    assert.equal(p.baseline!.values.length, both, what);
    assert.ok(Math.abs(p.interval.estimate) < 0.2, `${what}: estimate ${p.interval.estimate}`);
  }
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
