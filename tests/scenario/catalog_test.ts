// The scenario catalog: declared names, ambiguity, and what each mode may open.
import assert from "node:assert/strict";
import { MAX_SCENARIO_BYTES, ScenarioCatalog } from "../../src/scenario/catalog.ts";
import { scenarioCatalog as catalogFor } from "../../src/ops/context.ts";
import type { OpsEnvironment } from "../../src/ops/environment.ts";

const scenarioCatalog = (env: OpsEnvironment, dir: string, mode: { namesOnly?: boolean } = {}) =>
  catalogFor(env, dir, mode.namesOnly ? "network" : "local");
import { testEnv } from "../support/env.ts";
import { recordingEnv } from "../support/recording_env.ts";

const SCENARIO = (name: string): string =>
  (await_text(`${ROOT}fixtures/scenarios/echo-latency.yaml`)).replace(
    /^name: .*$/m,
    `name: ${name}`,
  );
import { ROOT } from "../support/env.ts";
function await_text(p: string): string {
  return Deno.readTextFileSync(p);
}

async function dir(files: Record<string, string>): Promise<string> {
  const d = await Deno.makeTempDir({ prefix: "empiric-catalog-" });
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(`${d}/${name}`, text);
  await Deno.copyFile(`${ROOT}fixtures/corpora/requests.jsonl`, `${d}/requests.jsonl`);
  return d;
}

Deno.test("catalog: a scenario is run and shown by the name it declares, in both modes", async () => {
  const d = await dir({ "tickets.yaml": SCENARIO("ticket-classifier-accuracy") });
  const env = await testEnv();
  for (const mode of [{}, { namesOnly: true }]) {
    const c = scenarioCatalog(env, d, mode);
    const r = await c.resolve("ticket-classifier-accuracy");
    assert.equal(r.scenario.name, "ticket-classifier-accuracy");
    const { scenarios } = await c.list();
    assert.ok(scenarios.some((s) => s.scenario.name === "ticket-classifier-accuracy"));
  }
  // The file stem still works for the local user, not for network clients.
  assert.equal(
    (await scenarioCatalog(env, d).resolve("tickets")).scenario.name,
    "ticket-classifier-accuracy",
  );
  await assert.rejects(scenarioCatalog(env, d, { namesOnly: true }).resolve("tickets"), {
    code: "not_found",
  });
});

Deno.test("catalog: a name declared by two files is reported, never picked silently", async () => {
  const d = await dir({ "a.yaml": SCENARIO("twin"), "b.yaml": SCENARIO("twin") });
  const c = scenarioCatalog(await testEnv(), d);
  await assert.rejects(c.resolve("twin"), (e: Error & { code?: string }) => {
    assert.equal(e.code, "scenario_invalid");
    assert.match(e.message, /declared by 2 files: .*a\.yaml, .*b\.yaml/);
    return true;
  });
  const { errors } = await c.list();
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /"twin" is also declared by .*a\.yaml/);
});

Deno.test("catalog: listed mode never follows a symlink, reads a device, or opens a path", async () => {
  const d = await dir({ "ok.yaml": SCENARIO("ok-scenario") });
  const outside = await Deno.makeTempDir();
  await Deno.writeTextFile(`${outside}/secret.yaml`, SCENARIO("secret-scenario"));
  await Deno.symlink(`${outside}/secret.yaml`, `${d}/secret.yaml`);
  await Deno.symlink("/dev/zero", `${d}/zero.yaml`);
  const { env, log } = recordingEnv(await testEnv());
  const c = scenarioCatalog(env, d, { namesOnly: true });
  for (const name of ["secret-scenario", "secret", "zero", `${outside}/secret.yaml`, "../x"]) {
    await assert.rejects(c.resolve(name), { code: "not_found" }, name);
  }
  assert.deepEqual(
    (await c.list()).scenarios.filter((s) => s.origin.kind === "file").map((s) => s.scenario.name),
    ["ok-scenario"],
  );
  assert.deepEqual(log.outside([d]), []);
});

Deno.test("catalog: a scenario file larger than the limit is refused without reading it all", async () => {
  const d = await dir({ "big.yaml": "#".repeat(MAX_SCENARIO_BYTES + 1) });
  const c = new ScenarioCatalog(d, "listed", {
    listDir: () => Promise.resolve(["big.yaml"]),
    readRegularText: (await testEnv()).readRegularText,
    readText: () => Promise.reject(new Error("must not be called")),
    files: { readFile: () => Promise.reject(new Error("must not be called")) },
  });
  const { errors } = await c.list();
  assert.match(errors[0].message, /more than the 1048576 bytes a scenario file may have/);
});

Deno.test("catalog: unknown names are not_found in both modes", async () => {
  const d = await dir({});
  for (const mode of [{}, { namesOnly: true }]) {
    await assert.rejects(scenarioCatalog(await testEnv(), d, mode).resolve("nope"), {
      code: "not_found",
    });
  }
  await assert.rejects(scenarioCatalog(await testEnv(), d).resolve(`${d}/missing.yaml`), {
    code: "not_found",
  });
});
