import assert from "node:assert/strict";
import { RESULT_LIBRARIES } from "../../src/run/libraries.ts";

Deno.test("recorded library versions match the import map", async () => {
  const imports = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)))
    .imports as Record<string, string>;
  const spec = (name: string) =>
    Object.values(imports).find((v) =>
      v.startsWith(`npm:${name}@`) || v.startsWith(`npm:/${name}@`)
    );
  for (const [name, version] of Object.entries(RESULT_LIBRARIES)) {
    assert.ok(
      spec(name)?.includes(`${name}@${version}`),
      `${name}@${version} in deno.json (${spec(name)})`,
    );
  }
});
