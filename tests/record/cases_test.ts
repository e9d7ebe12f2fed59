// Every case of fixtures/records/cases.json (records signed by an independent Python signer).
import assert from "node:assert/strict";
import { verifyRecord } from "../../src/record/mod.ts";
import { keyFromText } from "../../src/crypto/mod.ts";

const dir = new URL("../../fixtures/records/", import.meta.url);
const manifest = JSON.parse(await Deno.readTextFile(new URL("cases.json", dir))) as {
  keys_utf8: Record<string, string>;
  cases: { file: string; key: string | null; expect: string; note?: string }[];
};

// Our structure code is schema_invalid, a superset of the ports' record_structure.
const equivalent = (code: string) => code === "record_structure" ? "schema_invalid" : code;

for (const c of manifest.cases) {
  Deno.test(`record case: ${c.file} key=${c.key} -> ${c.expect}`, async () => {
    const bytes = await Deno.readFile(new URL(c.file, dir));
    const key = c.key === null ? undefined : keyFromText(manifest.keys_utf8[c.key]);
    const r = await verifyRecord(bytes, { key });
    if (c.expect === "valid") {
      assert.deepEqual(r.problems, []);
      assert.equal(r.valid, true);
      assert.equal(r.verified, key !== undefined);
      assert.match(r.proof_id!, /^[0-9a-f]{64}$/);
    } else {
      assert.equal(r.valid, false);
      assert.equal(r.verified, false);
      assert.equal(r.reason, equivalent(c.expect), JSON.stringify(r.problems));
      assert.ok(r.problems.every((p) => p.message.length > 0));
    }
  });
}
