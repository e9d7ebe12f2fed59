// Observations from elsewhere (`run --observations FILE --from FORMAT`): real output files made
// by hyperfine (Debian's package) and pytest-benchmark (PyPI), k6's JSON output and summary in
// their documented formats (k6 itself is AGPL-licensed and is not built here), and JSON Lines.
import assert from "node:assert/strict";
import { peer, pythonModule } from "../support/peers.ts";
import { ROOT } from "../support/env.ts";
import { sha256Hex } from "../../src/crypto/hash.ts";
import { importResults } from "../../src/run/import.ts";
import { parseReproductionCommand } from "../../src/record/command.ts";

const haveHyperfine = await peer(
  "hyperfine",
  () =>
    new Deno.Command("hyperfine", { args: ["--version"], stdout: "null" }).output().then(
      (o) => o.success,
      () => false,
    ),
  "apt-get install hyperfine",
);
const havePytestBenchmark = await pythonModule("pytest_benchmark", "pytest-benchmark");
const KEY = "empiric-import-test-key-0123456789abcdef";
const FIX = `${ROOT}fixtures/import/`;

async function empiric(args: string[], cwd: string) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli.ts`, ...args],
    cwd,
    env: { EMPIRIC_SIGN_KEY: KEY, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: o.code,
    out: new TextDecoder().decode(o.stdout),
    err: new TextDecoder().decode(o.stderr),
  };
}

/** Judge a file, then check the record names it by hash and the bundle audits clean. */
async function judge(
  dir: string,
  scenario: string,
  file: string,
  format: string,
  extra: string[] = [],
) {
  const r = await empiric([
    "run",
    `${FIX}${scenario}`,
    "--observations",
    file,
    "--from",
    format,
    "--out",
    `${dir}/r.json`,
    "--force",
    "--no-store",
    "--json",
    ...extra,
  ], dir);
  assert.equal(r.code, 0, r.err);
  const out = JSON.parse(r.out);
  const record = JSON.parse(await Deno.readTextFile(`${dir}/r.json`));
  const ds = record.data.datasets;
  assert.equal(ds[0].kind, "observations");
  assert.equal(ds[0].content_hash, await sha256Hex(await Deno.readFile(file)), "the file's hash");
  assert.equal(ds[0].n_records, out.measured);
  assert.equal(ds[1].name, "observations");
  const command = parseReproductionCommand(record.reproduction.command)!;
  assert.equal(command.substrate, `import:${format}`);
  assert.match(command.scenario, new RegExp(`${scenario.replace(".", "\\.")}$`));
  const audit = await empiric(["audit", `${dir}/r.json`, "--key", KEY], dir);
  assert.equal(audit.code, 0, audit.out + audit.err);
  const validate = await empiric(["schema", "validate", `${dir}/r.json`, "--key", KEY], dir);
  assert.equal(validate.code, 0, validate.out);
  return { out, record };
}

Deno.test({
  name: "import: a real hyperfine --export-json file (every run an item, failed runs count)",
  ignore: !haveHyperfine,
}, async () => {
  const dir = await Deno.makeTempDir();
  const hf = await new Deno.Command("hyperfine", {
    args: ["-N", "--runs", "80", "--warmup", "3", "--export-json", `${dir}/hf.json`, "true"],
    stdout: "null",
    stderr: "null",
  }).output();
  assert.ok(hf.success);
  const { out, record } = await judge(dir, "command-latency.yaml", `${dir}/hf.json`, "hyperfine");
  assert.equal(out.measured, 80);
  assert.equal(record.data.substrate_name, "true");
  assert.deepEqual(out.failures, []);
  // A command that fails every other run: failed runs are failed items, never dropped.
  const bad = await new Deno.Command("hyperfine", {
    args: [
      "-i",
      "--runs",
      "10",
      "--export-json",
      `${dir}/bad.json`,
      "-n",
      "flaky",
      "sh -c 'test $(($(date +%N) % 2)) -eq 0'",
      "true",
    ],
    stdout: "null",
    stderr: "null",
  }).output();
  assert.ok(bad.success);
  const amb = await empiric(
    [
      "run",
      `${FIX}command-latency.yaml`,
      "--observations",
      `${dir}/bad.json`,
      "--from",
      "hyperfine",
      "--no-store",
    ],
    dir,
  );
  assert.equal(amb.code, 64, "two commands: --select is needed");
  assert.match(amb.err, /has 2 commands .*--select/);
  const r = await judge(dir, "command-latency.yaml", `${dir}/bad.json`, "hyperfine", [
    "--select",
    "true",
  ]);
  assert.equal(r.out.measured, 10);
  const file = JSON.parse(await Deno.readTextFile(`${dir}/bad.json`));
  const flaky = file.results.find((x: { command: string }) => x.command !== "true");
  const imported = importResults(
    "hyperfine",
    await Deno.readFile(`${dir}/bad.json`),
    "bad.json",
    flaky.command,
  );
  const failed = flaky.exit_codes.filter((c: number) => c !== 0).length;
  assert.equal(imported.outcomes.filter((o) => !o.ok).length, failed);
});

Deno.test({
  name: "import: a real pytest-benchmark --benchmark-json file (each round an item)",
  ignore: !havePytestBenchmark,
}, async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/test_b.py`,
    "def test_sum(benchmark):\n    benchmark.pedantic(sum, args=(range(100),), rounds=40, iterations=5)\n\n" +
      "def test_sorted(benchmark):\n    benchmark.pedantic(sorted, args=(list(range(50)),), rounds=30)\n",
  );
  const py = await new Deno.Command("python3", {
    args: [
      "-m",
      "pytest",
      "-q",
      "-p",
      "no:cacheprovider",
      `--benchmark-json=${dir}/pb.json`,
      "test_b.py",
    ],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(py.success, new TextDecoder().decode(py.stdout));
  const { out, record } = await judge(
    dir,
    "benchmark-median.yaml",
    `${dir}/pb.json`,
    "pytest-benchmark",
    [
      "--select",
      "test_sum",
    ],
  );
  assert.equal(out.measured, 40);
  assert.match(record.data.substrate_name, /test_sum/);
  assert.equal(out.outcome, "VALIDATED", out.reasoning); // sum of 100 ints is far below 1 ms
});

