// Honest measurement with known-behaviour substrates (fixtures/substrates/scripted.py): timeouts,
// retries, abstention, restarts, start-up, concurrency and mostly-failing runs, end to end.
import assert from "node:assert/strict";
import { runScenarioForTest } from "../support/ops.ts";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";

const SCRIPTED = `${ROOT}fixtures/substrates/scripted.py`;

interface Spec {
  threshold: [string, string, number, string];
  metrics: Record<string, unknown>;
  pillars: Record<string, unknown>[];
  probe?: Record<string, unknown>;
  analysis?: Record<string, unknown>;
}

/** Write a scenario and its corpus to a temporary directory; returns the scenario path. */
async function scenarioWith(spec: Spec, items: Record<string, unknown>[]): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/items.jsonl`, items.map((x) => JSON.stringify(x)).join("\n"));
  const [metric, comparator, value, units] = spec.threshold;
  const scenario = {
    name: "measure",
    claim: {
      statement: "s",
      operationalization: "o",
      threshold: { metric, comparator, value, units },
      h0: "h0",
      h1: "h1",
    },
    datasets: [{ name: "items", path: "items.jsonl", kind: "corpus" }],
    probe: { send: "", timeout_ms: 150, ...spec.probe },
    metrics: spec.metrics,
    analysis: { min_n: 10, max_failure_rate: 0.5, ...spec.analysis, pillars: spec.pillars },
  };
  // Floats must stay floats in the file (5.0, not 5).
  const text = JSON.stringify(
    scenario,
    (_k, v) => typeof v === "number" && !Number.isInteger(v) ? v : v,
  ).replace(
    /"value":(\d+)([,}])/,
    '"value":$1.0$2',
  );
  await Deno.writeTextFile(`${dir}/s.json`, text);
  return `${dir}/s.json`;
}

const latency = {
  threshold: ["latency.median", "<=", 50, "ms"] as [string, string, number, string],
  metrics: { lat: { kind: "latency_ms" } },
  pillars: [{ name: "latency.median", metric: "lat", statistic: "median" }],
};

Deno.test("restarts, start-up and extra workers stay off every item's clock", async () => {
  // Every process sleeps 400 ms before reading: charged to any item, it would show.
  const items = Array.from({ length: 40 }, (_, i) => ({
    id: `i${i}`,
    sleep_ms: 1,
    do: i === 5 || i === 21 ? "hang" : "answer",
  }));
  const path = await scenarioWith({ ...latency, probe: { concurrency: 3 } }, items);
  const r = await runScenarioForTest({
    scenario: path,
    substrate: `cmd:python3 ${SCRIPTED} --startup-ms 400`,
  }, { env: await testEnv(), key: TEST_SIGN_KEY });
  const obs = r.output.observations;
  assert.equal(obs.length, 40);
  const answered = obs.filter((o) => o.ok);
  assert.equal(answered.length, 38);
  const worst = Math.max(...answered.map((o) => o.latency_ms!));
  assert.ok(worst < 300, `an answered item took ${worst} ms: start-up or a restart was charged`);
  for (const o of obs.filter((o) => !o.ok)) {
    assert.equal(o.failure!.kind, "timeout");
    assert.ok(o.censored && o.latency_ms! >= 150, JSON.stringify(o));
  }
  // The run records the harness's own overhead.
  const activity = Object.values(
    r.output.record.provenance.activity as Record<string, Record<string, unknown>>,
  )[0];
  assert.equal(activity["empiric:harness_calls"], 200n);
  assert.ok((activity["empiric:harness_overhead_median_ms"] as number) < 5);
});

Deno.test("a retried item's latency runs from its first attempt; attempts are kept and reported", async () => {
  const state = await Deno.makeTempDir();
  const items = Array.from({ length: 20 }, (_, i) => ({
    id: `i${i}`,
    do: i % 4 === 1 ? "fail_first" : "answer", // item 0 primes each process
  }));
  const path = await scenarioWith({ ...latency, probe: { retries: 1 } }, items);
  const r = await runScenarioForTest({
    scenario: path,
    substrate: `cmd:python3 ${SCRIPTED} --state ${state}`,
  }, { env: await testEnv(), key: TEST_SIGN_KEY });
  assert.equal(r.failures.length, 0, "the retries succeeded");
  assert.equal(r.output.analysis.retried.length, 5);
  for (const o of r.output.observations) {
    if (o.item % 4 === 1) {
      assert.equal(o.attempts, 2);
      assert.deepEqual(o.attempt_failures, ["timeout"]);
      assert.ok(o.latency_ms! >= 150, `retried item measured ${o.latency_ms} ms`);
    } else {
      assert.equal(o.attempts, 1);
      assert.equal(o.attempt_failures, undefined);
    }
  }
  assert.match(r.reasoning, /5 items needed retries/);
});

Deno.test("items a substrate abstains on count as wrong", async () => {
  const items = Array.from({ length: 40 }, (_, i) => ({
    id: `i${i}`,
    answer: 1,
    expected: 1,
    do: i < 4 ? "abstain" : "answer",
  }));
  const path = await scenarioWith({
    threshold: ["accuracy.exact", ">=", 0.5, "proportion"],
    metrics: { correct: { kind: "exact_match", output: "/answer", reference: "/expected" } },
    pillars: [{ name: "accuracy.exact", metric: "correct", statistic: "proportion" }],
  }, items);
  const r = await runScenarioForTest({ scenario: path, substrate: `cmd:python3 ${SCRIPTED}` }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  assert.equal(r.output.record.evidence[0].statistic_value, 0.9, "36 of 40, not 36 of 36");
  assert.equal(r.failures.length, 4);
  assert.ok(r.failures.every((f) => f.kind === "invalid_response"));
});

Deno.test("a run where 29 of 30 items fail still produces an INCONCLUSIVE record", async () => {
  const items = Array.from({ length: 30 }, (_, i) => ({
    id: `i${i}`,
    value: 2.5,
    do: i === 0 ? "answer" : "abstain",
  }));
  const path = await scenarioWith({
    threshold: ["value.mean", "<=", 5, "x"],
    metrics: { v: { kind: "reported", output: "/value" } },
    pillars: [{ name: "value.mean", metric: "v", statistic: "mean" }],
    analysis: { max_failure_rate: 1.0 },
  }, items);
  const r = await runScenarioForTest({ scenario: path, substrate: `cmd:python3 ${SCRIPTED}` }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  assert.equal(r.outcome, "INCONCLUSIVE");
  assert.equal(r.measured, 30);
  assert.match(r.reasoning, /29 failed items have no value/);
});

Deno.test("open loop: each call is measured from its scheduled start", async () => {
  // 50 calls/s (every 20 ms) against a substrate that takes 35 ms: calls queue, and the queueing
  // counts; a closed loop would report about 35 ms for every call.
  const items = Array.from({ length: 30 }, (_, i) => ({ id: `i${i}`, sleep_ms: 35 }));
  const path = await scenarioWith({ ...latency, probe: { arrival_rate: 50.0 } }, items);
  const r = await runScenarioForTest({ scenario: path, substrate: `cmd:python3 ${SCRIPTED}` }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  const obs = r.output.observations;
  assert.deepEqual(obs.slice(0, 3).map((o) => o.scheduled_ms), [0, 20, 40]);
  const last = obs[obs.length - 1];
  assert.ok(last.latency_ms! > 250, `the last call waited ${last.latency_ms} ms`);
  assert.match(
    r.output.record.pre_registration.analysis_plan,
    /open loop at 50\.0 calls per second/,
  );
});
