import assert from "node:assert/strict";
import { CROSS_CHECK_LIBRARY, CROSS_CHECK_TOLERANCE, STATS_LIBRARY } from "../../src/stats/mod.ts";

Deno.test("library: names and versions match the import map", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  ) as { imports: Record<string, string> };
  assert.equal(STATS_LIBRARY.name, "simple-statistics");
  assert.equal(STATS_LIBRARY.version, "7.12.1");
  assert.equal(
    config.imports["simple-statistics"],
    `npm:simple-statistics@${STATS_LIBRARY.version}`,
  );
  assert.equal(CROSS_CHECK_LIBRARY.name, "jstat");
  assert.equal(CROSS_CHECK_LIBRARY.version, "1.9.6");
  assert.equal(config.imports["jstat"], `npm:jstat@${CROSS_CHECK_LIBRARY.version}`);
  assert.equal(CROSS_CHECK_TOLERANCE, 1e-9);
  assert.ok(Object.isFrozen(STATS_LIBRARY) && Object.isFrozen(CROSS_CHECK_LIBRARY));
});

Deno.test("library: no Math.random in the statistics sources", async () => {
  const dir = new URL("../../src/stats/", import.meta.url);
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    assert.ok(!text.includes("Math.random"), `${entry.name} uses Math.random`);
  }
});
