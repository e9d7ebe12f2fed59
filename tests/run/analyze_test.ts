// The analysis as a pure function of (scenario, observations): intention to treat, censoring,
// refusals, seeds, and crashes that become INCONCLUSIVE.
import assert from "node:assert/strict";
import { analysisPlanText, analyze, pillarSeed } from "../../src/run/analyze.ts";
import { type Observation, ObservationSchema } from "../../src/run/observation.ts";
import { normalizeScenario } from "../../src/scenario/load.ts";
import type { Scenario } from "../../src/scenario/types.ts";
import type { JsonValue } from "../../src/json/value.ts";

/** A scenario from a compact description (ints as bigint, as a parsed file has them). */
function scenario(over: {
  threshold: [string, string, number, string];
  metrics: Record<string, Record<string, unknown>>;
  pillars: Record<string, unknown>[];
  analysis?: Record<string, unknown>;
  probe?: Record<string, unknown>;
}): Scenario {
  const [metric, comparator, value, units] = over.threshold;
  return normalizeScenario(
    {
      name: "t",
      claim: {
        statement: "s",
        operationalization: "o",
        threshold: { metric, comparator, value, units },
        h0: "h0",
        h1: "h1",
      },
      datasets: [{ name: "d", path: "d.jsonl", kind: "corpus" }],
      probe: { timeout_ms: 500n, ...(over.probe ?? {}) },
      metrics: over.metrics,
      analysis: {
        min_n: 30n,
        max_failure_rate: 0.1,
        ...(over.analysis ?? {}),
        pillars: over.pillars,
      },
    } as unknown as JsonValue,
    "t.json",
    () => "",
  );
}

const latencyScenario = (p: number, value = 50) =>
  scenario({
    threshold: ["latency.q", "<=", value, "ms"],
    metrics: { lat: { kind: "latency_ms" } },
    pillars: [{ name: "latency.q", metric: "lat", statistic: "quantile", p }],
  });

function latencyObs(
  n: number,
  failed: Set<number>,
  ms = (i: number) => 10 + (i % 7),
): Observation[] {
  return Array.from({ length: n }, (_, i) =>
    failed.has(i)
      ? {
        item: i,
        id: `i${i}`,
        ok: false,
        attempts: 1,
        failure: { kind: "timeout", message: "no response within 500 ms" },
        latency_ms: 500,
        censored: true,
        metrics: { lat: null },
      }
      : {
        item: i,
        id: `i${i}`,
        ok: true,
        attempts: 1,
        latency_ms: ms(i),
        censored: false,
        metrics: { lat: ms(i) },
      });
}

Deno.test("timeouts count: 6 of 200 calls timed out at 500 ms, so p99 <= 50 ms is not VALIDATED", () => {
  const failed = new Set([3, 40, 77, 120, 150, 199]);
  const obs = latencyObs(200, failed);
  for (const o of obs) ObservationSchema.parse(o);
  const a = analyze(latencyScenario(0.99), obs);
  // 3% of calls took at least 500 ms, so p99 is at least 500 ms: the lower bound refutes.
  assert.equal(a.outcome, "REFUTED", a.reasoning);
  const p = a.pillars[0];
  assert.equal(p.values.length, 200, "every item counts");
  assert.equal(p.censored!.filter(Boolean).length, 6);
  assert.equal(p.evidence.ci_low, 500);
  assert.equal(p.evidence.ci_high, Number.MAX_VALUE, "no finite upper bound");
  // With 2 timeouts the lower bound is an answered item, and 200 items give p99 no finite upper
  // bound (it needs 368): INCONCLUSIVE, where the old analysis said VALIDATED.
  const two = analyze(latencyScenario(0.99), latencyObs(200, new Set([3, 40])));
  assert.equal(two.outcome, "INCONCLUSIVE");
  assert.match(two.reasoning, /no finite upper bound/);
  // p95 is bounded above by an answered item when few fail: VALIDATED honestly.
  const p95 = analyze(latencyScenario(0.95), latencyObs(200, new Set([3, 40])));
  assert.equal(p95.outcome, "VALIDATED", p95.reasoning);
  // When more than 1 - p of items time out, the lower bound alone refutes: the truth is >= 500 ms.
  const many = new Set(Array.from({ length: 30 }, (_, i) => i * 6));
  const refuted = analyze(
    scenario({
      threshold: ["latency.q", "<=", 50, "ms"],
      metrics: { lat: { kind: "latency_ms" } },
      pillars: [{ name: "latency.q", metric: "lat", statistic: "quantile", p: 0.95 }],
      analysis: { max_failure_rate: 0.2 },
    }),
    latencyObs(200, many),
  );
  assert.equal(refuted.outcome, "REFUTED", refuted.reasoning);
});

