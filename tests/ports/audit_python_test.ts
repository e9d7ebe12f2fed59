// The Python port's audit, written independently, agrees with the TypeScript analysis to 1e-12
// relative: on every built-in scenario's run (a whole bundle, through `audit`), on a comparative
// run (candidate and baseline), and on fuzzed scenarios and observation files, one-sample and
// comparative (through `analyze`), for every interval and comparison method.
import assert from "node:assert/strict";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { builtinScenarioNames } from "../../src/scenario/resolve.ts";
import { prettyJson } from "../../src/json/mod.ts";
import { observationsJsonl, scenarioJson } from "../../src/run/bundle.ts";
import { observationsDataset } from "../../src/run/bundle.ts";
import { signRecord } from "../../src/record/sign.ts";
import type { ProofRecord } from "../../src/record/types.ts";
import {
  comparativeFuzzCases,
  compareAnalyses,
  fuzzCases,
  typescriptAnalysis,
  typescriptComparativeAnalysis,
} from "../support/audit_fuzz.ts";
import { readObservations } from "../../src/run/bundle.ts";
import { sha256Hex } from "../../src/crypto/hash.ts";

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
    "Python audit: a genuine comparative record is recomputed and agrees (exit 0); re-signed changes of its baseline or evidence do not (exit 2)",
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
  const write = async (base: string, record: unknown, baseline: Uint8Array) => {
    await Deno.writeTextFile(`${base}.json`, prettyJson(record as never));
    await Deno.writeFile(`${base}.observations.jsonl`, r.output.bundle.observations);
    await Deno.writeFile(`${base}.scenario.json`, r.output.bundle.scenario);
    await Deno.writeFile(`${base}.baseline.observations.jsonl`, baseline);
  };
  const tsAudit = async (file: string) =>
    (await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}cli.ts`, "audit", file, "--key", keyText],
      stdout: "piped",
      stderr: "piped",
    }).output()).code;
  const base = `${dir}/cmp`;
  await write(base, r.output.record, r.output.bundle.baseline!);
  // Its verdict check (within, two one-sided bounds, both sides' counts) passes in Python.
  const verify = await python(["verify", `${base}.json`, "--key", keyText]);
  assert.equal(verify.code, 0, verify.out);
  // The baseline's observations are found beside the record; both sides are recomputed.
  const audit = await python(["audit", `${base}.json`, "--key", keyText]);
  assert.equal(audit.code, 0, audit.out);
  assert.match(audit.out, new RegExp(`^AGREES .* recomputed ${r.outcome} from 130 observations`));
  const json = await python(["audit", `${base}.json`, "--key", keyText, "--json"]);
  const result = JSON.parse(json.out);
  assert.deepEqual([result.status, result.agrees, result.differences, result.problems], [
    "agrees",
    true,
    [],
    [],
  ]);
  // Without the baseline's observations it cannot be recomputed.
  const alone = `${dir}/alone`;
  await write(alone, r.output.record, r.output.bundle.baseline!);
  await Deno.remove(`${alone}.baseline.observations.jsonl`);
  const missing = await python(["audit", `${alone}.json`, "--key", keyText]);
  assert.equal(missing.code, 2, missing.out);
  assert.match(missing.out, /--baseline-observations/);
  const given = await python([
    "audit",
    `${alone}.json`,
    "--key",
    keyText,
    "--baseline-observations",
    `${base}.baseline.observations.jsonl`,
  ]);
  assert.equal(given.code, 0, given.out);

  // Forged 1: the baseline's smallest value becomes larger than all (the median moves) and the
  // record is re-sealed over the changed file with the key. It verifies; both audits fail it.
  const obs = readObservations(r.output.bundle.baseline!);
  const values = obs.filter((o) => o.ok).map((o) => o.metrics.value!);
  const k = obs.findIndex((o) => o.ok && o.metrics.value === Math.min(...values));
  obs[k].metrics.value = Math.max(...values) * 10 + 1;
  const changed = observationsJsonl(obs);
  const record = structuredClone(r.output.record) as ProofRecord;
  const i = record.data.datasets.findIndex((d) => d.kind === "baseline");
  record.data.datasets[i] = { ...record.data.datasets[i], content_hash: await sha256Hex(changed) };
  const { signature: _s, ...body } = record;
  const forged = `${dir}/forged`;
  await write(forged, await signRecord(body as never, TEST_SIGN_KEY), changed);
  assert.equal((await python(["verify", `${forged}.json`, "--key", keyText])).code, 0);
  const bad = await python(["audit", `${forged}.json`, "--key", keyText]);
  assert.equal(bad.code, 2, bad.out);
  assert.match(bad.out, /^DIFFERS /);
  assert.match(bad.out, /evidence_mismatch/);
  assert.equal(await tsAudit(`${forged}.json`), 2, "the TypeScript audit fails it too");

  // Forged 2: the evidence's lower bound moved and the record re-signed over it.
  const moved = structuredClone(r.output.record) as ProofRecord;
  moved.evidence[0].ci_low = moved.evidence[0].ci_low * (1 + 1e-9);
  const { signature: _m, ...movedBody } = moved;
  const forged2 = `${dir}/forged2`;
  await write(
    forged2,
    await signRecord(movedBody as never, TEST_SIGN_KEY),
    r.output.bundle.baseline!,
  );
  const bad2 = await python(["audit", `${forged2}.json`, "--key", keyText]);
  assert.equal(bad2.code, 2, bad2.out);
  assert.match(bad2.out, /\/evidence\/0\/ci_low: evidence_mismatch/);
  assert.equal(await tsAudit(`${forged2}.json`), 2, "the TypeScript audit fails it too");
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name:
    "Python analysis agrees with TypeScript to 1e-12 on fuzzed comparative scenarios (paired and unpaired, every comparison method)",
  ignore: !havepython,
}, async () => {
  const dir = await Deno.makeTempDir();
  const seed = Number(Deno.env.get("EMPIRIC_FUZZ_SEED") ?? 20261124);
  const cases = comparativeFuzzCases(seed, 30);
  const methods = new Set<string>();
  const outcomes = new Set<string>();
  for (let k = 0; k < cases.length; k++) {
    const c = cases[k];
    await Deno.writeFile(`${dir}/s.json`, scenarioJson(c.scenario));
    await Deno.writeFile(`${dir}/o.jsonl`, observationsJsonl(c.observations));
    await Deno.writeFile(`${dir}/b.jsonl`, observationsJsonl(c.baseline));
    const r = await python([
      "analyze",
      "--scenario",
      `${dir}/s.json`,
      "--observations",
      `${dir}/o.jsonl`,
      "--baseline-observations",
      `${dir}/b.jsonl`,
      c.paired ? "--paired" : "--unpaired",
    ]);
    assert.equal(r.code, 0, r.out);
    const ts = typescriptComparativeAnalysis(c);
    const diffs = compareAnalyses(ts, JSON.parse(r.out));
    assert.deepEqual(diffs, [], `case ${k} (seed ${seed}, paired ${c.paired})`);
    for (const p of c.scenario.analysis.pillars) methods.add(p.interval);
    outcomes.add(ts.outcome);
  }
  for (
    const m of ["order_statistic", "clopper_pearson", "t", "bounded", "mcnemar", "none"]
  ) assert.ok(methods.has(m), `the fuzz covers ${m}`);
  assert.ok(methods.has("bootstrap_percentile"));
  assert.ok(outcomes.size >= 2, "more than one outcome occurs");
  await Deno.remove(dir, { recursive: true });
});
