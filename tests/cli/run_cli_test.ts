// End-to-end: `empiric run`, `scenarios`, `proofs` through the real entry point.
import assert from "node:assert/strict";
import { runCli } from "../support/run_cli.ts";
import { PY_CALC } from "../support/env.ts";

const KEY = { EMPIRIC_SIGN_KEY: "empiric-cli-test-key-0123456789abcdef" };

Deno.test("run: prints the verdict and where the record went; the record verifies", async () => {
  const dir = await Deno.makeTempDir();
  const r = await runCli([
    "run",
    "arithmetic-accuracy",
    "--substrate",
    "builtin:calculator",
    "--store",
    `${dir}/store`,
    "--out",
    `${dir}/out.json`,
  ], { env: KEY });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^VALIDATED {2}arithmetic-accuracy on builtin:calculator\n {2}accuracy\.exact_match = 1\.0 \(95% Clopper-Pearson CI 0\.9697 to 1\.0, n=120\)/,
  );
  assert.match(r.stdout, /record: +.*store\/[0-9a-f]{64}\.json/);
  assert.match(r.stdout, /written: +.*out\.json/);
  assert.match(
    r.stderr,
    /progress: 120\/120 items/,
    "plain progress lines when stderr is not a terminal",
  );
  assert.doesNotMatch(r.stderr, /demo key/);
  const v = await runCli(["schema", "validate", `${dir}/out.json`], { env: KEY });
  assert.equal(v.code, 0, v.stdout);
  assert.match(v.stdout, /signature verified/);
  const info = await runCli(["schema", "info", `${dir}/out.json`]);
  assert.match(info.stdout, /kind: +proof/);
});

Deno.test("run: demo key warning, --json output, --no-store", async () => {
  const dir = await Deno.makeTempDir();
  const r = await runCli(["run", "sentiment-accuracy", "--no-store", "--json", "-q"], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning: signing with the public demo key/);
  const out = JSON.parse(r.stdout);
  assert.equal(out.outcome, "REFUTED");
  assert.equal(out.path, null);
  assert.equal(out.substrate, "builtin:keyword-sentiment");
  assert.match(out.proof_id, /^[0-9a-f]{64}$/);
  assert.equal([...Deno.readDirSync(dir)].length, 0, "nothing written with --no-store");
});

Deno.test("run --fail-on: exit 3 when the verdict matches, 0 otherwise", async () => {
  const refuted = await runCli([
    "run",
    "sentiment-accuracy",
    "--no-store",
    "-q",
    "--fail-on",
    "refuted",
  ], { env: KEY });
  assert.equal(refuted.code, 3);
  const ok = await runCli([
    "run",
    "arithmetic-accuracy",
    "--no-store",
    "-q",
    "--fail-on",
    "not-validated",
  ], { env: KEY });
  assert.equal(ok.code, 0);
  const bad = await runCli(["run", "arithmetic-accuracy", "--no-store", "--fail-on", "sometimes"], {
    env: KEY,
  });
  assert.equal(bad.code, 64);
});

Deno.test("run: a cmd: substrate in Python; a failing one reported per item", async () => {
  const r = await runCli([
    "run",
    "arithmetic-accuracy",
    "--substrate",
    `cmd:python3 ${PY_CALC}`,
    "--no-store",
    "-q",
  ], { env: KEY });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^VALIDATED/);
  const crash = await runCli([
    "run",
    "arithmetic-accuracy",
    "--substrate",
    `cmd:python3 ${PY_CALC.replace("calculator", "misbehaving")} crash 60`,
    "--no-store",
    "-q",
  ], { env: KEY });
  assert.equal(crash.code, 0);
  assert.match(crash.stdout, /^INCONCLUSIVE/);
  assert.match(
    crash.stderr,
    /2 of 120 items failed:\n {2}arith-058: crash: process exited \(code 3\)/,
  );
});

