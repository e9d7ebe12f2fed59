// The official MCP conformance suite (npm @modelcontextprotocol/conformance, run under Deno)
// against `empiric mcp serve --transport streamable-http`, the real entry point, for the
// capability scenarios empiric implements.
import assert from "node:assert/strict";
import { childEnv, FIXTURE_KEY_TEXT, ROOT, serveArgs, tempDirs } from "./support.ts";

/** Scenarios that must pass with no failure and no warning. */
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "logging-set-level",
  "server-sse-polling",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
  "prompts-list",
  "resources-subscribe",
  "resources-unsubscribe",
];

/**
 * Warnings that only the suite's own fixture tools can clear: `server-sse-disconnect-resume`
 * calls a `test_reconnection` tool (a fixture of the suite's reference server) that empiric
 * does not offer; resumption with Last-Event-ID is tested in capabilities_test.ts instead.
 */
const FIXTURE_ONLY_WARNINGS = new Set(["server-sse-disconnect-resume"]);

Deno.test({
  name: "MCP conformance suite: capability scenarios against the real Streamable HTTP server",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dirs = await tempDirs();
    const server = new Deno.Command(Deno.execPath(), {
      args: serveArgs([
        "--transport",
        "streamable-http",
        "--port",
        "0",
        "--scenario-dir",
        dirs.scenarios,
      ]),
      env: childEnv({ EMPIRIC_STORE: dirs.store, EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT }),
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let log = "";
      let url: string | undefined;
      while (!url) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the server stopped:\n${log}`);
        log += value;
        url = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      }
      void (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })();
      const endpoint: string = url.replace("127.0.0.1", "localhost");
      const results: string[] = [];
      for (const scenario of SCENARIOS) {
        const out: Deno.CommandOutput = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12",
            "server",
            "--url",
            endpoint,
            "--scenario",
            scenario,
          ],
          cwd: ROOT,
          env: { ...childEnv({}), NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text: string = new TextDecoder().decode(out.stdout) +
          new TextDecoder().decode(out.stderr);
        const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
        assert.ok(summary, `${scenario}: no summary in\n${text}`);
        const [, passed, total, failed] = summary.map(Number);
        const warnings = [...text.matchAll(/\[([a-z0-9-]+)\s*\]\s+WARNING/g)].map((m) => m[1])
          .filter((id) => !FIXTURE_ONLY_WARNINGS.has(id));
        results.push(`${scenario}: ${passed}/${total}, ${failed} failed, ${warnings.join(",")}`);
        assert.equal(failed, 0, `${scenario}:\n${text}`);
        assert.equal(passed, total, `${scenario}:\n${text}`);
        assert.deepEqual(warnings, [], `${scenario} warns:\n${text}`);
      }
    } finally {
      server.kill("SIGTERM");
      await server.status;
      await Deno.remove(dirs.root, { recursive: true }).catch(() => undefined);
    }
  },
});
