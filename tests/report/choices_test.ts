// The operations layer declares the report choices without loading the report builders; the two
// lists must stay the same.
import assert from "node:assert/strict";
import { JUNIT_FAIL_ON } from "../../src/report/junit.ts";
import { JUNIT_FAIL_ON_CHOICES } from "../../src/ops/report.ts";
import { DOM_LIBRARY, PLOT_LIBRARY } from "../../src/report/html.ts";

Deno.test("the JUnit fail-on choices of src/ops and src/report are the same", () => {
  assert.deepEqual([...JUNIT_FAIL_ON_CHOICES], [...JUNIT_FAIL_ON]);
});

Deno.test("the plotting libraries named in every report are the ones deno.json imports", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(
    config.imports[PLOT_LIBRARY.name],
    `npm:${PLOT_LIBRARY.name}@${PLOT_LIBRARY.version}`,
  );
  assert.equal(config.imports[DOM_LIBRARY.name], `npm:${DOM_LIBRARY.name}@${DOM_LIBRARY.version}`);
});

Deno.test("declaring the operations loads no report builder (they load on first use)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("../../src/ops/registry.ts", import.meta.url).pathname],
    stdout: "piped",
  }).output();
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: { code?: { specifier: string } }[] }[];
  };
  // What loads at run time: the modules reachable by code imports (type-only ones load nothing).
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const loaded: string[] = [];
  const pending = [...graph.roots];
  while (pending.length) {
    const s = pending.pop()!;
    if (loaded.includes(s)) continue;
    loaded.push(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      if (d.code && bySpecifier.has(d.code.specifier)) pending.push(d.code.specifier);
    }
  }
  assert.ok(loaded.some((s) => s.endsWith("/src/ops/report.ts")));
  assert.deepEqual(loaded.filter((s) => /\/src\/report\/|observablehq|linkedom/.test(s)), []);
});