Deno.test("run: a substrate that fails every item is not a green step (exit 69), the record kept", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dead = await runCli([
      "run",
      "arithmetic-accuracy",
      "--substrate",
      `cmd:python3 ${PY_CALC.replace("calculator", "misbehaving")} dead`,
      "--store",
      dir,
      "-q",
      "--fail-on",
      "refuted",
    ], { env: KEY });
    assert.equal(dead.code, 69, dead.stderr);
    assert.match(dead.stdout, /^INCONCLUSIVE/);
    assert.match(
      dead.stderr,
      /substrate_unavailable: every one of the 120 items failed \(invalid_response\).*record is kept/,
    );
    const list = JSON.parse((await runCli(["proofs", "list", "--store", dir, "--json"])).stdout);
    assert.equal(list.entries.length, 1);
    assert.equal(list.entries[0].outcome, "INCONCLUSIVE");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run: a corpus item without the probe's input is a dataset error before anything runs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/scenarios`);
    const text = (await Deno.readTextFile(
      new URL("../../fixtures/scenarios/arithmetic-accuracy.yaml", import.meta.url),
    )).replace("name: arithmetic-accuracy", "name: holes").replace(
      "../corpora/arithmetic.jsonl",
      "holes.jsonl",
    );
    await Deno.writeTextFile(`${dir}/scenarios/holes.yaml`, text);
    const corpus = (await Deno.readTextFile(
      new URL("../../fixtures/corpora/arithmetic.jsonl", import.meta.url),
    )).trimEnd().split("\n");
    const broken = JSON.parse(corpus[2]);
    delete broken.input;
    corpus[2] = JSON.stringify(broken);
    await Deno.writeTextFile(`${dir}/scenarios/holes.jsonl`, corpus.join("\n") + "\n");
    // The substrate would leave a mark if it were ever started.
    const r = await runCli([
      "run",
      "holes",
      "--substrate",
      `cmd:sh -c 'touch ${dir}/started; cat'`,
      "--store",
      `${dir}/store`,
    ], { env: KEY, cwd: dir });
    assert.equal(r.code, 65, r.stderr);
    assert.match(
      r.stderr,
      /dataset_invalid: dataset arithmetic \(.*holes\.jsonl\): item 3 .*has no \/input/,
    );
    assert.equal(await Deno.stat(`${dir}/started`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run --out: checked before the run, never overwritten without --force, - for stdout", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = `${dir}/store`;
    const args = ["run", "arithmetic-accuracy", "--store", store, "-q"];
    // A directory that does not exist: refused before anything runs, nothing stored.
    const nowhere = await runCli([...args, "--out", `${dir}/no/such/dir/r.json`], { env: KEY });
    assert.equal(nowhere.code, 74, nowhere.stderr);
    assert.match(nowhere.stderr, /io_error: --out .*no\/such\/dir\/r\.json: cannot write there/);
    assert.equal(await Deno.stat(store).then(() => true, () => false), false, "nothing stored");
    // An existing file: refused (exit 73) unless --force.
    await Deno.writeTextFile(`${dir}/r.json`, "keep me");
    const exists = await runCli([...args, "--out", `${dir}/r.json`], { env: KEY });
    assert.equal(exists.code, 73, exists.stderr);
    assert.match(exists.stderr, /already_exists: --out .*r\.json already exists; give --force/);
    assert.equal(await Deno.readTextFile(`${dir}/r.json`), "keep me");
    assert.equal(await Deno.stat(store).then(() => true, () => false), false, "nothing stored");
    const forced = await runCli([...args, "--out", `${dir}/r.json`, "--force"], { env: KEY });
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/r.json`)).verdict.outcome, "VALIDATED");
    // --out -: the record alone on standard output, the summary on standard error.
    const piped = await runCli([...args, "--out", "-"], { env: KEY });
    assert.equal(piped.code, 0, piped.stderr);
    const record = JSON.parse(piped.stdout);
    assert.match(piped.stderr, new RegExp(`proof_id: ${record.identity.proof_id}`));
    const both = await runCli([...args, "--out", "-", "--json"], { env: KEY });
    assert.equal(both.code, 64);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run: bad input gives a clear error and a documented exit code", async () => {
  const noSuch = await runCli(["run", "no-such-scenario", "--no-store"], { env: KEY });
  assert.equal(noSuch.code, 66, "an unknown scenario is not_found (exit 66) on every surface");
  assert.match(
    noSuch.stderr,
    /not_found: no scenario named "no-such-scenario".*built-ins: arithmetic-accuracy/,
  );
  const sub = await runCli([
    "run",
    "arithmetic-accuracy",
    "--substrate",
    "cmd:definitely-not-installed",
    "--no-store",
  ], { env: KEY });
  assert.equal(sub.code, 69);
  assert.match(sub.stderr, /substrate_unavailable: cannot start definitely-not-installed/);
  const short = await runCli(["run", "arithmetic-accuracy", "--no-store", "--key", "short"]);
  assert.equal(short.code, 64);
  assert.match(
    short.stderr,
    /key_too_short: signing keys must be at least 32 bytes; this one has 5/,
  );
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/broken.yaml`, "name: broken\nclaim: [\n");
  const broken = await runCli(["run", `${dir}/broken.yaml`, "--no-store"], { env: KEY });
  assert.equal(broken.code, 65);
  assert.match(broken.stderr, /broken\.yaml:\d+:\d+:/);
  for (const r of [noSuch, sub, short, broken]) {
    assert.doesNotMatch(r.stderr, /at \S+\.ts:\d+/, "no stack trace");
  }
});

