// One tests/support: the repository root, the fixture key and the child-process environment are
// defined once (tests/support/env.ts); every other test module imports them.
import assert from "node:assert/strict";
import { ROOT } from "../support/env.ts";

const DEFINITIONS = [
  /\bnew URL\("(\.\.\/)+", import\.meta\.url\)\.pathname/,
  /"empiric-record-fixtures-test-key-v1"/,
  /\bfunction childEnv\b/,
  /\["HOME", "PATH"/,
];

async function* testModules(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* testModules(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}

Deno.test("the root, the fixture key and the child environment are defined once, in tests/support/env.ts", async () => {
  const own = `${ROOT}tests/support/env.ts`;
  const found: string[] = [];
  for await (const path of testModules(`${ROOT}tests`)) {
    if (path === own || path === new URL(import.meta.url).pathname) continue;
    const text = await Deno.readTextFile(path);
    for (const re of DEFINITIONS) {
      if (re.test(text)) found.push(`${path.slice(ROOT.length)}: ${re.source}`);
    }
  }
  assert.deepEqual(found, []);
  const env = await Deno.readTextFile(own);
  for (const re of DEFINITIONS) assert.match(env, re, "the one definition is there");
});
