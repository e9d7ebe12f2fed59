// Comparative runs end to end with real substrates (fixtures/substrates/scaled.py, a cmd:
// substrate with a known speed and a known answer; the built-in calculator): a 1.5x slowdown is
// REFUTED against "ratio <= 1.05", a 0.6x speed-up VALIDATED, identical systems are not REFUTED
// beyond the rate the level allows, interleaved in the pre-registered order.
import assert from "node:assert/strict";
import { runScenarioForTest } from "../support/ops.ts";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { candidateFirst } from "../../src/run/interleave.ts";
import { parseReproductionCommand } from "../../src/record/command.ts";
import type { JsonObject } from "../../src/json/value.ts";

const SCALED = `${ROOT}fixtures/substrates/scaled.py`;
const LATENCY = `${ROOT}fixtures/compare/compare-latency.yaml`;
const VALUE = `${ROOT}fixtures/compare/compare-value.yaml`;
const ACCURACY = `${ROOT}fixtures/compare/compare-accuracy.yaml`;
const scaled = (args: string) => `cmd:python3 ${SCALED} ${args}`;

Deno.test("interleaved: a 1.5x slowdown is REFUTED, a 0.6x speed-up VALIDATED, identical systems not REFUTED", async () => {
  const env = await testEnv();
  for (
    const [scale, expected] of [["1.5", ["REFUTED"]], ["0.6", ["VALIDATED"]], ["1.0", [
      "VALIDATED",
      "INCONCLUSIVE",
    ]]] as const
  ) {
    const r = await runScenarioForTest({
      scenario: LATENCY,
      substrate: scaled(scale),
      baselineSubstrate: scaled("1.0"),
    }, { env, key: TEST_SIGN_KEY });
    assert.ok((expected as readonly string[]).includes(r.outcome), `${scale}: ${r.reasoning}`);
    assert.equal(r.baseline?.paired, true);
    assert.equal(r.baseline?.measured, 120);
    const rec = r.output.record;
    const v = await verifyRecord(rec as never, { key: TEST_SIGN_KEY });
    assert.deepEqual(v.problems, [], scale);
    // Both substrates are named: section 4's baseline dataset, the PROV agents, the command.
    const base = rec.data.datasets.find((d) => d.kind === "baseline")!;
    assert.equal(base.source, `substrate ${scaled("1.0")}`);
    assert.equal(base.n_records, 120n);
    const agents = rec.provenance.agent as JsonObject;
    const baseAgent = Object.entries(agents).find(([k]) =>
      k.startsWith("empiric:baseline-substrate/")
    );
    assert.ok(baseAgent, "the baseline substrate is a PROV agent");
    assert.equal((baseAgent[1] as JsonObject)["empiric:spec"], scaled("1.0"));
    assert.deepEqual(parseReproductionCommand(rec.reproduction.command)?.baseline, {
      option: "--baseline-substrate",
      value: scaled("1.0"),
    });
    assert.equal(rec.evidence[0].statistic_name, "median_ratio");
    assert.match(rec.pre_registration.analysis_plan, /interleav|item by item/);
    if (scale === "1.5") assert.ok(rec.evidence[0].statistic_value > 1.3);
    if (scale === "0.6") assert.ok(rec.evidence[0].statistic_value < 0.75);
  }
});

Deno.test("interleaved: the substrates are called item by item in the pre-registered order", async () => {
  const env = await testEnv();
  const log = await Deno.makeTempFile({ suffix: ".log" });
  try {
    const r = await runScenarioForTest({
      scenario: VALUE,
      substrate: scaled(`1.0 0.01 1 --no-sleep --log ${log} c`),
      baselineSubstrate: scaled(`1.0 0.01 2 --no-sleep --log ${log} b`),
    }, { env, key: TEST_SIGN_KEY });
    const lines = (await Deno.readTextFile(log)).trim().split("\n");
    // One priming call per side, then two calls per measured item.
    assert.equal(lines.length, 2 + 2 * r.measured);
    const order = candidateFirst(7, r.measured); // compare-value.yaml: seed 7
    for (let i = 0; i < r.measured; i++) {
      const [a, b] = [lines[2 + 2 * i].split(" "), lines[3 + 2 * i].split(" ")];
      assert.equal(a[1], b[1], `item ${i}: both calls are for the same item`);
      assert.equal(
        a[0],
        order[i] ? "c" : "b",
        `item ${i} goes ${order[i] ? "candidate" : "baseline"} first`,
      );
    }
    assert.ok(order.some(Boolean) && order.some((x) => !x));
  } finally {
    await Deno.remove(log);
  }
});

Deno.test("interleaved: identical noisy systems are not REFUTED beyond the level in 20 runs", async () => {
  // Each run's sides draw their noise from different seeds; the equivalence claim (within 5%)
  // holds for the truth (ratio 1), so REFUTED is an error: at most 2.5% of runs in the long
  // run (the calibration table measures the rate); 3 or more of 20 would happen with
  // probability 1.4% at a 2.5% rate.
  const env = await testEnv();
  let refuted = 0, validated = 0;
  for (let k = 0; k < 20; k++) {
    const r = await runScenarioForTest({
      scenario: VALUE,
      substrate: scaled(`1.0 0.02 ${1000 + k} --no-sleep`),
      baselineSubstrate: scaled(`1.0 0.02 ${2000 + k} --no-sleep`),
    }, { env, key: TEST_SIGN_KEY });
    if (r.outcome === "REFUTED") refuted++;
    if (r.outcome === "VALIDATED") validated++;
  }
  assert.ok(refuted <= 2, `${refuted} of 20 identical-system runs REFUTED`);
  assert.ok(validated >= 10, `${validated} of 20 runs VALIDATED: the comparison has power`);
});

Deno.test("interleaved: non-inferiority of a calculator by exact paired proportions (mcnemar)", async () => {
  const env = await testEnv();
  const r = await runScenarioForTest({
    scenario: ACCURACY,
    substrate: `cmd:python3 ${ROOT}fixtures/substrates/calculator.py`,
    baselineSubstrate: "builtin:calculator",
  }, { env, key: TEST_SIGN_KEY });
  assert.equal(r.outcome, "VALIDATED", r.reasoning);
  assert.equal(r.output.record.evidence[0].statistic_value, 0);
  assert.match(r.reasoning, /McNemar/);
  const pillar = Object.values(r.output.record.provenance.entity as JsonObject).find((e) =>
    (e as JsonObject)["empiric:pillar"] === "accuracy.difference"
  ) as JsonObject;
  assert.equal(pillar["empiric:discordant_candidate_only"], 0n);
  assert.equal(pillar["empiric:mcnemar_p"], 1.0);
});

Deno.test("a comparative scenario needs a baseline, and a plain one refuses it", async () => {
  const env = await testEnv();
  await assert.rejects(
    () =>
      runScenarioForTest({ scenario: LATENCY, substrate: scaled("1.0") }, {
        env,
        key: TEST_SIGN_KEY,
      }),
    /--baseline-substrate SUBSTRATE .* or --baseline PROOF/,
  );
  await assert.rejects(
    () =>
      runScenarioForTest({
        scenario: "arithmetic-accuracy",
        baselineSubstrate: "builtin:calculator",
      }, { env, key: TEST_SIGN_KEY }),
    /declares no analysis.comparison/,
  );
  await assert.rejects(
    () =>
      runScenarioForTest({
        scenario: LATENCY,
        substrate: scaled("1.0"),
        baselineSubstrate: scaled("1.0"),
        baseline: "a".repeat(64),
      }, { env, key: TEST_SIGN_KEY }),
    /give one baseline/,
  );
});
