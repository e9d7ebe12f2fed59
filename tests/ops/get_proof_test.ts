// get_proof names a stored proof by its id or by a prefix of it: one match is the record, none
// is not_found, several are a usage_error that lists them.
import assert from "node:assert/strict";
import { invoke } from "../../src/ops/mod.ts";
import { getProofOp } from "../../src/ops/proof_index.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { openStore } from "../../src/store/store.ts";
import { manyRecords, recordBytes } from "../support/records.ts";
import { testHost } from "../support/ops.ts";

Deno.test("get_proof: a prefix names one proof; an ambiguous one lists the matches", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Enough records that two share a first hex digit (16 digits, 40 records).
    const records = await manyRecords(40);
    const store = await openStore(dir, { create: true });
    try {
      for (const r of records) await store.putBytes(recordBytes(r));
    } finally {
      await store.close();
    }
    const ids = records.map((r) => r.identity.proof_id).sort();
    const host = await testHost({ store: dir });
    try {
      const one = await invoke(getProofOp, { proof_id: ids[3].slice(0, 10) }, host);
      assert.equal(one.proof_id, ids[3]);
      assert.equal(JSON.parse(one.record_json).identity.proof_id, ids[3]);
      assert.equal((await invoke(getProofOp, { proof_id: ids[3] }, host)).proof_id, ids[3]);
      // Two ids with a common 4-character prefix are made by hand: the index files ids as
      // given (the store checks their form, verification checks their value).
      const twin = records[0];
      const a = structuredClone(twin);
      a.identity.proof_id = "beef" + "0".repeat(60);
      const b = structuredClone(twin);
      b.identity.proof_id = "beef" + "1".repeat(60);
      const s = await openStore(dir);
      try {
        await s.putBytes(recordBytes(a));
        await s.putBytes(recordBytes(b));
      } finally {
        await s.close();
      }
      await assert.rejects(
        () => invoke(getProofOp, { proof_id: "beef" }, host),
        (e) =>
          e instanceof EmpiricError && e.code === "usage_error" &&
          /prefix beef names 2 stored proofs \(beef0000.*…, beef1111.*…\): give more characters/
            .test(e.message),
      );
      assert.equal(
        (await invoke(getProofOp, { proof_id: "beef1" }, host)).proof_id,
        b.identity.proof_id,
      );
      await assert.rejects(
        () => invoke(getProofOp, { proof_id: "beef2" }, host),
        (e) => e instanceof EmpiricError && e.code === "not_found",
      );
    } finally {
      await host.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