Deno.test("abstention counts as wrong: 190 correct of 200, not 190 of 190", () => {
  const s = scenario({
    threshold: ["accuracy.x", ">=", 0.9, "proportion"],
    metrics: { correct: { kind: "exact_match", output: "/a", reference: "/b" } },
    pillars: [{ name: "accuracy.x", metric: "correct", statistic: "proportion" }],
  });
  const obs: Observation[] = Array.from(
    { length: 200 },
    (_, i) =>
      i < 190 ? { item: i, id: `i${i}`, ok: true, attempts: 1, metrics: { correct: 1 } } : {
        item: i,
        id: `i${i}`,
        ok: false,
        attempts: 1,
        failure: { kind: "invalid_response", message: "metric correct: the result has no /a" },
        metrics: { correct: null },
      },
  );
  const a = analyze(s, obs);
  assert.equal(a.pillars[0].evidence.statistic_value, 0.95);
  assert.equal(a.pillars[0].values.length, 200);
  assert.equal(a.pillars[0].interval.method, "clopper_pearson");
});

Deno.test("30 of 30 correct: Clopper-Pearson [0.884, 1] does not validate >= 0.99; a bootstrap is refused", () => {
  const obs: Observation[] = Array.from({ length: 30 }, (_, i) => ({
    item: i,
    id: `i${i}`,
    ok: true,
    attempts: 1,
    metrics: { correct: 1 },
  }));
  for (const interval of ["clopper_pearson", "wilson", "bootstrap_percentile", "bootstrap_bca"]) {
    const s = scenario({
      threshold: ["accuracy.x", ">=", 0.99, "proportion"],
      metrics: { correct: { kind: "exact_match", output: "/a", reference: "/b" } },
      pillars: [{ name: "accuracy.x", metric: "correct", statistic: "proportion", interval }],
    });
    const a = analyze(s, obs);
    assert.equal(a.outcome, "INCONCLUSIVE", `${interval}: ${a.reasoning}`);
    if (interval === "clopper_pearson") {
      assert.equal(a.pillars[0].evidence.ci_low.toFixed(4), "0.8843");
    }
    if (interval.startsWith("bootstrap")) {
      assert.match(a.reasoning, /bootstrap interval is refused for a proportion/);
      assert.deepEqual([a.pillars[0].evidence.ci_low, a.pillars[0].evidence.ci_high], [0, 1]);
    }
  }
});

Deno.test("constant data: t and bootstrap intervals for a mean are refused, not [c, c]", () => {
  const obs: Observation[] = Array.from({ length: 150 }, (_, i) => ({
    item: i,
    id: `i${i}`,
    ok: true,
    attempts: 1,
    metrics: { v: 5 },
  }));
  for (const interval of ["t", "bootstrap_percentile", "bootstrap_bca"]) {
    const s = scenario({
      threshold: ["value.mean", "<=", 6, "x"],
      metrics: { v: { kind: "reported", output: "/v" } },
      pillars: [{ name: "value.mean", metric: "v", statistic: "mean", interval }],
    });
    const a = analyze(s, obs);
    assert.equal(a.outcome, "INCONCLUSIVE", interval);
    assert.match(a.reasoning, /constant data/);
  }
});

