// A fresh clone's first command prints nothing misleading: Deno warns about every npm package
// whose install scripts it skipped, and recommends a node_modules setting users should not
// change. None of ours needs its script (@scarf/scarf is install analytics; protobufjs's only
// checks its own CLI's versions), so deno.json denies each by name, which keeps Deno quiet.
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);

Deno.test("every locked npm package with install scripts is denied in deno.json", async () => {
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", root)));
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const withScripts = Object.entries(lock.npm as Record<string, { scripts?: boolean }>)
    .filter(([, info]) => info.scripts === true)
    .map(([id]) => "npm:" + id.slice(0, id.lastIndexOf("@")))
    .sort();
  assert.ok(withScripts.length > 0, "deno.lock records no package with scripts: the test is stale");
  const denied = [...(config.allowScripts?.deny ?? [])].sort();
  assert.deepEqual(denied, [...new Set(withScripts)]);
  assert.equal(config.allowScripts?.allow, undefined, "no package's install script runs");
});
