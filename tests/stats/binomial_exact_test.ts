// binomialUpperTail's table-free path gives exactly 1 - binomialCdfTable(n, p)[k - 1].
import assert from "node:assert/strict";
import { binomialCdfTable, binomialUpperTail } from "../../src/stats/binomial_exact.ts";

Deno.test("binomialUpperTail equals the table's complement bit for bit", () => {
  let checked = 0;
  for (const n of [1, 2, 5, 30, 101, 1000, 20000]) {
    for (const p of [1e-6, 0.01, 0.3, 0.5, 0.95, 0.999999, 0, 1]) {
      const t = binomialCdfTable(n, p);
      for (let k = 0; k <= n + 1; k += Math.max(1, Math.floor(n / 97))) {
        const want = k <= 0 ? 1 : k > n ? 0 : 1 - t[k - 1];
        assert.equal(binomialUpperTail(k, n, p), want, `n=${n} p=${p} k=${k}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 500);
});