Deno.test("29 of 30 items failing gives an INCONCLUSIVE analysis, not an error", () => {
  const obs: Observation[] = Array.from(
    { length: 30 },
    (_, i) =>
      i === 0 ? { item: i, id: `i${i}`, ok: true, attempts: 1, metrics: { v: 1.5 } } : {
        item: i,
        id: `i${i}`,
        ok: false,
        attempts: 1,
        failure: { kind: "crash", message: "process exited" },
        metrics: { v: null },
      },
  );
  for (const on_failure of ["inconclusive", "worst"]) {
    const s = scenario({
      threshold: ["value.mean", "<=", 6, "x"],
      metrics: { v: { kind: "reported", output: "/v", worst: 100 } },
      pillars: [{ name: "value.mean", metric: "v", statistic: "mean" }],
      analysis: { on_failure, max_failure_rate: 1.0 },
    });
    const a = analyze(s, obs);
    assert.equal(a.outcome, "INCONCLUSIVE", a.reasoning);
  }
});

Deno.test("a crash inside the analysis becomes INCONCLUSIVE with the reason", () => {
  const obs: Observation[] = Array.from({ length: 40 }, (_, i) => ({
    item: i,
    id: `i${i}`,
    ok: true,
    attempts: 1,
    metrics: { v: 1.7e308 },
  }));
  const s = scenario({
    threshold: ["value.mean", "<=", 6, "x"],
    metrics: { v: { kind: "reported", output: "/v" } },
    pillars: [{ name: "value.mean", metric: "v", statistic: "mean" }],
  });
  const a = analyze(s, obs);
  assert.equal(a.outcome, "INCONCLUSIVE");
  assert.match(a.reasoning, /the analysis failed: .*overflows/);
  assert.match(a.pillars[0].evidence.cross_check, /^n\/a \(the analysis failed/);
});

Deno.test("interval: none under decision: interval is INCONCLUSIVE, never a silent point rule", () => {
  const s = scenario({
    threshold: ["latency.q", "<=", 50, "ms"],
    metrics: { lat: { kind: "latency_ms" } },
    pillars: [{ name: "latency.q", metric: "lat", statistic: "median", interval: "none" }],
  });
  const a = analyze(s, latencyObs(100, new Set()));
  assert.equal(a.outcome, "INCONCLUSIVE");
  assert.match(a.reasoning, /interval: none\) and the decision rule is interval/);
  const point = analyze(
    { ...s, analysis: { ...s.analysis, decision: "point" } },
    latencyObs(100, new Set()),
  );
  assert.equal(point.outcome, "VALIDATED");
  assert.match(point.reasoning, /no error control/);
});

Deno.test("the plan states the seed each pillar uses; seeds wrap at 2^32", () => {
  const s = scenario({
    threshold: ["value.mean", "<=", 6, "x"],
    metrics: { v: { kind: "reported", output: "/v" } },
    pillars: [
      { name: "value.median", metric: "v", statistic: "median" },
      { name: "value.mean", metric: "v", statistic: "mean", interval: "bootstrap_bca" },
    ],
    analysis: { seed: 42n },
  });
  const plan = analysisPlanText(s);
  assert.match(
    plan,
    /value\.mean = mean .*BCa bootstrap interval \(2000 resamples, MT19937 seed 43\)/,
  );
  assert.doesNotMatch(plan, /seed 42\b/);
  assert.equal(pillarSeed(4294967295, 1), 0);
  const obs: Observation[] = Array.from({ length: 120 }, (_, i) => ({
    item: i,
    id: `i${i}`,
    ok: true,
    attempts: 1,
    metrics: { v: (i * 37) % 11 },
  }));
  const a = analyze(s, obs);
  assert.equal(a.pillars[1].interval.seed, 43);
  assert.ok(a.pillars[1].interval.mc_se!.high > 0);
  assert.match(
    a.pillars[1].evidence.cross_check,
    /bounds: pure-rand uniformInt resamples .* agree/,
  );
});

Deno.test("the analysis is a pure function of scenario and observations", () => {
  const s = latencyScenario(0.95);
  const obs = latencyObs(150, new Set([7]));
  const copy = JSON.parse(JSON.stringify(obs));
  assert.deepEqual(analyze(s, obs).pillars[0].evidence, analyze(s, copy).pillars[0].evidence);
});
