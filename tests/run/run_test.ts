// run_scenario end to end, in process: built-ins, determinism, cmd: and http:// substrates,
// crashing, hanging and garbage substrates.
import assert from "node:assert/strict";
import { runScenarioForTest } from "../support/ops.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { builtinScenarioNames } from "../../src/scenario/resolve.ts";
import { PY_BAD, PY_CALC, TEST_SIGN_KEY, testEnv } from "../support/env.ts";

const EXPECTED: Record<string, string> = {
  "arithmetic-accuracy": "VALIDATED",
  "sentiment-accuracy": "REFUTED",
  "echo-latency": "VALIDATED",
};

Deno.test("every built-in scenario runs and its record validates and verifies", async () => {
  const env = await testEnv();
  assert.deepEqual(builtinScenarioNames(), Object.keys(EXPECTED).sort());
  for (const name of builtinScenarioNames()) {
    const r = await runScenarioForTest({ scenario: name }, { env, key: TEST_SIGN_KEY });
    assert.equal(r.outcome, EXPECTED[name], `${name}: ${r.reasoning}`);
    const v = await verifyRecord(r.output.record as never, { key: TEST_SIGN_KEY });
    assert.deepEqual(v.problems, [], name);
    assert.equal(v.verified, true);
    const rec = r.output.record;
    assert.match(rec.reproduction.command, new RegExp(`^empiric run ${name} --substrate builtin:`));
    assert.equal(rec.evidence[0].library, "empiric");
    assert.match(rec.evidence[0].cross_check, /^jstat 1\.9\.6 .*agrees within/);
    for (
      const k of ["empiric", "deno", "v8", "typescript", "os", "arch", "simple-statistics", "jstat"]
    ) {
      assert.ok(k in rec.reproduction.environment, `environment has ${k}`);
    }
    assert.ok(rec.verdict.reasoning.includes(`n=`), "reasoning names n");
    assert.equal(rec.data.datasets[0].n_records, BigInt(r.output.datasets[0].items.length));
  }
});

Deno.test("the accuracy scenario is deterministic under SOURCE_DATE_EPOCH", async () => {
  const env = await testEnv({ SOURCE_DATE_EPOCH: "1795000000" });
  const a = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env,
    key: TEST_SIGN_KEY,
  });
  const b = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env,
    key: TEST_SIGN_KEY,
  });
  assert.equal(a.proof_id, b.proof_id);
  assert.equal(a.output.record.identity.created_at, "2026-11-18T11:06:40Z");
  assert.ok(!("os" in a.output.record.reproduction.environment), "host details left out");
  const later = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env: await testEnv({ SOURCE_DATE_EPOCH: "1795000001" }),
    key: TEST_SIGN_KEY,
  });
  assert.notEqual(later.proof_id, a.proof_id);
  const sentiment1 = await runScenarioForTest({ scenario: "sentiment-accuracy" }, {
    env,
    key: TEST_SIGN_KEY,
  });
  const sentiment2 = await runScenarioForTest({ scenario: "sentiment-accuracy" }, {
    env,
    key: TEST_SIGN_KEY,
  });
  assert.equal(sentiment1.proof_id, sentiment2.proof_id);
});

Deno.test("a cmd: substrate written in Python runs end to end", async () => {
  const env = await testEnv();
  const r = await runScenarioForTest({
    scenario: "arithmetic-accuracy",
    substrate: `cmd:python3 ${PY_CALC}`,
  }, { env, key: TEST_SIGN_KEY });
  assert.equal(r.outcome, "VALIDATED", r.reasoning);
  assert.equal(r.output.record.data.substrate_name, "calculator.py");
  assert.match(r.output.record.data.substrate_git_commit, /^[0-9a-f]{40}$|^unknown$/);
  assert.equal(r.failures.length, 0);
  // The environment names the machine and the substrate's runtime, as far as they are knowable.
  const environment = r.output.record.reproduction.environment;
  const python = new TextDecoder().decode(
    (await new Deno.Command("python3", { args: ["--version"] }).output()).stdout,
  ).trim();
  assert.equal(environment.substrate_runtime, python);
  assert.equal(environment.cpu_cores, String(navigator.hardwareConcurrency));
  if (Deno.build.os === "linux") {
    const cpuinfo = await Deno.readTextFile("/proc/cpuinfo");
    const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1].trim();
    if (model) assert.equal(environment.cpu_model, model);
  }
});

