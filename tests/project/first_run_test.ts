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

Deno.test("the README's first command, deno task demo, works in a fresh copy of the project", async () => {
  // Every file git tracks, as it is in the working tree, and nothing else (no proofs/).
  const files = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["ls-files", "-z"], cwd: root }).output()).stdout,
  ).split("\0").filter((f) => f !== "");
  const dir = await Deno.makeTempDir();
  try {
    for (const f of files) {
      const from = new URL(f, root);
      const to = `${dir}/${f}`;
      await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
      await Deno.copyFile(from, to).catch((e) => {
        if (!(e instanceof Deno.errors.NotFound)) throw e; // deleted, not yet committed
      });
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "demo"],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    assert.match(text, /1 file: 1 OK, 0 FAIL/);
    assert.ok((await Deno.stat(`${dir}/proofs/demo.json`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
