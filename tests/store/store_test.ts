// The proof store: atomic files, an index that survives concurrent writers, lineage, reindex.
import assert from "node:assert/strict";
import { ProofStore } from "../../src/store/store.ts";
import { runScenarioOp } from "../../src/ops/run_scenario.ts";
import { readProofIndex } from "../../src/ops/proof_index.ts";
import { runCli } from "../support/run_cli.ts";
import { TEST_SIGN_KEY, testEnv } from "../support/env.ts";

Deno.test("eight concurrent `empiric run` processes into one store lose no index entry", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-store-" });
  const runs = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) =>
        runCli([
          "run",
          "arithmetic-accuracy",
          "--store",
          dir,
          "-q",
          "--json",
          "--substrate-name",
          `calc-${i}`,
        ], {
          env: { EMPIRIC_SIGN_KEY: "k".repeat(32) },
        }),
    ),
  );
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const ids = runs.map((r) => JSON.parse(r.stdout).proof_id);
  assert.equal(new Set(ids).size, 8);
  const store = await ProofStore.open(dir);
  try {
    const page = readProofIndex(store, { limit: 100 });
    assert.equal(page.total, 8);
    assert.deepEqual(page.entries.map((e) => e.proof_id).sort(), [...ids].sort());
    const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".json"));
    assert.equal(files.length, 8, "eight record files, no temporary leftovers");
    assert.ok(![...Deno.readDirSync(dir)].some((e) => e.name.endsWith(".tmp")));
  } finally {
    store.close();
  }
});

Deno.test("lineage: later runs of the same scenario on the same substrate list the earlier proofs", async () => {
  const dir = await Deno.makeTempDir();
  const store = await ProofStore.open(dir);
  try {
    const env = await testEnv();
    const a = await runScenarioOp({ scenario: "sentiment-accuracy" }, {
      env,
      key: TEST_SIGN_KEY,
      store,
    });
    const b = await runScenarioOp({ scenario: "sentiment-accuracy" }, {
      env,
      key: TEST_SIGN_KEY,
      store,
    });
    const c = await runScenarioOp({ scenario: "arithmetic-accuracy" }, {
      env,
      key: TEST_SIGN_KEY,
      store,
    });
    assert.deepEqual(a.output.record.reproduction.lineage_chain, []);
    assert.deepEqual(b.output.record.reproduction.lineage_chain, [a.proof_id]);
    assert.deepEqual(c.output.record.reproduction.lineage_chain, []);
    assert.equal(readProofIndex(store, { outcome: "refuted" }).total, 2);
    assert.equal(
      readProofIndex(store, { scenario: "arithmetic-accuracy" }).entries[0].proof_id,
      c.proof_id,
    );
    assert.equal(readProofIndex(store, { limit: 1, offset: 1 }).entries.length, 1);
    assert.throws(() => readProofIndex(store, { outcome: "MAYBE" }), { code: "usage_error" });
    assert.throws(() => readProofIndex(store, { limit: 0 }), { code: "usage_error" });
    // the index can be rebuilt from the files alone
    await Deno.remove(`${dir}/index.sqlite`);
    await Deno.remove(`${dir}/index.sqlite-wal`).catch(() => {});
    await Deno.remove(`${dir}/index.sqlite-shm`).catch(() => {});
  } finally {
    store.close();
  }
  const reopened = await ProofStore.open(dir);
  try {
    assert.equal(readProofIndex(reopened).total, 3);
    assert.equal(await reopened.getText("0".repeat(64)), undefined);
    assert.equal(await reopened.getText("not-an-id"), undefined);
  } finally {
    reopened.close();
  }
});