Deno.test("run: scenarios from ./scenarios/ by name", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.mkdir(`${dir}/scenarios`);
  const text = (await Deno.readTextFile(
    new URL("../../fixtures/scenarios/sentiment-accuracy.yaml", import.meta.url),
  ))
    .replace("name: sentiment-accuracy", "name: my-sentiment")
    .replace("value: 0.9,", "value: 0.6,")
    // Wilson's exact one-sided error at n=150 for >= 0.6 exceeds 2.5%: it would be refused.
    .replace("interval: wilson", "interval: clopper_pearson")
    .replace(
      "../corpora/reviews.jsonl",
      new URL("../../fixtures/corpora/reviews.jsonl", import.meta.url).pathname,
    );
  await Deno.writeTextFile(`${dir}/scenarios/my-sentiment.yaml`, text);
  const r = await runCli(["run", "my-sentiment", "-q", "--json"], { cwd: dir, env: KEY });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).outcome, "VALIDATED");
  const list = await runCli(["scenarios", "list", "--json"], { cwd: dir });
  const names = JSON.parse(list.stdout).scenarios.map((s: { name: string }) => s.name);
  assert.deepEqual(names, [
    "my-sentiment",
    "arithmetic-accuracy",
    "echo-latency",
    "sentiment-accuracy",
  ]);
  const proofs = await runCli(["proofs", "list", "--json"], { cwd: dir });
  const page = JSON.parse(proofs.stdout);
  assert.equal(page.total, 1);
  assert.equal(page.entries[0].scenario, "my-sentiment");
});

Deno.test("scenarios list and show", async () => {
  const list = await runCli(["scenarios", "list"]);
  assert.equal(list.code, 0);
  assert.match(
    list.stdout,
    /arithmetic-accuracy +\(built-in\)\n {2}The calculator substrate .*\n {2}claim: accuracy\.exact_match >= 0\.95 proportion\n {2}default substrate: builtin:calculator/,
  );
  const show = await runCli(["scenarios", "show", "echo-latency", "--json"]);
  const s = JSON.parse(show.stdout);
  assert.equal(s.claim.threshold.value, 5);
  assert.match(s.config_hash, /^[0-9a-f]{64}$/);
  assert.equal(s.analysis.pillars[0].interval, "order_statistic");
});

