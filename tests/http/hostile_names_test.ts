// Network clients of the HTTP API name scenarios only by the names the server lists: whatever
// the encoding, no route opens a file outside the scenario directory, follows a symlink out of
// it, or echoes such a file back.
import assert from "node:assert/strict";
import { recordingEnv } from "../support/recording_env.ts";
import { testEnv } from "../support/env.ts";
import { testApp } from "./support.ts";

const MARKER = "secret-marker-7a1e";

Deno.test("every HTTP route given hostile names opens nothing outside the scenario directory", async () => {
  const { env, log } = recordingEnv(await testEnv());
  const root = await Deno.makeTempDir({ prefix: "empiric-hostile-" });
  const scenarios = `${root}/scenarios`;
  await Deno.mkdir(scenarios);
  await Deno.writeTextFile(`${root}/secret.yaml`, `name: ${MARKER}\ntitle: [${MARKER}\n`);
  await Deno.symlink(`${root}/secret.yaml`, `${scenarios}/link.yaml`);
  const t = await testApp({ env, scenarioDir: scenarios });
  try {
    const names = [
      "/etc/passwd",
      "/dev/zero",
      `${root}/secret.yaml`,
      "../secret",
      "../secret.yaml",
      "%2Fetc%2Fpasswd",
      "..\\secret",
      "secret\u0000",
      "link",
      "link.yaml",
      "builtin:../../secret",
      "scenarios/../../secret.yaml",
    ];
    const answers: string[] = [];
    for (const name of names) {
      for (
        const encoded of [encodeURIComponent(name), encodeURIComponent(encodeURIComponent(name))]
      ) {
        const res = await t.req("GET", `/scenarios/${encoded}`);
        assert.ok(res.status === 404 || res.status === 400, `${name}: ${res.status}`);
        answers.push(await res.text());
      }
      const run = await t.req("POST", "/runs", { json: { scenario: name } });
      assert.ok(run.status === 404 || run.status === 400, `run ${name}: ${run.status}`);
      answers.push(await run.text());
      const list = await t.req("GET", `/proofs?scenario=${encodeURIComponent(name)}`);
      assert.equal(list.status, 200);
      answers.push(await list.text());
      const proof = await t.req("GET", `/proofs/${encodeURIComponent(name)}`);
      assert.ok(proof.status === 400 || proof.status === 404, `proof ${name}: ${proof.status}`);
      answers.push(await proof.text());
    }
    for (const a of answers) {
      assert.ok(!a.includes(MARKER), `an answer echoes a file outside: ${a.slice(0, 300)}`);
      assert.ok(!a.includes("root:x:0"), "an answer echoes /etc/passwd");
      for (const dir of [scenarios, t.dir]) {
        assert.ok(!a.includes(dir), `an answer reveals a server path: ${a.slice(0, 300)}`);
      }
    }
    assert.deepEqual(log.outside([scenarios]), [], "paths opened outside the scenario dir");
    // The listing itself names only the regular files of the directory.
    const listing = await (await t.req("GET", "/scenarios")).json();
    assert.ok(!JSON.stringify(listing).includes(MARKER));
  } finally {
    await t.close();
  }
});
