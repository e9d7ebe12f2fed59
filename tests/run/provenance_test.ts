// The provenance section is W3C PROV-JSON that the Python `prov` package reads.
import assert from "node:assert/strict";
import { pythonModule } from "../support/peers.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { prettyJson } from "../../src/json/mod.ts";
import { TEST_SIGN_KEY, testEnv } from "../support/env.ts";

const checker = new URL("../support/prov_check.py", import.meta.url).pathname;

const haveProv = await pythonModule("prov");

Deno.test({
  name: "provenance is read by the Python prov package (W3C PROV-JSON)",
  ignore: !haveProv,
}, async () => {
  const r = await runScenarioForTest({ scenario: "arithmetic-accuracy", after: ["b".repeat(64)] }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, prettyJson(r.output.record as never));
  const out = await new Deno.Command("python3", {
    args: [checker, file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const res = JSON.parse(new TextDecoder().decode(out.stdout));
  for (
    const k of [
      "ProvEntity",
      "ProvActivity",
      "ProvAgent",
      "ProvUsage",
      "ProvGeneration",
      "ProvAssociation",
      "ProvAttribution",
      "ProvDerivation",
    ]
  ) {
    assert.ok(res.kinds.includes(k), `${k} in ${res.kinds}`);
  }
  assert.ok(res.records >= 12);
});

Deno.test("provenance links datasets, scenario, substrate, run and result", async () => {
  const r = await runScenarioForTest({ scenario: "sentiment-accuracy" }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  const p = r.output.record.provenance as Record<string, Record<string, Record<string, unknown>>>;
  const run = Object.keys(p.activity)[0];
  assert.match(run, /^empiric:run\/[0-9a-f]{32}$/);
  assert.ok(p.entity["empiric:dataset/reviews"]);
  assert.ok(p.entity["empiric:scenario/sentiment-accuracy"]);
  assert.ok(p.agent["empiric:substrate/keyword-sentiment"]);
  const gen = Object.values(p.wasGeneratedBy)[0];
  assert.equal(gen["prov:activity"], run);
  const used = Object.values(p.used).map((u) => u["prov:entity"]);
  assert.deepEqual(used.sort(), ["empiric:dataset/reviews", "empiric:scenario/sentiment-accuracy"]);
  assert.equal(p.activity[run]["prov:startTime"], r.output.record.identity.created_at);
});

/** The verdict from the deciding pillar's provenance alone, with no statistics (issue 14's check). */
function verdictFromProvenance(a: Record<string, unknown>, measured: bigint): string {
  const n = Number(measured);
  const failed = Number(a["empiric:failed_items"]);
  if (n === 0) return "INCONCLUSIVE";
  if (failed / n > (a["empiric:max_failure_rate"] as number)) return "INCONCLUSIVE";
  if (n < Number(a["empiric:min_n"])) return "INCONCLUSIVE";
  const rule = a["empiric:decision_rule"];
  if (rule === "interval" && ("empiric:refused" in a || a["empiric:method"] === "none")) {
    return "INCONCLUSIVE";
  }
  const c = a["empiric:comparator"] as string;
  const t = Number(a["empiric:threshold"]);
  const lo = a["empiric:deciding_low"] as number, hi = a["empiric:deciding_high"] as number;
  const sat = (x: number) => c === "<" ? x < t : c === "<=" ? x <= t : c === ">" ? x > t : x >= t;
  const upper = c === "<" || c === "<=";
  if (sat(upper ? hi : lo)) return "VALIDATED";
  if (!sat(upper ? lo : hi)) return "REFUTED";
  return "INCONCLUSIVE";
}

Deno.test("one provenance entity per pillar; the verdict follows from the deciding one alone", async () => {
  for (const scenario of ["arithmetic-accuracy", "sentiment-accuracy", "echo-latency"]) {
    const r = await runScenarioForTest({ scenario }, { env: await testEnv(), key: TEST_SIGN_KEY });
    const rec = r.output.record;
    const p = rec.provenance as Record<string, Record<string, Record<string, unknown>>>;
    const pillars = Object.entries(p.entity).filter(([id]) => id.includes("/pillar/"));
    assert.equal(pillars.length, rec.evidence.length, scenario);
    for (const [id, attrs] of pillars) {
      const ev = rec.evidence.find((e) => id.endsWith(`/pillar/${e.pillar}`))!;
      assert.equal(attrs["empiric:ci_low"], ev.ci_low);
      assert.equal(attrs["empiric:ci_high"], ev.ci_high);
      assert.equal(attrs["empiric:interval_library"], ev.library);
      assert.equal(attrs["empiric:estimate_library"], "simple-statistics");
      assert.equal(typeof attrs["empiric:n"], "bigint");
      assert.equal(attrs["empiric:confidence"], 0.95);
      assert.equal(attrs["empiric:one_sided_error"], 0.025);
    }
    const deciding = pillars.find(([, a]) => a["empiric:deciding"] === true)![1];
    const run = Object.values(p.activity)[0];
    assert.equal(
      verdictFromProvenance(deciding, run["empiric:measured"] as bigint),
      rec.verdict.outcome,
      scenario,
    );
    assert.equal(deciding["empiric:outcome"], rec.verdict.outcome);
  }
});

Deno.test({
  name: "pillar entities (booleans, ints, floats) are read by the Python prov package",
  ignore: !haveProv,
}, async () => {
  const r = await runScenarioForTest({ scenario: "echo-latency" }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, prettyJson(r.output.record as never));
  const out = await new Deno.Command("python3", { args: [checker, file], stderr: "piped" })
    .output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
});