Deno.test("scenarios show prints the pre-registration a run then records, byte for byte", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const shown = await runCli(["scenarios", "show", "arithmetic-accuracy"]);
    assert.equal(shown.code, 0, shown.stderr);
    const out = `${dir}/r.json`;
    const run = await runCli(["run", "arithmetic-accuracy", "--no-store", "--out", out, "-q"], {
      env: KEY,
    });
    assert.equal(run.code, 0, run.stderr);
    const pre = JSON.parse(await Deno.readTextFile(out)).pre_registration;
    assert.ok(shown.stdout.includes(`config_hash:  ${pre.config_hash}\n`), shown.stdout);
    assert.ok(shown.stdout.includes(`data_hash:    ${pre.data_hash}\n`));
    assert.ok(shown.stdout.includes(`analysis plan: ${pre.analysis_plan}\n`));
    const json = JSON.parse(
      (await runCli(["scenarios", "show", "arithmetic-accuracy", "--json"]))
        .stdout,
    );
    assert.deepEqual(
      [json.config_hash, json.data_hash, json.analysis_plan],
      [pre.config_hash, pre.data_hash, pre.analysis_plan],
    );
    // A scenario whose corpus is missing still shows, with the reason data_hash is unknown.
    await Deno.mkdir(`${dir}/scenarios`);
    const text = (await Deno.readTextFile(
      new URL("../../fixtures/scenarios/arithmetic-accuracy.yaml", import.meta.url),
    )).replace("name: arithmetic-accuracy", "name: no-corpus").replace(
      "../corpora/arithmetic.jsonl",
      "missing.jsonl",
    );
    await Deno.writeTextFile(`${dir}/scenarios/no-corpus.yaml`, text);
    const missing = await runCli(["scenarios", "show", "no-corpus"], { cwd: dir });
    assert.equal(missing.code, 0, missing.stderr);
    assert.match(missing.stdout, /data_hash: +\(unknown: .*missing\.jsonl/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("proofs list filters by outcome and scenario", async () => {
  const dir = await Deno.makeTempDir();
  for (const s of ["arithmetic-accuracy", "sentiment-accuracy"]) {
    assert.equal((await runCli(["run", s, "--store", dir, "-q"], { env: KEY })).code, 0);
  }
  const all = await runCli(["proofs", "list", "--store", dir]);
  assert.match(all.stdout, /2 of 2 proofs/);
  const refuted = JSON.parse(
    (await runCli(["proofs", "list", "--store", dir, "--outcome", "REFUTED", "--json"])).stdout,
  );
  assert.equal(refuted.total, 1);
  assert.equal(refuted.entries[0].scenario, "sentiment-accuracy");
  const bad = await runCli(["proofs", "list", "--store", dir, "--outcome", "maybe"]);
  assert.equal(bad.code, 64);
  const re = await runCli(["proofs", "reindex", "--store", dir]);
  assert.match(re.stdout, /indexed 2 records/);
});

Deno.test("run: Ctrl-C exits 130 and SIGTERM 143 with the cancelled code; nothing is stored", async () => {
  const { CLI_FLAGS } = await import("../support/run_cli.ts");
  let hits = 0;
  const arrived = Promise.withResolvers<void>();
  const substrate = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    hits++;
    arrived.resolve();
    await new Promise((r) => setTimeout(r, 50));
    return Response.json({ answer: 1 });
  });
  try {
    for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
      const store = await Deno.makeTempDir();
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...CLI_FLAGS,
          new URL("../../cli.ts", import.meta.url).pathname,
          "run",
          "arithmetic-accuracy",
          "--substrate",
          `http://127.0.0.1:${substrate.addr.port}/`,
          "--store",
          store,
          "-q",
        ],
        env: { ...KEY, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      while (hits === 0) await new Promise((r) => setTimeout(r, 20));
      child.kill(signal);
      const out = await child.output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, code, stderr);
      assert.match(stderr, new RegExp(`empiric: cancelled: .*nothing was stored \\(${signal}\\)`));
      assert.doesNotMatch(stderr, /usage_error|this is a bug/);
      const files = [...Deno.readDirSync(store)].filter((e) => e.name.endsWith(".json"));
      assert.equal(files.length, 0, "nothing stored");
      hits = 0;
    }
  } finally {
    await substrate.shutdown();
  }
});

