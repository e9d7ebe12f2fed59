// The proof store: atomic files, an index that survives concurrent writers and killed runs,
// lineage by direct predecessor, reindex.
import assert from "node:assert/strict";
import { DirectoryStore, STALE_TEMPORARY_MS } from "../../src/store/store.ts";
import { invoke, readProofIndexOp } from "../../src/ops/mod.ts";
import { prettyJson } from "../../src/json/pretty.ts";
import { parseJson } from "../../src/json/parse.ts";
import { signRecord } from "../../src/record/sign.ts";
import type { JsonValue } from "../../src/json/value.ts";
import type { ProofRecord } from "../../src/record/types.ts";
import { runScenarioForTest, testHost } from "../support/ops.ts";
import { runCli } from "../support/run_cli.ts";
import { TEST_SIGN_KEY, testEnv } from "../support/env.ts";

async function page(dir: string, filter: Record<string, unknown> = {}) {
  const host = await testHost({ store: dir });
  try {
    return await invoke(readProofIndexOp, filter, host);
  } finally {
    await host.close();
  }
}

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
  const p = await page(dir, { limit: 100 });
  assert.equal(p.total, 8);
  assert.deepEqual(p.entries.map((e) => e.proof_id).sort(), [...ids].sort());
  const names = [...Deno.readDirSync(dir)].map((e) => e.name);
  const files = names.filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
  assert.equal(files.length, 8, "eight record files");
  assert.deepEqual(names.filter((n) => n.endsWith(".tmp")), [], "no temporary leftovers");
  for (const id of ids) {
    assert.ok(names.includes(`${id}.observations.jsonl`), "observations beside each record");
    assert.ok(names.includes(`${id}.scenario.json`), "the scenario beside each record");
  }
  assert.ok(![...Deno.readDirSync(dir)].some((e) => e.name.endsWith(".tmp")));
});

Deno.test("lineage: a run links its direct predecessor only, and the provenance nodes join", async () => {
  const dir = await Deno.makeTempDir();
  const env = await testEnv();
  const deps = { env, key: TEST_SIGN_KEY, store: dir };
  const a = await runScenarioForTest({ scenario: "sentiment-accuracy" }, deps);
  const b = await runScenarioForTest({ scenario: "sentiment-accuracy" }, deps);
  const c = await runScenarioForTest({ scenario: "sentiment-accuracy" }, deps);
  const other = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, deps);
  assert.deepEqual(a.output.record.reproduction.lineage_chain, []);
  assert.deepEqual(b.output.record.reproduction.lineage_chain, [a.proof_id]);
  assert.deepEqual(c.output.record.reproduction.lineage_chain, [b.proof_id], "not [a, b]");
  assert.deepEqual(other.output.record.reproduction.lineage_chain, []);
  // b's reference to a is the very node a's graph gave its result.
  const aResult = Object.values(
    a.output.record.provenance.wasGeneratedBy as JsonValue as Record<
      string,
      Record<string, string>
    >,
  )[0]["prov:entity"];
  const bEntities = b.output.record.provenance.entity as Record<string, Record<string, unknown>>;
  assert.ok(aResult in bEntities, `${aResult} is a node of b's graph`);
  assert.equal(bEntities[aResult]["empiric:proof_id"], a.proof_id);
  // The record does not grow with the number of earlier runs.
  const size = (r: typeof a) => prettyJson(r.output.record as unknown as JsonValue).length;
  assert.ok(Math.abs(size(c) - size(b)) < 64, `${size(b)} vs ${size(c)}`);

  assert.equal((await page(dir, { outcome: "REFUTED" })).total, 3);
  assert.equal(
    (await page(dir, { scenario: "arithmetic-accuracy" })).entries[0].proof_id,
    other.proof_id,
  );
  // The index can be rebuilt from the files alone.
  await Deno.remove(`${dir}/index.sqlite`);
  await Deno.remove(`${dir}/index.sqlite-wal`).catch(() => {});
  await Deno.remove(`${dir}/index.sqlite-shm`).catch(() => {});
  const reopened = await DirectoryStore.open(dir);
  try {
    assert.equal(await reopened.count(), 4);
    assert.equal(await reopened.getText("0".repeat(64)), undefined);
    assert.equal(await reopened.getText("not-an-id"), undefined);
  } finally {
    await reopened.close();
  }
});

