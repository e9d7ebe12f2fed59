// Network clients of the MCP server (Streamable HTTP and SSE) name scenarios only by the names
// the server lists: whatever the encoding, no resource read or tool call opens a file outside
// the scenario directory, follows a symlink out of it, or echoes such a file back.
import assert from "node:assert/strict";
import {
  clientV2,
  SSEClientTransport,
  startHttp,
  StreamableHTTPClientTransport,
  type TestClient,
  textOf,
} from "./support.ts";
import { recordingEnv } from "../support/recording_env.ts";
import type { PathLog } from "../support/recording_env.ts";

const MARKER = "secret-marker-3f9c";

/** Hostile names, as they appear (percent-encoded) in a resource URI. */
function hostileUriNames(root: string): string[] {
  return [
    "%2Fetc%2Fpasswd",
    "%2Fdev%2Fzero",
    encodeURIComponent(`${root}/secret.yaml`),
    encodeURIComponent(`${root}/secret`),
    "..%2Fsecret",
    "..%2Fsecret.yaml",
    "%2E%2E%2Fsecret",
    "%252Fetc%252Fpasswd",
    "..%5Csecret",
    "..%5C..%5Csecret.yaml",
    "secret%00",
    "echo-latency%00.yaml",
    "link",
    "link.yaml",
    "broken.yaml",
    "%2E%2E",
  ];
}

async function withFixture(
  transport: "sse" | "streamable-http",
  f: (client: TestClient, root: string, scenarios: string, log: PathLog) => Promise<void>,
) {
  let log!: PathLog;
  const fx = await startHttp(transport, {
    wrapEnv: (env) => {
      const r = recordingEnv(env);
      log = r.log;
      return r.env;
    },
  });
  const { root, scenarios } = fx.dirs;
  await Deno.writeTextFile(
    `${root}/secret.yaml`,
    `name: ${MARKER}\ntitle: [${MARKER} unterminated\n`,
  );
  await Deno.symlink(`${root}/secret.yaml`, `${scenarios}/link.yaml`);
  const client = await clientV2(
    transport === "sse"
      ? new SSEClientTransport(new URL(fx.serving.url))
      : new StreamableHTTPClientTransport(new URL(fx.serving.url)),
    transport,
    transport === "sse" ? { legacy: "2025-06-18" } : { pin: "2026-07-28" },
  );
  try {
    await f(client, root, scenarios, log);
  } finally {
    await client.close();
    await fx.close();
  }
}

for (const transport of ["streamable-http", "sse"] as const) {
  Deno.test(`mcp ${transport}: resources/read of hostile scenario names opens nothing outside the scenario directory`, async () => {
    await withFixture(transport, async (client, root, scenarios, log) => {
      for (const name of hostileUriNames(root)) {
        const uri = `empiric://scenarios/${name}`;
        let text = "";
        try {
          const r = await client.readResource(uri);
          text = JSON.stringify(r);
          assert.fail(`${uri} should not be readable, got ${text.slice(0, 200)}`);
        } catch (e) {
          text = String((e as Error).message);
          if (e instanceof assert.AssertionError) throw e;
        }
        assert.ok(!text.includes(MARKER), `${uri}: the answer echoes a file outside: ${text}`);
        assert.ok(!text.includes("root:"), `${uri}: the answer echoes /etc/passwd`);
      }
      // Proof resources and the index take hostile names too, and open nothing.
      for (const name of hostileUriNames(root)) {
        await assert.rejects(client.readResource(`empiric://proofs/${name}`));
        const page = await client.call("read_proof_index", { scenario: decodeURIComponent(name) });
        assert.ok(!textOf(page).includes(MARKER));
      }
      assert.deepEqual(log.outside([scenarios]), [], "paths opened outside the scenario dir");
      // A listed scenario is still readable.
      const ok = await client.readResource("empiric://scenarios/echo-latency");
      assert.match(ok.contents[0].text, /echo-latency/);
    });
  });

  Deno.test(`mcp ${transport}: tools given hostile scenario names open nothing outside the scenario directory`, async () => {
    await withFixture(transport, async (client, root, scenarios, log) => {
      const names = hostileUriNames(root).map(decodeURIComponent).concat([
        "/etc/passwd",
        `${root}/secret.yaml`,
        "../secret.yaml",
        "..\\secret.yaml",
        "scenarios/../../secret.yaml",
        "builtin:../../secret",
      ]);
      for (const name of names) {
        for (
          const [tool, args] of [
            ["get_scenario_claim", { name }],
            ["run_scenario", { scenario: name, substrate: "builtin:echo" }],
          ] as const
        ) {
          const r = await client.call(tool, args);
          const text = textOf(r);
          assert.equal(r.isError, true, `${tool}(${JSON.stringify(name)}) should fail: ${text}`);
          assert.match(text, /^not_found: /, `${tool}(${JSON.stringify(name)}): ${text}`);
          assert.ok(!text.includes(MARKER), `${tool}(${JSON.stringify(name)}) echoes: ${text}`);
        }
      }
      assert.deepEqual(log.outside([scenarios]), [], "paths opened outside the scenario dir");
    });
  });
}
