/**
 * Build the npm package `@empiric/proof` into dist/npm/: an ESM bundle of the portable core
 * (src/mod.ts) with type declarations, the verifying CLI (cli.mjs), and package.json.
 *
 *   deno task build:npm
 *
 * @module
 */
import { EMPIRIC_VERSION } from "../../src/version.ts";

const root = new URL("../../", import.meta.url);
const out = new URL("dist/npm/", root);
await Deno.remove(out, { recursive: true }).catch(() => {});
await Deno.mkdir(out, { recursive: true });

async function bundle(entry: string, output: string, extra: string[] = []) {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--platform",
      "browser",
      "--format",
      "esm",
      "--packages",
      "bundle",
      ...extra,
      "-o",
      new URL(output, out).pathname,
      new URL(entry, root).pathname,
    ],
    cwd: root.pathname,
    stdout: "inherit",
    stderr: "inherit",
  });
  const r = await cmd.output();
  if (!r.success) throw new Error(`deno bundle ${entry} failed`);
}

await bundle("src/mod.ts", "index.mjs", ["--declaration"]);
await bundle("ports/npm/cli.ts", "cli.mjs", ["--external", "node:*"]);

const pkg = {
  name: "@empiric/proof",
  version: EMPIRIC_VERSION,
  description: "empiric wire format: typed canonical JSON, HMAC-signed proof records, verification",
  type: "module",
  exports: { ".": { types: "./index.d.mts", import: "./index.mjs" } },
  bin: { "empiric-proof": "./cli.mjs" },
  engines: { node: ">=20" },
  license: "Apache-2.0",
  sideEffects: false,
};
await Deno.writeTextFile(new URL("package.json", out), JSON.stringify(pkg, null, 2) + "\n");
await Deno.writeTextFile(
  new URL("README.md", out),
  "# @empiric/proof\n\nThe empiric wire format for Node 20+ and browsers: `parseProof`, `verifySignature`, `signCanonical`, `PyInt`, `canonicalize`, `parseJson`, `verifyRecord`.\nSee docs/wire-format.md in the empiric repository.\n\n    node cli.mjs verify FILE --key-file K\n",
);
const files = [...Deno.readDirSync(out)].map((e) => e.name).sort();
console.log(`built dist/npm: ${files.join(", ")}`);