/** Many distinct signed records, made fast from one real record by changing its time. */
async function manyRecords(n: number): Promise<ProofRecord[]> {
  const r = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env: await testEnv({ SOURCE_DATE_EPOCH: "1790000000" }),
    key: TEST_SIGN_KEY,
  });
  const base = parseJson(prettyJson(r.output.record as unknown as JsonValue)) as unknown as
    & ProofRecord
    & Record<string, unknown>;
  const out: ProofRecord[] = [];
  for (let i = 0; i < n; i++) {
    const rec = structuredClone(base);
    const { signature: _s, ...body } = rec;
    const t = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(".000Z", "Z");
    body.identity = { ...body.identity, created_at: t };
    delete (body.identity as { proof_id?: string }).proof_id;
    out.push(await signRecord(body as never, TEST_SIGN_KEY));
  }
  return out;
}

Deno.test("reindex while eight runs write: every record on disk ends up indexed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-reindex-" });
  const seed = await DirectoryStore.open(dir);
  try {
    for (const rec of await manyRecords(3000)) await seed.put(rec);
  } finally {
    await seed.close();
  }
  // Reindex over and over while eight runs, started 400 ms apart, store their records.
  let done = false;
  const reindexes = (async () => {
    const out = [];
    while (!done) out.push(await runCli(["proofs", "reindex", "--store", dir]));
    return out;
  })();
  const runs = Array.from({ length: 8 }, async (_, i) => {
    await new Promise((r) => setTimeout(r, i * 400));
    return await runCli([
      "run",
      "arithmetic-accuracy",
      "--store",
      dir,
      "-q",
      "--json",
      "--substrate-name",
      `calc-${i}`,
    ], { env: { EMPIRIC_SIGN_KEY: "k".repeat(32) } });
  });
  const rs = await Promise.all(runs);
  done = true;
  const rx = await reindexes;
  for (const r of [...rx, ...rs]) assert.equal(r.code, 0, r.stderr);
  const files = [...Deno.readDirSync(dir)].filter((e) => /^[0-9a-f]{64}\.json$/.test(e.name));
  assert.equal(files.length, 3008);
  const store = await DirectoryStore.open(dir);
  try {
    const indexed = new Set((await store.list()).entries.map((e) => e.proof_id));
    const missing = files.map((f) => f.name.slice(0, 64)).filter((id) => !indexed.has(id));
    assert.deepEqual(missing, [], "records on disk missing from the index");
    assert.equal(store.consistency.indexed, 0, "nothing was left for the catch-up to do");
  } finally {
    await store.close();
  }
});

Deno.test("a run killed between rename and index insert, or mid-write, is caught up on open", async () => {
  const dir = await Deno.makeTempDir();
  const [a, b] = await manyRecords(2);
  const store = await DirectoryStore.open(dir);
  try {
    await store.put(a);
  } finally {
    await store.close();
  }
  // Killed after the rename: the file is there, the index row is not.
  await Deno.writeTextFile(`${dir}/${b.identity.proof_id}.json`, prettyJson(b as never));
  // Killed mid-write: an empty temporary file, long ago.
  const tmp = `${dir}/.${b.identity.proof_id}.json.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(tmp, "");
  const old = new Date(Date.now() - STALE_TEMPORARY_MS - 60_000);
  await Deno.utime(tmp, old, old);
  // A fresh temporary of a writer still at work is left alone.
  const fresh = `${dir}/.x.json.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(fresh, "");

  const r = await runCli(["proofs", "list", "--store", dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /index and its files disagreed \(1 record files were not indexed/);
  assert.match(r.stdout, /2 of 2 proofs/);
  assert.ok(!(await Deno.stat(tmp).then(() => true, () => false)), "stale temporary removed");
  assert.ok(await Deno.stat(fresh).then(() => true, () => false), "fresh temporary kept");
  const again = await runCli(["proofs", "list", "--store", dir]);
  assert.equal(again.stderr, "", "no warning once the index agrees");
});

Deno.test("proofs list on a missing store says so and creates nothing", async () => {
  const dir = `${await Deno.makeTempDir()}/nowhere`;
  const r = await runCli(["proofs", "list", "--store", dir]);
  assert.equal(r.code, 66, r.stderr);
  assert.match(r.stderr, /^empiric: not_found: no proof store at .*nowhere/);
  assert.equal(await Deno.stat(dir).then(() => true, () => false), false);
});
