// The surfaces (CLI, HTTP API, MCP server and the entry points) reach the product only through
// the operations layer and the foundations: no surface imports the store, the run engine, the
// exports, the record or scenario internals directly, so no surface can skip a rule that
// `invoke` applies.
import assert from "node:assert/strict";

import { ROOT } from "../support/env.ts";

/** Folders a surface may import besides its own and other surfaces. */
const FOUNDATIONS = ["ops", "errors", "telemetry", "json", "net", "fs", "lazy"];
const SURFACES = ["cli", "http", "mcp"];
/** Files at src/ a surface may import. */
const ROOT_FILES = ["version.ts", "build_info.ts"];

/**
 * Surface files that still import an export module directly, each with its reason. Empty it as
 * they move behind operations.
 */
const PENDING: Record<string, string> = {
  "src/cli/commands/export.ts":
    "the export commands call the exporters directly; they move behind operations with the public-key attestation and standards work",
};

async function* files(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) yield* files(p);
    else if (e.name.endsWith(".ts")) yield p;
  }
}

function importsOf(text: string): string[] {
  return [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^"';]*?from\s+"([^"]+)"/g),
    ...text.matchAll(/import\(\s*"([^"]+)"\s*\)/g),
  ].map((m) => m[1]);
}

Deno.test("surfaces import only the operations layer, the foundations and each other", async () => {
  const violations: string[] = [];
  const surfaceFiles: string[] = [];
  for (const s of SURFACES) for await (const f of files(`${ROOT}src/${s}`)) surfaceFiles.push(f);
  for (const entry of ["cli.ts", "server.ts", "mcp.ts"]) surfaceFiles.push(`${ROOT}${entry}`);
  for (const file of surfaceFiles) {
    const rel = file.slice(ROOT.length);
    if (rel in PENDING) continue;
    for (const spec of importsOf(await Deno.readTextFile(file))) {
      if (!spec.startsWith(".")) continue; // packages
      const target = new URL(spec, `file://${file}`).pathname.slice(ROOT.length);
      if (!target.startsWith("src/")) continue;
      const [, folder, ...rest] = target.split("/");
      const ok = rest.length === 0
        ? ROOT_FILES.includes(folder)
        : FOUNDATIONS.includes(folder) || SURFACES.includes(folder);
      if (!ok) violations.push(`${rel} imports ${target}`);
    }
  }
  assert.deepEqual(violations, []);
  // The pending list names only files that exist and still need it.
  for (const rel of Object.keys(PENDING)) {
    const text = await Deno.readTextFile(`${ROOT}${rel}`);
    assert.ok(
      importsOf(text).some((s) => /\/(export|store|record|crypto)\//.test(s)),
      `${rel} no longer needs its exception`,
    );
  }
});

Deno.test("every operation's input refuses unknown members, and the registry names each once", async () => {
  const { OPERATIONS } = await import("../../src/ops/registry.ts");
  const names = OPERATIONS.map((op) => op.name);
  assert.equal(new Set(names).size, names.length);
  for (const op of OPERATIONS) {
    const r = op.input.safeParse({ __unknown_member__: 1 });
    assert.equal(r.success, false, `${op.name} accepts unknown members`);
    assert.ok(op.description.length > 40, `${op.name} is documented`);
    if (op.exposure.includes("scenario-listed")) assert.ok(op.scenarioField, op.name);
    if (op.exposure.includes("substrate-checked")) assert.ok(op.substrateField, op.name);
  }
});

Deno.test("src/ holds no build scripts: nothing in it runs as a main module", async () => {
  const scripts: string[] = [];
  for await (const f of files(`${ROOT}src`)) {
    if (/import\.meta\.main/.test(await Deno.readTextFile(f))) scripts.push(f.slice(ROOT.length));
  }
  assert.deepEqual(scripts, [], "build scripts live in scripts/ (or ports/ for a port's build)");
});

Deno.test("every runnable doc example asserts (an example that only prints cannot fail)", async () => {
  const silent: string[] = [];
  const example = /@example\s*\n\s*\*\s*```(?:ts|typescript)([^\n]*)\n([\s\S]*?)\n\s*\*\s*```/g;
  for await (const f of files(`${ROOT}src`)) {
    const text = await Deno.readTextFile(f);
    for (const m of text.matchAll(example)) {
      if (m[1].includes("ignore")) continue;
      const line = text.slice(0, m.index).split("\n").length;
      if (/console\.assert/.test(m[2])) {
        silent.push(`${f.slice(ROOT.length)}:${line} console.assert`);
      } else if (!/\b(assert|equal|deepEqual|deepStrictEqual|match|rejects|throws)\b/.test(m[2])) {
        silent.push(`${f.slice(ROOT.length)}:${line}`);
      }
    }
  }
  assert.deepEqual(silent, []);
});
