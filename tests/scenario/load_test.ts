// Scenario files: YAML and JSON, defaults, hashes, and errors that name the place.
import assert from "node:assert/strict";
import { configHash, normalizeScenario, parseScenarioText } from "../../src/scenario/load.ts";
import { builtinScenarioNames, loadBuiltinScenario } from "../../src/scenario/resolve.ts";
import { ScenarioError } from "../../src/errors/mod.ts";

const base = await Deno.readTextFile(
  new URL("../../fixtures/scenarios/arithmetic-accuracy.yaml", import.meta.url),
);

function load(text: string, path = "s.yaml") {
  const { value, locate } = parseScenarioText(text, path);
  return normalizeScenario(value, path, locate);
}

function fails(text: string, re: RegExp) {
  assert.throws(() => load(text), (e: unknown) => {
    assert.ok(e instanceof ScenarioError, String(e));
    assert.equal(e.code, "scenario_invalid");
    assert.match(e.message, re);
    return true;
  });
}

Deno.test("built-in scenarios load; defaults are applied", () => {
  for (const n of builtinScenarioNames()) assert.equal(loadBuiltinScenario(n).scenario.name, n);
  const s = load(
    base.replace("  retries: 0\n", "").replace("      interval: clopper_pearson\n", ""),
  );
  assert.equal(s.probe.retries, 0);
  assert.equal(s.analysis.pillars[0].interval, "clopper_pearson");
  assert.equal(s.analysis.on_failure, "inconclusive");
  const q = load(
    base.replace("statistic: proportion\n      interval: clopper_pearson", "statistic: median"),
  );
  assert.equal(q.analysis.pillars[0].interval, "order_statistic");
});

Deno.test("a file written for the first scenario format keeps its config_hash", async () => {
  // tests/scenario/old_format.yaml is echo-latency as it was before issue 13 (BCa and percentile
  // bootstraps, Wilson); the hash was computed by that version of empiric.
  const path = new URL("./old_format.yaml", import.meta.url).pathname;
  const s = load(await Deno.readTextFile(path), path);
  assert.equal(
    await configHash(s),
    "d4951a9a40b36052c1e1be88b7ca034b541614c7dc620b689bffaf9bbd38fff7",
  );
  // Setting a new field to a non-default value changes it.
  const worst = load(
    (await Deno.readTextFile(path)).replace(
      "  decision: interval\n",
      "  decision: interval\n  on_failure: worst\n",
    ),
    path,
  );
  assert.notEqual(await configHash(worst), await configHash(s));
});

Deno.test("config_hash ignores layout and omitted defaults, not content", async () => {
  const a = await configHash(load(base));
  const b = await configHash(load(base.replace("  retries: 0\n", "").replace(/^#.*\n/gm, "")));
  assert.equal(a, b);
  const c = await configHash(load(base.replace("seed: 20261122", "seed: 1")));
  assert.notEqual(a, c);
  const json = JSON.stringify(load(base));
  assert.equal(
    await configHash(load(json, "s.json")),
    a.length ? await configHash(load(json, "s.json")) : "",
  );
});

Deno.test("schema errors name the JSON pointer and the YAML line and column", () => {
  fails(
    base.replace('comparator: ">="', 'comparator: "=~"'),
    /s\.yaml:14:\d+: \/claim\/threshold\/comparator must be one of "<", "<=", ">", ">="/,
  );
  fails(
    base.replace("  concurrency: 1\n", "  concurrency: 0\n"),
    /\/probe\/concurrency must be >= 1/,
  );
  fails(base.replace("  retries: 0\n", "  retries: 0.5\n"), /\/probe\/retries must be an int/);
  fails(base.replace("name: arithmetic-accuracy", "name: Bad Name"), /\/name must match pattern/);
  fails(base + "surprise: 1\n", /\/surprise is not allowed here$/m);
  fails(
    base.replace("  retries: 0\n", "  retires: 0\n"),
    /\/probe\/retires is not allowed here \(did you mean retries\?\)/,
  );
});

Deno.test("YAML syntax errors and duplicate keys give line and column", () => {
  fails(
    base.replace("claim:\n", "claim:\n  h0: x\n  h0: y\n"),
    /s\.yaml:\d+:\d+: .*(unique|duplicate|Map keys)/i,
  );
  fails("name: [unclosed\n", /s\.yaml:\d+:\d+/);
});

Deno.test("cross-field rules: pillars, metrics, statistics and intervals", () => {
  fails(
    base.replace("metric: correct\n", "metric: nope\n"),
    /names metric "nope", which is not declared/,
  );
  fails(
    base.replace("interval: clopper_pearson", "interval: t"),
    /t applies only to statistic mean/,
  );
  fails(
    base.replace("interval: clopper_pearson", "interval: order_statistic"),
    /order_statistic applies only to statistics quantile and median/,
  );
  fails(
    base.replace(
      "statistic: proportion\n      interval: clopper_pearson",
      "statistic: mean\n      interval: bounded",
    ),
    /bounded needs a range \[lo, hi\] on metric correct/,
  );
  fails(
    base.replace(
      "correct: { kind: exact_match, output: /answer, reference: /expected }",
      "correct: { kind: reported, output: /answer }",
    )
      .replace("statistic: proportion\n      interval: clopper_pearson", "statistic: mean")
      .replace("  decision: interval\n", "  decision: interval\n  on_failure: worst\n"),
    /\/metrics\/correct .*needs a worst value/,
  );
  fails(
    base.replace("metric: accuracy.exact_match, comparator", "metric: accuracy.other, comparator"),
    /must name one of the pillars/,
  );
  fails(
    base.replace(
      "correct: { kind: exact_match, output: /answer, reference: /expected }",
      "correct: { kind: exact_match, output: /answer }",
    ),
    /needs both output and reference/,
  );
  fails(
    base.replace("statistic: proportion", "statistic: quantile"),
    /\/p is required for statistic quantile/,
  );
  fails(
    base.replace("    path: ../corpora/arithmetic.jsonl\n", ""),
    /needs exactly one of path or url/,
  );
});
