// The documentation states what the code does: the error table of docs/cli.md is ERROR_TABLE.
import assert from "node:assert/strict";
import { ERROR_TABLE } from "../src/errors/codes.ts";

const ROOT = new URL("../", import.meta.url).pathname;

Deno.test("docs/cli.md lists exactly the error codes of ERROR_TABLE, with their exit and HTTP codes", async () => {
  const text = await Deno.readTextFile(`${ROOT}docs/cli.md`);
  const section = text.slice(text.indexOf("## Error codes"));
  const rows = [...section.matchAll(/^\| `([a-z0-9_]+)` +\| (\d+) +\| (\d+) +\|/gm)].map((m) => ({
    code: m[1],
    exit: Number(m[2]),
    http: Number(m[3]),
  }));
  assert.deepEqual(
    rows.map((r) => r.code).sort(),
    Object.keys(ERROR_TABLE).sort(),
    "the same codes",
  );
  for (const r of rows) {
    const t = ERROR_TABLE[r.code as keyof typeof ERROR_TABLE];
    assert.deepEqual([r.exit, r.http], [t.exit, t.http], r.code);
  }
});

Deno.test("user docs stand on their own: no reference to the specification they were built from", async () => {
  const found: string[] = [];
  const files = ["README.md", "CHANGELOG.md"];
  for await (const e of Deno.readDir(new URL("../docs/", import.meta.url))) {
    if (e.name.endsWith(".md")) files.push(`docs/${e.name}`);
  }
  for (const f of files) {
    const text = await Deno.readTextFile(new URL(`../${f}`, import.meta.url));
    text.split("\n").forEach((line, i) => {
      if (/\bSPEC\b/.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

Deno.test("README's documentation table links every document in docs/", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const table = readme.slice(readme.indexOf("## Documentation"), readme.indexOf("## Layout"));
  const missing: string[] = [];
  for await (const e of Deno.readDir(new URL("../docs/", import.meta.url))) {
    if (e.name.endsWith(".md") && !table.includes(`(docs/${e.name})`)) missing.push(e.name);
  }
  assert.deepEqual(missing.sort(), []);
  assert.match(readme, /openssl rand -hex 32/, "the README says how to make a key");
});
