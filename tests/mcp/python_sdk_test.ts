// The official Python MCP SDK (PyPI `mcp`) drives every tool of empiric's MCP server over stdio
// (spawning `empiric mcp serve`) and Streamable HTTP: an independent client implementation of
// the protocol.
import assert from "node:assert/strict";
import { pythonModule } from "../support/peers.ts";
import {
  childEnv,
  FIXTURE_KEY_TEXT,
  serveArgs,
  startHttp,
  tempDirs,
  TOOL_NAMES,
} from "./support.ts";

const available = await pythonModule("mcp");
const SCRIPT = new URL("../support/mcp_python_client.py", import.meta.url).pathname;

// deno-lint-ignore no-explicit-any
type Json = any;

async function drive(args: string[], env: Record<string, string>): Promise<Json> {
  const out = await new Deno.Command("python3", {
    args: [SCRIPT, ...args],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

function check(out: Json): void {
  assert.equal(out.server, "empiric");
  assert.deepEqual(out.tools, TOOL_NAMES);
  assert.deepEqual(out.prompts, ["draft_claim", "explain_proof"]);
  const r = out.results;
  assert.ok(r.list_scenarios.scenarios.some((s: Json) => s.name === "arithmetic-accuracy"));
  assert.equal(r.get_scenario_claim.name, "arithmetic-accuracy");
  assert.equal(r.canonicalize_value.canonical, '{"a":1,"b":1.0}');
  assert.equal(r.run_scenario.outcome, "VALIDATED");
  assert.ok(r.read_proof_index.entries.some((e: Json) => e.proof_id === r.run_scenario.proof_id));
  assert.equal(r.verify_proof.verified, true);
  assert.equal(r.bad.isError, true);
  assert.match(r.bad.text, /^not_found: /);
}

Deno.test({
  name: "Python MCP SDK: every tool over stdio",
  ignore: !available,
  fn: async () => {
    const dirs = await tempDirs();
    try {
      const env = childEnv({ EMPIRIC_STORE: dirs.store, EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT });
      check(
        await drive(
          ["stdio", Deno.execPath(), ...serveArgs(["--scenario-dir", dirs.scenarios])],
          env,
        ),
      );
    } finally {
      await Deno.remove(dirs.root, { recursive: true });
    }
  },
});

Deno.test({
  name: "Python MCP SDK: every tool over Streamable HTTP",
  ignore: !available,
  fn: async () => {
    const f = await startHttp("streamable-http");
    try {
      check(await drive(["http", f.serving.url], childEnv({})));
    } finally {
      await f.close();
    }
  },
});
