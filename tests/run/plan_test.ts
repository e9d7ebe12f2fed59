// `plan`: the smallest decidable n, power and sample size, warnings; the CLI command; and the
// warning `run` prints when min_n is below what the claim needs.
import assert from "node:assert/strict";
import { planOp as planOperation, PlanOutput } from "../../src/ops/plan.ts";
import { invoke } from "../../src/ops/mod.ts";
import type { OpsEnvironment } from "../../src/ops/environment.ts";
import { runScenarioForTest as runScenarioOp, testHost } from "../support/ops.ts";
import { nForPower, powerAt, type PowerQuestion } from "../../src/stats/mod.ts";
import { runCli } from "../support/run_cli.ts";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";

/** `plan_scenario` through the registry, as the CLI calls it. */
async function planOp(
  input: { scenario: string; assume?: number; sd?: number },
  env: OpsEnvironment,
) {
  return await invoke(planOperation, input, await testHost({ env }));
}

async function variant(edit: (text: string) => string): Promise<string> {
  const dir = await Deno.makeTempDir();
  const text = await Deno.readTextFile(`${ROOT}fixtures/scenarios/echo-latency.yaml`);
  await Deno.writeTextFile(
    `${dir}/s.yaml`,
    edit(text).replace("../corpora/requests.jsonl", `${ROOT}fixtures/corpora/requests.jsonl`),
  );
  return `${dir}/s.yaml`;
}

Deno.test("plan: the built-in latency claim", async () => {
  const r = await planOp({ scenario: "echo-latency", assume: 0.99 }, await testEnv());
  PlanOutput.parse(r);
  assert.equal(r.corpus_items, 190);
  assert.equal(r.smallest_decidable_n, 72);
  assert.equal(r.method, "order_statistic");
  assert.equal(r.one_sided_error, 0.025);
  assert.deepEqual(r.warnings, []);
  assert.ok(r.power_at_corpus! > 0.85 && r.power_at_corpus! < 0.9, String(r.power_at_corpus));
  assert.ok(r.n_for_power["0.8"]! <= r.n_for_power["0.9"]!);
});

Deno.test("plan: p99 needs 368 items; min_n 100 and a 190-item corpus are warned about", async () => {
  const path = await variant((t) => t.replace("p: 0.95", "p: 0.99"));
  const r = await planOp({ scenario: path }, await testEnv());
  assert.equal(r.smallest_decidable_n, 368);
  assert.equal(r.power_at_corpus, 0);
  assert.ok(r.warnings.some((w) => /min_n 100 is below 368/.test(w)), r.warnings.join("\n"));
  assert.ok(r.warnings.some((w) => /190 measured items, fewer than the 368/.test(w)));
  // `run` says the same before its (INCONCLUSIVE) verdict.
  const run = await runScenarioOp({ scenario: path }, { env: await testEnv(), key: TEST_SIGN_KEY });
  assert.ok(run.output.warnings.some((w) => /min_n 100 is below 368/.test(w)));
  assert.notEqual(run.outcome, "VALIDATED");
});

Deno.test("plan: refused methods and the point rule are warned about", async () => {
  const boot = await variant((t) =>
    t.replace("p: 0.95\n      interval: order_statistic", "p: 0.95\n      interval: bootstrap_bca")
  );
  const b = await planOp({ scenario: boot }, await testEnv());
  assert.equal(b.smallest_decidable_n, null);
  assert.ok(
    b.warnings.some((w) => /does not hold its level .* every run will be INCONCLUSIVE/.test(w)),
  );
  const point = await variant((t) => t.replace("decision: interval", "decision: point"));
  const p = await planOp({ scenario: point }, await testEnv());
  assert.ok(p.warnings.some((w) => /no error control/.test(w)));
});

Deno.test("power: the n for a target is the smallest with that power (exact search)", () => {
  const q: PowerQuestion = {
    statistic: { kind: "quantile", p: 0.9 },
    method: "order_statistic",
    decision: "interval",
    comparator: "<=",
    threshold: 10,
    confidence: 0.95,
    assume: 0.93,
  };
  for (const target of [0.8, 0.9]) {
    const n = nForPower(q, target)!;
    assert.ok(powerAt(q, n)! >= target);
    for (let m = 1; m < n; m++) assert.ok(powerAt(q, m)! < target, `n=${m}`);
  }
  // A mean without the standard deviation cannot be planned.
  assert.equal(powerAt({ ...q, statistic: { kind: "mean" }, method: "t", assume: 9 }, 50), null);
  assert.ok(
    powerAt({ ...q, statistic: { kind: "mean" }, method: "t", assume: 9, sd: 2 }, 50)! > 0.9,
  );
});

Deno.test("empiric plan: text, --json, and a bad --assume", async () => {
  const text = await runCli(["plan", "sentiment-accuracy"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /smallest decidable n: +36/);
  assert.match(text.stdout, /Wilson's exact error: +1\.4%/);
  const json = await runCli(["plan", "arithmetic-accuracy", "--assume", "0.99", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const r = PlanOutput.parse(JSON.parse(json.stdout));
  assert.equal(r.assumption.source, "given");
  assert.equal(r.smallest_decidable_n, 72);
  const bad = await runCli(["plan", "arithmetic-accuracy", "--assume", "lots"]);
  assert.equal(bad.code, 64);
  assert.match(bad.stderr, /--assume takes a number/);
});