Deno.test("an http:// substrate on loopback runs end to end", async () => {
  const { evaluateExpression } = await import("../../src/substrate/builtin.ts");
  const { canonicalize, parseJson } = await import("../../src/json/mod.ts");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = parseJson(await req.text()) as { expression: string };
    return new Response(canonicalize({ answer: evaluateExpression(body.expression) }), {
      headers: { "content-type": "application/json" },
    });
  });
  try {
    const env = await testEnv();
    const url = `http://127.0.0.1:${server.addr.port}/calc`;
    const r = await runScenarioForTest({
      scenario: "arithmetic-accuracy",
      substrate: url,
      substrateName: "calc-service",
      substrateCommit: "v1.2.3",
    }, { env, key: TEST_SIGN_KEY });
    assert.equal(r.outcome, "VALIDATED", r.reasoning);
    assert.equal(r.output.record.data.substrate_name, "calc-service");
    assert.equal(r.output.record.data.substrate_git_commit, "v1.2.3");
    assert.equal(
      r.output.record.reproduction.command,
      `empiric run arithmetic-accuracy --substrate ${url}`,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("an http:// substrate answering errors and garbage gives INCONCLUSIVE with reasons", async () => {
  let n = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    n++;
    if (n % 3 === 0) return new Response("oops", { status: 500 });
    if (n % 3 === 1) return new Response("not json");
    return Response.json({ answer: 1 });
  });
  try {
    const r = await runScenarioForTest({
      scenario: "arithmetic-accuracy",
      substrate: `http://127.0.0.1:${server.addr.port}/`,
    }, { env: await testEnv(), key: TEST_SIGN_KEY });
    assert.equal(r.outcome, "INCONCLUSIVE");
    assert.match(r.reasoning, /items failed .*maximum failure rate/);
    const kinds = new Set(r.failures.map((f) => f.kind));
    assert.ok(kinds.has("http_error") && kinds.has("invalid_response"), [...kinds].join(","));
  } finally {
    await server.shutdown();
  }
});

for (
  const [mode, kind] of [["crash", "crash"], ["garbage", "invalid_response"], [
    "hang",
    "timeout",
  ]] as const
) {
  Deno.test(`a ${mode}ing cmd: substrate is reported per item and gives INCONCLUSIVE`, async () => {
    const dir = await Deno.makeTempDir();
    // a scenario with a short timeout so the hanging case stays quick
    const yaml = (await Deno.readTextFile(
      `${new URL("../../fixtures/scenarios/arithmetic-accuracy.yaml", import.meta.url).pathname}`,
    ))
      .replace("timeout_ms: 2000", "timeout_ms: 300")
      .replace(
        "../corpora/arithmetic.jsonl",
        `${new URL("../../fixtures/corpora/arithmetic.jsonl", import.meta.url).pathname}`,
      );
    await Deno.writeTextFile(`${dir}/s.yaml`, yaml);
    const r = await runScenarioForTest({
      scenario: `${dir}/s.yaml`,
      substrate: `cmd:python3 ${PY_BAD} ${mode} 40`,
    }, { env: await testEnv(), key: TEST_SIGN_KEY });
    assert.equal(r.outcome, "INCONCLUSIVE", r.reasoning);
    assert.equal(r.failures.length, 3);
    assert.ok(r.failures.every((f) => f.kind === kind), JSON.stringify(r.failures));
    // Each (re)started process is primed with one call outside any clock, so request 40 of a
    // process is its 39th measured item.
    assert.deepEqual(r.failures.map((f) => f.id), ["arith-038", "arith-077", "arith-116"]);
    assert.equal(r.measured, 120);
  });
}

Deno.test("a substrate that cannot start is a clear error (substrate_unavailable)", async () => {
  const env = await testEnv();
  await assert.rejects(
    runScenarioForTest({
      scenario: "arithmetic-accuracy",
      substrate: "cmd:no-such-program-anywhere",
    }, {
      env,
      key: TEST_SIGN_KEY,
    }),
    { code: "substrate_unavailable" },
  );
  await assert.rejects(
    runScenarioForTest({ scenario: "arithmetic-accuracy", substrate: "builtin:nope" }, {
      env,
      key: TEST_SIGN_KEY,
    }),
    /built-ins: builtin:echo/,
  );
  await assert.rejects(
    runScenarioForTest({ scenario: "arithmetic-accuracy", substrate: "ftp://x" }, {
      env,
      key: TEST_SIGN_KEY,
    }),
    { code: "usage_error" },
    "a substrate nobody can open is the caller's mistake, not an unavailable substrate",
  );
  // A process that exits before answering anything: nothing can be measured, so no record.
  await assert.rejects(
    runScenarioForTest({
      scenario: "arithmetic-accuracy",
      substrate: `cmd:python3 ${PY_BAD} silent`,
    }, { env, key: TEST_SIGN_KEY }),
    (e: Error & { code?: string }) =>
      e.code === "substrate_unavailable" && /priming call.*refusing to start/.test(e.message),
  );
});

Deno.test("signing keys shorter than 32 bytes are refused before anything runs", async () => {
  await assert.rejects(
    runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
      env: await testEnv(),
      key: new TextEncoder().encode("short"),
    }),
    { code: "key_too_short" },
  );
});

Deno.test("--after ids must be proof ids; lineage is recorded", async () => {
  const env = await testEnv();
  await assert.rejects(
    runScenarioForTest({ scenario: "arithmetic-accuracy", after: ["abc"] }, {
      env,
      key: TEST_SIGN_KEY,
    }),
    { code: "usage_error" },
  );
  const id = "a".repeat(64);
  const r = await runScenarioForTest({ scenario: "arithmetic-accuracy", after: [id] }, {
    env,
    key: TEST_SIGN_KEY,
  });
  assert.deepEqual(r.output.record.reproduction.lineage_chain, [id]);
});

Deno.test("cancellation stops a run between calls", async () => {
  const ctl = new AbortController();
  const p = runScenarioForTest({ scenario: "echo-latency" }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
    signal: ctl.signal,
    onProgress: (pr) => pr.phase === "measure" && pr.done === 5 && ctl.abort(),
  });
  await assert.rejects(p, /cancelled/);
});
