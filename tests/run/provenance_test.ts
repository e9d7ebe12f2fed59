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
