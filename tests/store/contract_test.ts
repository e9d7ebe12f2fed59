// The store contract: one suite run against both back ends (a directory with its SQLite index,
// and a real PostgreSQL server), so that they cannot drift. Each case gets a fresh store.
import assert from "node:assert/strict";
import { openStore } from "../../src/store/store.ts";
import type { ProofStore } from "../../src/store/types.ts";
import type { EmpiricError } from "../../src/errors/errors.ts";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
import { prettyJson } from "../../src/json/pretty.ts";
import type { JsonValue } from "../../src/json/value.ts";
import type { ProofRecord } from "../../src/record/types.ts";
import { ROOT, TEST_SIGN_KEY, testEnv } from "../support/env.ts";
import { runScenarioForTest, testHost } from "../support/ops.ts";
import { invoke } from "../../src/ops/mod.ts";
import { auditProofOp } from "../../src/ops/audit_proof.ts";
import { type PgServer, postgresAvailable, startPostgres } from "../support/postgres.ts";
import { makeRecord, manyRecords, recordBytes } from "../support/records.ts";

interface Backend {
  /** A fresh, empty store location. */
  fresh(): Promise<string>;
  /** Make the index lose every row (the records stay). */
  dropIndex(location: string): Promise<void>;
}

type Case = (b: Backend) => Promise<void>;

const enc = new TextEncoder();
const dec = new TextDecoder();

async function withStore<T>(location: string, f: (s: ProofStore) => Promise<T>): Promise<T> {
  const s = await openStore(location);
  try {
    return await f(s);
  } finally {
    await s.close();
  }
}

/** The record's file bytes in an unusual layout (tabs, CRLF), which must survive unchanged. */
function oddLayout(r: ProofRecord): Uint8Array<ArrayBuffer> {
  return enc.encode(
    prettyJson(r as unknown as JsonValue).replaceAll("\n  ", "\r\n\t").replaceAll("  ", "\t"),
  );
}

