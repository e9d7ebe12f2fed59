// The Python port's audit, written independently, agrees with the TypeScript analysis to 1e-12
// relative: on every built-in scenario's run (a whole bundle, through `audit`) and on fuzzed
// scenarios and observation files (through `analyze`), for every interval method.
import assert from "node:assert/strict";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { builtinScenarioNames } from "../../src/scenario/resolve.ts";
import { prettyJson } from "../../src/json/mod.ts";
import { observationsJsonl, scenarioJson } from "../../src/run/bundle.ts";
import { observationsDataset } from "../../src/run/bundle.ts";
import { signRecord } from "../../src/record/sign.ts";
import type { ProofRecord } from "../../src/record/types.ts";
import { compareAnalyses, fuzzCases, typescriptAnalysis } from "../support/audit_fuzz.ts";

const havepython = await new Deno.Command("python3", { args: ["--version"], stdout: "null" })
  .output().then((o) => o.success, () => false);
if (!havepython && Deno.env.get("EMPIRIC_REQUIRE_ALL") === "1") throw new Error("python3 needed");

async function python(args: string[]): Promise<{ code: number; out: string }> {
  const o = await new Deno.Command("python3", {
    args: ["-m", "empiric_proof", ...args],
    env: { PYTHONPATH: `${ROOT}ports/python/src` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: o.code,
    out: new TextDecoder().decode(o.stdout) + new TextDecoder().decode(o.stderr),
  };
}

Deno.test({
  name: "Python audit: every built-in scenario's bundle agrees; a re-signed change does not",
  ignore: !havepython,
}, async () => {
  const dir = await Deno.makeTempDir();
  const keyText = new TextDecoder().decode(TEST_SIGN_KEY);
  for (const name of builtinScenarioNames()) {
    const r = await runScenarioForTest({ scenario: name }, {
      env: await testEnv(),
      key: TEST_SIGN_KEY,
    });
    const base = `${dir}/${name}`;
    await Deno.writeTextFile(`${base}.json`, prettyJson(r.output.record as never));
    await Deno.writeFile(`${base}.observations.jsonl`, r.output.bundle.observations);
    await Deno.writeFile(`${base}.scenario.json`, r.output.bundle.scenario);
    const ok = await python(["audit", `${base}.json`, "--key", keyText]);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, new RegExp(`^AGREES .* recomputed ${r.outcome} `));

    // One observation changed, the record re-sealed over it with the key: the signature and the
    // verdict check pass (schema validate --key), the audit does not.
    // The change must move the evidence: a 0/1 metric is flipped (the proportion moves); for a
    // measured value, the smallest of the items that succeeded becomes larger than all (every
    // order statistic and the mean move; a failed item's latency is its timeout, not its metric).
    const obs = structuredClone(r.output.observations);
    const metric = Object.keys(obs[0].metrics).find((m) =>
      obs.some((o) => o.ok && o.metrics[m] !== null)
    )!;
    const measured = obs.map((o, i) => ({ v: o.metrics[metric], i })).filter((x) =>
      obs[x.i].ok && x.v !== null
    ) as { v: number; i: number }[];
    const binary = measured.every((x) => x.v === 0 || x.v === 1);
    const k = measured.reduce((a, b) => (b.v < a.v ? b : a)).i;
    obs[k].metrics[metric] = binary
      ? (obs[k].metrics[metric] === 1 ? 0 : 1)
      : Math.max(...measured.map((x) => x.v)) * 10 + 1;
    const changed = observationsJsonl(obs);
    const record = structuredClone(r.output.record) as ProofRecord;
    const i = record.data.datasets.findIndex((d) => d.kind === "observations");
    record.data.datasets[i] = await observationsDataset(changed, obs.length);
    const { signature: _s, ...body } = record;
    const resigned = await signRecord(body as never, TEST_SIGN_KEY);
    await Deno.writeTextFile(`${base}-forged.json`, prettyJson(resigned as never));
    await Deno.writeFile(`${base}-forged.observations.jsonl`, changed);
    await Deno.writeFile(`${base}-forged.scenario.json`, r.output.bundle.scenario);
    const verify = await python(["verify", `${base}-forged.json`, "--key", keyText]);
    assert.equal(verify.code, 0, `the forged record verifies: ${verify.out}`);
    const cli = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        `${ROOT}cli.ts`,
        "schema",
        "validate",
        `${base}-forged.json`,
        "--key",
        keyText,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(cli.code, 0, "schema validate --key passes the forged record");
    const bad = await python(["audit", `${base}-forged.json`, "--key", keyText]);
    assert.equal(bad.code, 2, bad.out);
    assert.match(bad.out, /^DIFFERS /);
    assert.match(bad.out, /evidence_mismatch/);
    const ts = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}cli.ts`, "audit", `${base}-forged.json`, "--key", keyText],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(ts.code, 2, "the TypeScript audit fails it too");
  }
});

Deno.test({
  name: "Python analysis agrees with TypeScript to 1e-12 on fuzzed scenarios and observations",
  ignore: !havepython,
}, async () => {
  const dir = await Deno.makeTempDir();
  const seed = Number(Deno.env.get("EMPIRIC_FUZZ_SEED") ?? 20261124);
  const cases = fuzzCases(seed, 60);
  const methods = new Set<string>();
  const outcomes = new Set<string>();
  for (let k = 0; k < cases.length; k++) {
    const c = cases[k];
    await Deno.writeFile(`${dir}/s.json`, scenarioJson(c.scenario));
    await Deno.writeFile(`${dir}/o.jsonl`, observationsJsonl(c.observations));
    const r = await python([
      "analyze",
      "--scenario",
      `${dir}/s.json`,
      "--observations",
      `${dir}/o.jsonl`,
    ]);
    assert.equal(r.code, 0, r.out);
    const ts = typescriptAnalysis(c);
    const py = JSON.parse(r.out);
    const diffs = compareAnalyses(ts, py);
    if (k === 0) {
      // The comparison can fail: a change far below the tolerance of a print is caught.
      const off = { ...py, observed_value: py.observed_value * (1 + 1e-10) + 1e-300 };
      assert.ok(compareAnalyses(ts, off).length > 0);
    }
    assert.deepEqual(diffs, [], `case ${k} (seed ${seed}, n=${c.observations.length})`);
    for (const p of c.scenario.analysis.pillars) methods.add(p.interval);
    outcomes.add(ts.outcome);
  }
  for (
    const m of [
      "order_statistic",
      "clopper_pearson",
      "wilson",
      "t",
      "bounded",
      "bootstrap_percentile",
      "bootstrap_bca",
      "none",
    ]
  ) assert.ok(methods.has(m), `the fuzz covers ${m}`);
  assert.equal(outcomes.size, 3, "every outcome occurs");
});

Deno.test({
  name:
    "Python audit: a genuine comparative record verifies there and is reported NOT-RECOMPUTED (exit 69), not failed",
  ignore: !havepython,
}, async () => {
  const dir = await Deno.makeTempDir();
  const keyText = new TextDecoder().decode(TEST_SIGN_KEY);
  const scaled = (args: string) => `cmd:python3 ${ROOT}fixtures/substrates/scaled.py ${args}`;
  const r = await runScenarioForTest({
    scenario: `${ROOT}fixtures/compare/compare-value.yaml`,
    substrate: scaled("1.0 0.02 31 --no-sleep"),
    baselineSubstrate: scaled("1.0 0.02 32 --no-sleep"),
  }, { env: await testEnv(), key: TEST_SIGN_KEY });
  const base = `${dir}/cmp`;
  await Deno.writeTextFile(`${base}.json`, prettyJson(r.output.record as never));
  await Deno.writeFile(`${base}.observations.jsonl`, r.output.bundle.observations);
  await Deno.writeFile(`${base}.scenario.json`, r.output.bundle.scenario);
  await Deno.writeFile(`${base}.baseline.observations.jsonl`, r.output.bundle.baseline!);
  // Its verdict check (within, two one-sided bounds, both sides' counts) passes in Python.
  const verify = await python(["verify", `${base}.json`, "--key", keyText]);
  assert.equal(verify.code, 0, verify.out);
  const audit = await python(["audit", `${base}.json`, "--key", keyText]);
  assert.equal(audit.code, 69, audit.out);
  assert.match(audit.out, /^NOT-RECOMPUTED .*comparative claim .*empiric audit/);
  const json = await python(["audit", `${base}.json`, "--key", keyText, "--json"]);
  const result = JSON.parse(json.out);
  assert.deepEqual([result.status, result.agrees, result.differences], [
    "not_recomputed",
    false,
    [],
  ]);
  await Deno.remove(dir, { recursive: true });
});