Deno.test("import: k6 points (documented --out json format), a k6 summary is refused", async () => {
  const dir = await Deno.makeTempDir();
  const { out } = await judge(dir, "http-latency.yaml", `${FIX}k6-points.jsonl`, "k6");
  assert.equal(out.measured, 200);
  assert.equal(out.failures.length, 3, "requests tagged expected_response false are failed items");
  const summary = await empiric([
    "run",
    `${FIX}http-latency.yaml`,
    "--observations",
    `${FIX}k6-summary.json`,
    "--from",
    "k6",
    "--no-store",
  ], dir);
  assert.equal(summary.code, 64);
  assert.match(summary.err, /k6 summary .*aggregates only.*--out json/);
});

Deno.test("import: JSON Lines; bad files and options are usage errors naming the file", async () => {
  const dir = await Deno.makeTempDir();
  const { out } = await judge(dir, "score-mean.yaml", `${FIX}scores.jsonl`, "jsonl");
  assert.equal(out.measured, 120);
  assert.equal(out.outcome, "VALIDATED", out.reasoning);
  await Deno.writeTextFile(`${dir}/bad.jsonl`, '{"score": 0.5}\nnot json\n');
  const bad = await empiric(
    [
      "run",
      `${FIX}score-mean.yaml`,
      "--observations",
      `${dir}/bad.jsonl`,
      "--from",
      "jsonl",
      "--no-store",
    ],
    dir,
  );
  assert.equal(bad.code, 64);
  assert.match(bad.err, /bad\.jsonl \(jsonl\): line 2 is not JSON/);
  const both = await empiric(
    ["run", `${FIX}score-mean.yaml`, "--observations", `${dir}/bad.jsonl`, "--no-store"],
    dir,
  );
  assert.equal(both.code, 64);
  assert.match(both.err, /--observations FILE and --from FORMAT go together/);
  // A scenario without a corpus can only judge results.
  const run = await empiric([
    "run",
    `${FIX}score-mean.yaml`,
    "--substrate",
    "builtin:echo",
    "--no-store",
  ], dir);
  assert.equal(run.code, 65);
  assert.match(run.err, /no corpus .*--observations/);
});