Deno.test("a closed standard output (empiric … | head) ends quietly", async () => {
  const { CLI_FLAGS } = await import("../support/run_cli.ts");
  const dir = await Deno.makeTempDir();
  // 2 MB of canonical output: far more than a pipe holds, so writing meets the closed pipe.
  await Deno.writeTextFile(`${dir}/big.json`, JSON.stringify({ a: "x".repeat(2_000_000) }));
  const cli = new URL("../../cli.ts", import.meta.url).pathname;
  const script = `"${Deno.execPath()}" run ${
    CLI_FLAGS.join(" ")
  } "${cli}" canonicalize "${dir}/big.json" | head -c 10 > /dev/null; echo "exit=\${PIPESTATUS[0]}"`;
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    env: { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.match(new TextDecoder().decode(out.stdout), /exit=141/, stderr);
  assert.equal(stderr, "", "nothing on stderr: not a bug report, not a stack");
});

Deno.test("the reproduction command pasted into a shell runs the same claim again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-repro-" });
  try {
    // A scenario outside ./scenarios/ (named by its path) and one inside (named by its name),
    // on a substrate whose command line needs quoting.
    const scenario = (await Deno.readTextFile(
      new URL("../../fixtures/scenarios/arithmetic-accuracy.yaml", import.meta.url),
    )).replace(
      "../corpora/arithmetic.jsonl",
      new URL("../../fixtures/corpora/arithmetic.jsonl", import.meta.url).pathname,
    );
    await Deno.mkdir(`${dir}/claims`);
    await Deno.mkdir(`${dir}/scenarios`);
    await Deno.mkdir(`${dir}/my substrate`);
    await Deno.writeTextFile(`${dir}/claims/arith.yaml`, scenario);
    await Deno.writeTextFile(
      `${dir}/scenarios/renamed.yaml`,
      scenario.replace("name: arithmetic-accuracy", "name: arith-by-name"),
    );
    await Deno.copyFile(PY_CALC, `${dir}/my substrate/calc's.py`);
    // `empiric` on PATH: the real entry point with the binary's permissions.
    await Deno.mkdir(`${dir}/bin`);
    const cli = new URL("../../cli.ts", import.meta.url).pathname;
    await Deno.writeTextFile(
      `${dir}/bin/empiric`,
      `#!/bin/sh\nexec "${Deno.execPath()}" run --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys "${cli}" "$@"\n`,
    );
    await Deno.chmod(`${dir}/bin/empiric`, 0o755);
    const substrate = `cmd:python3 "my substrate/calc's.py"`;
    for (
      const [scenarioArg, expected] of [["claims/arith.yaml", "claims/arith.yaml"], [
        "arith-by-name",
        "arith-by-name",
      ]]
    ) {
      const first = await runCli([
        "run",
        scenarioArg,
        "--substrate",
        substrate,
        "--no-store",
        "--out",
        `${dir}/first.json`,
        "--force",
        "-q",
      ], { env: KEY, cwd: dir });
      assert.equal(first.code, 0, first.stderr);
      const record = JSON.parse(await Deno.readTextFile(`${dir}/first.json`));
      const command: string = record.reproduction.command;
      assert.equal(
        command,
        `empiric run ${expected} --substrate 'cmd:python3 "my substrate/calc'\\''s.py"'`,
      );
      const again = await new Deno.Command("sh", {
        args: ["-c", `${command} --no-store --out second.json --force -q`],
        cwd: dir,
        env: { ...KEY, PATH: `${dir}/bin:${Deno.env.get("PATH")}`, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(again.code, 0, new TextDecoder().decode(again.stderr));
      const second = JSON.parse(await Deno.readTextFile(`${dir}/second.json`));
      assert.equal(second.reproduction.command, command);
      assert.equal(second.pre_registration.config_hash, record.pre_registration.config_hash);
      assert.equal(second.verdict.outcome, "VALIDATED");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