const CASES: Record<string, Case> = {
  "a record is kept byte for byte and still verifies": async (b) => {
    const loc = await b.fresh();
    const r = await makeRecord();
    const bytes = oddLayout(r);
    assert.match(dec.decode(bytes), /\d\.0\b/, "the record has a float written with .0");
    await withStore(loc, async (s) => {
      const put = await s.putBytes(bytes);
      assert.equal(put.created, true);
      assert.equal(put.entry.proof_id, r.identity.proof_id);
      assert.deepEqual(await s.getBytes(r.identity.proof_id), bytes);
      assert.equal(await s.getText(r.identity.proof_id), dec.decode(bytes));
      const v = await verifyProofImpl((await s.getBytes(r.identity.proof_id))!, {
        key: TEST_SIGN_KEY,
      });
      assert.equal(v.verified, true);
    });
    // And after reopening (another process would see the same).
    await withStore(loc, async (s) => {
      assert.deepEqual(await s.getBytes(r.identity.proof_id), bytes);
    });
  },

  "storing a proof again keeps the first bytes, and only adds parts it lacked": async (b) => {
    const loc = await b.fresh();
    const obs = enc.encode('{"id":"1","value":1.0}\n{"id":"2","value":2.5}\n');
    const scenario = { name: "s", version: 1.0 } as unknown as JsonValue;
    const r = await makeRecord({ observations: obs, scenarioValue: scenario });
    const first = recordBytes(r);
    const second = oddLayout(r);
    const scenarioBytes = enc.encode(prettyJson(scenario));
    await withStore(loc, async (s) => {
      const a = await s.putBytes(first, { observations: obs });
      assert.deepEqual([a.created, a.partsAdded], [true, ["observations"]]);
      const again = await s.putBytes(second, {
        observations: enc.encode("other"),
        scenario: scenarioBytes,
      });
      assert.deepEqual([again.created, again.partsAdded], [false, ["scenario"]]);
      const bundle = (await s.getBundle(r.identity.proof_id))!;
      assert.deepEqual(bundle.record, first, "the first bytes are kept");
      assert.deepEqual(bundle.parts.observations, obs, "a stored part is never replaced");
      assert.deepEqual(bundle.parts.scenario, scenarioBytes);
      assert.equal(await s.count(), 1, "one row");
    });
  },

  "bundle parts come back exactly; a record without parts has none": async (b) => {
    const loc = await b.fresh();
    const obs = new Uint8Array([0x7b, 0x7d, 0x0a, 0xe2, 0x82, 0xac, 0x0a]);
    const [r1, r2] = [await makeRecord({ second: 1 }), await makeRecord({ second: 2 })];
    await withStore(loc, async (s) => {
      await s.putBytes(recordBytes(r1), { observations: obs, scenario: enc.encode("{}") });
      await s.put(r2);
      const b1 = (await s.getBundle(r1.identity.proof_id))!;
      assert.deepEqual(b1.parts.observations, obs);
      assert.deepEqual(b1.parts.scenario, enc.encode("{}"));
      const b2 = (await s.getBundle(r2.identity.proof_id))!;
      assert.deepEqual(b2.parts, {});
      assert.deepEqual(b2.record, recordBytes(r2), "put writes the pretty JSON bytes");
      assert.equal(await s.getBundle("f".repeat(64)), undefined);
    });
  },

  "a comparative run keeps its baseline part, and the stored bundle audits clean": async (b) => {
    const loc = await b.fresh();
    const scaled = (args: string) =>
      `cmd:python3 ${ROOT}fixtures/substrates/scaled.py ${args} --no-sleep`;
    const run = await runScenarioForTest({
      scenario: `${ROOT}fixtures/compare/compare-value.yaml`,
      substrate: scaled("1.0 0.02 21"),
      baselineSubstrate: scaled("1.0 0.02 22"),
    }, { env: await testEnv(), key: TEST_SIGN_KEY, store: loc });
    const id = run.output.record.identity.proof_id;
    await withStore(loc, async (s) => {
      const bundle = (await s.getBundle(id))!;
      assert.ok(run.output.bundle.baseline, "the run has a baseline part");
      assert.deepEqual(bundle.parts.baseline, run.output.bundle.baseline);
      assert.deepEqual(bundle.parts.observations, run.output.bundle.observations);
    });
    // audit_proof by proof_id reads all three parts from the store.
    const host = await testHost({ key: TEST_SIGN_KEY, store: loc });
    try {
      const audit = await invoke(auditProofOp, { proof_id: id }, host);
      assert.deepEqual([audit.problems, audit.differences], [[], []]);
      assert.equal(audit.checks.baseline, "pass");
      assert.equal(audit.agrees, true);
    } finally {
      await host.close();
    }
  },

  "list: newest first; scenario, substrate, outcome and time filters": async (b) => {
    const loc = await b.fresh();
    const recs = [
      await makeRecord({
        second: 10,
        scenario: "alpha",
        substrate: "builtin:echo",
        outcome: "REFUTED",
      }),
      await makeRecord({
        second: 20,
        scenario: "alpha",
        substrate: "builtin:calculator",
        outcome: "REFUTED",
      }),
      await makeRecord({ second: 30, scenario: "beta", outcome: "VALIDATED" }),
      // 00:00:00.250Z, written with an offset: sorted by the instant, not the text.
      await makeRecord({ createdAt: "2026-01-01T01:00:00.250+01:00", outcome: "REFUTED" }),
      await makeRecord({ second: 40, scenario: "beta", outcome: "INCONCLUSIVE" }),
    ];
    await withStore(loc, async (s) => {
      for (const r of recs) await s.put(r);
      const ids = async (f: Parameters<ProofStore["list"]>[0]) =>
        (await s.list(f)).entries.map((e) => e.created_at);
      assert.deepEqual(await ids({}), [
        "2026-01-01T00:00:40Z",
        "2026-01-01T00:00:30Z",
        "2026-01-01T00:00:20Z",
        "2026-01-01T00:00:10Z",
        "2026-01-01T01:00:00.250+01:00",
      ]);
      assert.deepEqual(await ids({ scenario: "alpha" }), [
        "2026-01-01T00:00:20Z",
        "2026-01-01T00:00:10Z",
      ]);
      assert.deepEqual(await ids({ scenario: "alpha", substrate: "builtin:echo" }), [
        "2026-01-01T00:00:10Z",
      ]);
      assert.deepEqual(await ids({ outcome: "VALIDATED" }), ["2026-01-01T00:00:30Z"]);
      // [after, before): after is inclusive, before exclusive; offsets are honoured.
      assert.deepEqual(
        await ids({
          created_after: "2026-01-01T00:00:20Z",
          created_before: "2026-01-01T00:00:40Z",
        }),
        ["2026-01-01T00:00:30Z", "2026-01-01T00:00:20Z"],
      );
      assert.deepEqual(await ids({ created_after: "2026-01-01T01:00:00.1+01:00" }), [
        "2026-01-01T00:00:40Z",
        "2026-01-01T00:00:30Z",
        "2026-01-01T00:00:20Z",
        "2026-01-01T00:00:10Z",
        "2026-01-01T01:00:00.250+01:00",
      ]);
      assert.equal(await s.count({ created_before: "2026-01-01T00:00:10Z" }), 1);
      assert.equal(await s.count({ scenario: "beta" }), 2);
      assert.equal(await s.count({ scenario: "nothing" }), 0);
      await assert.rejects(
        () => s.list({ created_after: "yesterday" }),
        (e: EmpiricError) => e.code === "usage_error" && /RFC 3339/.test(e.message),
      );
      const e = (await s.list({ limit: 1 })).entries[0];
      assert.equal(e.scenario, "beta");
      assert.equal(e.outcome, "INCONCLUSIVE");
      assert.equal(e.path, s.pathOf(e.proof_id));
      assert.equal(typeof e.observed_value, "number");
    });
  },

  "keyset pages visit every entry once, in order, ties in created_at included": async (b) => {
    const loc = await b.fresh();
    // 30 records over 10 distinct seconds: three share each created_at.
    const recs: ProofRecord[] = [];
    for (let i = 0; i < 30; i++) {
      recs.push(await makeRecord({ second: i % 10, substrate: `builtin:s${i}` }));
    }
    await withStore(loc, async (s) => {
      await Promise.all(recs.map((r) => s.put(r)));
      const all = (await s.list()).entries.map((e) => e.proof_id);
      assert.equal(all.length, 30);
      assert.equal((await s.list()).next_cursor, null);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const p = await s.list({ limit: 7, cursor });
        seen.push(...p.entries.map((e) => e.proof_id));
        cursor = p.next_cursor ?? undefined;
        pages++;
      } while (cursor);
      assert.equal(pages, 5);
      assert.deepEqual(seen, all, "pages concatenate to the full order");
      // Ties are broken by proof_id, descending.
      const byTime = (await s.list()).entries;
      for (let i = 1; i < byTime.length; i++) {
        const [p, q] = [byTime[i - 1], byTime[i]];
        if (p.created_at === q.created_at) assert.ok(p.proof_id > q.proof_id);
      }
      // offset still works and agrees with the order.
      assert.deepEqual(
        (await s.list({ limit: 5, offset: 12 })).entries.map((e) => e.proof_id),
        all.slice(12, 17),
      );
      // A page exactly at the end has no next cursor.
      const last = await s.list({ limit: 30 });
      assert.equal(last.next_cursor, null);
      await assert.rejects(
        () => s.list({ cursor: "bm90IGEgY3Vyc29y" }),
        (e: EmpiricError) => e.code === "usage_error" && /cursor/.test(e.message),
      );
    });
  },

  "predecessor: the latest of scenario and substrate, ties to the greater proof_id": async (b) => {
    const loc = await b.fresh();
    const a = await makeRecord({ second: 5, substrate: "builtin:x" });
    const tie1 = await makeRecord({ second: 9, substrate: "builtin:x", outcome: "VALIDATED" });
    const tie2 = await makeRecord({ second: 9, substrate: "builtin:x", outcome: "INCONCLUSIVE" });
    const other = await makeRecord({ second: 99, substrate: "builtin:y" });
    await withStore(loc, async (s) => {
      for (const r of [tie1, a, other, tie2]) await s.put(r);
      const expected = [tie1, tie2].map((r) => r.identity.proof_id).sort().at(-1)!;
      const p = (await s.predecessor("arithmetic-accuracy", "builtin:x"))!;
      assert.equal(p.proof_id, expected);
      assert.match(p.entity ?? "", /^empiric:run\/[0-9a-f]+\/result$/);
      assert.equal(await s.predecessor("arithmetic-accuracy", "builtin:z"), undefined);
      assert.deepEqual(await s.link("e".repeat(64)), { proof_id: "e".repeat(64) });
    });
  },

  "concurrent writers: one record from eight lands once; forty records all land": async (b) => {
    const loc = await b.fresh();
    const one = await makeRecord({ second: 1 });
    const forty = await manyRecords(40, { substrate: "builtin:many" });
    const stores = await Promise.all(Array.from({ length: 8 }, () => openStore(loc)));
    try {
      const results = await Promise.all(stores.map((s) => s.putBytes(recordBytes(one))));
      assert.equal(results.filter((r) => r.created).length, 1, "exactly one writer created it");
      await Promise.all(forty.map((r, i) => stores[i % 8].put(r)));
      assert.equal(await stores[0].count(), 41);
      const listed = new Set((await stores[3].list()).entries.map((e) => e.proof_id));
      assert.equal(listed.size, 41);
    } finally {
      for (const s of stores) await s.close();
    }
  },

  "unknown and malformed ids are simply absent": async (b) => {
    const loc = await b.fresh();
    await withStore(loc, async (s) => {
      assert.equal(await s.getText("0".repeat(64)), undefined);
      assert.equal(await s.getText("../../etc/passwd"), undefined);
      assert.equal(await s.getBytes("A".repeat(64)), undefined);
      await assert.rejects(
        () => s.putBytes(enc.encode('{"identity": {}}')),
        (e: EmpiricError) => e.code === "record_structure",
      );
      await assert.rejects(
        () => s.putBytes(enc.encode("{nope")),
        (e: EmpiricError) => e.code === "syntax_error",
      );
    });
  },

  "id prefixes find stored proofs; entries carry the threshold's units": async (b) => {
    const loc = await b.fresh();
    const records = await manyRecords(40);
    await withStore(loc, async (s) => {
      for (const r of records) await s.putBytes(recordBytes(r));
      const ids = records.map((r) => r.identity.proof_id).sort();
      // Every one-character prefix, against the ids computed here.
      for (const c of "0123456789abcdef") {
        assert.deepEqual(
          await s.idsWithPrefix(c, 100),
          ids.filter((id) => id.startsWith(c)),
          c,
        );
      }
      const one = ids[7];
      assert.deepEqual(await s.idsWithPrefix(one.slice(0, 12), 5), [one]);
      assert.deepEqual(await s.idsWithPrefix(one, 5), [one]);
      assert.equal((await s.idsWithPrefix("", 100)).length, 0, "an empty prefix names nothing");
      assert.deepEqual(await s.idsWithPrefix("%", 5), []);
      assert.deepEqual(await s.idsWithPrefix("_", 5), []);
      assert.ok((await s.idsWithPrefix(ids[0].slice(0, 1), 2)).length <= 2, "limit");
      const [entry] = (await s.list({ limit: 1 })).entries;
      assert.equal(entry.units, records[0].verdict.threshold.units);
    });
  },

  "reindex rebuilds a lost index from the records": async (b) => {
    const loc = await b.fresh();
    const recs = await manyRecords(12);
    await withStore(loc, async (s) => {
      for (const r of recs) await s.put(r);
    });
    await b.dropIndex(loc);
    await withStore(loc, async (s) => {
      assert.equal(await s.reindex(), 12);
      assert.equal(await s.count(), 12);
      assert.equal(
        (await s.list({ limit: 1 })).entries[0].proof_id,
        recs.at(-1)!.identity.proof_id,
      );
    });
  },

  "migrations: opening applies them once; a second open has nothing to do": async (b) => {
    const loc = await b.fresh();
    const first = await withStore(loc, (s) => s.migrate());
    assert.ok(first.version >= 1);
    const again = await withStore(loc, (s) => s.migrate());
    assert.deepEqual(again, { version: first.version, applied: [] });
  },

  "a store that does not exist is not_found without create, and nothing is created": async (
    b,
  ) => {
    const loc = await b.fresh();
    const missing = loc.startsWith("postgres")
      ? loc // a fresh database has no tables until a store is opened with create
      : `${loc}/nowhere`;
    await assert.rejects(
      () => openStore(missing, { create: false }),
      (e: EmpiricError) => e.code === "not_found",
    );
    await assert.rejects(
      () => openStore(missing, { create: false }),
      (e: EmpiricError) => e.code === "not_found",
      "still missing",
    );
  },
};

async function runCases(t: Deno.TestContext, backend: Backend): Promise<void> {
  for (const [name, f] of Object.entries(CASES)) {
    const ok = await t.step(name, () => f(backend));
    if (!ok) continue;
  }
}

Deno.test("store contract: directory and SQLite index", async (t) => {
  await runCases(t, {
    fresh: async () => await Deno.makeTempDir({ prefix: "empiric-contract-" }),
    dropIndex: async (dir) => {
      for (const f of ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"]) {
        await Deno.remove(`${dir}/${f}`).catch(() => {});
      }
    },
  });
});

const pgAvailable = await postgresAvailable();

Deno.test({
  name: "store contract: PostgreSQL",
  ignore: !pgAvailable,
  fn: async (t) => {
    const pg: PgServer = await startPostgres();
    try {
      await runCases(t, {
        fresh: () => pg.database(),
        dropIndex: async (url) => {
          const sql = pg.sql(new URL(url).pathname.slice(1));
          try {
            await sql`DELETE FROM empiric_proof_index`;
          } finally {
            await sql.end();
          }
        },
      });
    } finally {
      await pg.stop();
    }
  },
});
