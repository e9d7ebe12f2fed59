// stdio (`empiric mcp serve`, the default): SDK clients of both generations spawn the real CLI;
// raw JSON-RPC over the real entry points shows that stdout carries JSON-RPC and nothing else.
import assert from "node:assert/strict";
import {
  cancellationCheck,
  childEnv,
  CLI_FLAGS,
  clientV1,
  clientV2,
  FIXTURE_KEY_TEXT,
  MCP_ENTRY,
  ROOT,
  serveArgs,
  StdioClientTransport,
  StdioClientTransportV1,
  stdioParams,
  tempDirs,
  TOOL_NAMES,
  toolSuite,
} from "./support.ts";
import { testEnv } from "../support/env.ts";

Deno.test("stdio: a 2025-11-25 client (SDK 1.x) spawns `empiric mcp serve` and uses every tool and resource, with progress and cancellation", async () => {
  const dirs = await tempDirs();
  const client = await clientV1(new StdioClientTransportV1(stdioParams(dirs)), "stdio v1");
  try {
    await toolSuite(client, {
      env: await testEnv(),
      store: dirs.store,
      scenarios: dirs.scenarios,
      caller: "local",
    });
    await cancellationCheck(client, dirs.store);
  } finally {
    await client.close();
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("stdio: a 2026-07-28 client (SDK 2.x, server/discover, no initialize) uses every tool and resource, with progress and cancellation", async () => {
  const dirs = await tempDirs();
  const client = await clientV2(
    new StdioClientTransport(stdioParams(dirs)),
    "stdio v2 2026-07-28",
    { pin: "2026-07-28" },
  );
  try {
    assert.equal(client.protocolVersion(), "2026-07-28");
    await toolSuite(client, {
      env: await testEnv(),
      store: dirs.store,
      scenarios: dirs.scenarios,
      caller: "local",
    });
    await cancellationCheck(client, dirs.store);
  } finally {
    await client.close();
    await Deno.remove(dirs.root, { recursive: true });
  }
});

/** A child process speaking raw JSON-RPC lines; every stdout line is kept. */
function rawServer(args: string[], env: Record<string, string>, cwd: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: childEnv(env),
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  const lines: string[] = [];
  let buffered = "";
  const nextLine = async (): Promise<string | undefined> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffered += value;
    }
    const i = buffered.indexOf("\n");
    const line = buffered.slice(0, i);
    buffered = buffered.slice(i + 1);
    lines.push(line);
    return line;
  };
  return {
    lines,
    send: (msg: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n")),
    /** Write raw bytes (a malformed or oversized line). */
    raw: (bytes: Uint8Array) => writer.write(bytes),
    /** Read lines until the response with this id; returns it. */
    async response(id: number) {
      for (;;) {
        const line = await nextLine();
        if (line === undefined) throw new Error(`stdout ended before response ${id}`);
        const m = JSON.parse(line);
        if (m.id === id && !("method" in m)) return m;
      }
    },
    /** Close stdin, read the rest of stdout, wait for the exit. */
    async finish() {
      await writer.close();
      while ((await nextLine()) !== undefined);
      if (buffered !== "") lines.push(buffered);
      return { status: await child.status, stderr: await stderr };
    },
  };
}

function assertOnlyJsonRpc(lines: string[]): void {
  assert.ok(lines.length > 0);
  for (const line of lines) {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      assert.fail(`stdout line is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
    }
    assert.equal(m.jsonrpc, "2.0", line.slice(0, 200));
    assert.ok("id" in m || "method" in m, "a JSON-RPC request, response or notification");
  }
}

Deno.test("stdio: stdout carries JSON-RPC only (initialize 2025-06-18, tools/list, calls with progress and errors); logs go to stderr", async () => {
  const dirs = await tempDirs();
  const s = rawServer(
    serveArgs(["--scenario-dir", dirs.scenarios]),
    { EMPIRIC_STORE: dirs.store, EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT },
    "/",
  );
  try {
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    const init = await s.response(1);
    assert.equal(init.result.protocolVersion, "2025-06-18");
    assert.equal(init.result.serverInfo.name, "empiric");
    await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await s.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const list = await s.response(2);
    assert.equal(list.result.tools.length, TOOL_NAMES.length);
    await s.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: {
        name: "run_scenario",
        arguments: { scenario: "arithmetic-accuracy" },
        _meta: { progressToken: "run-1" },
      },
    });
    const run = await s.response(3);
    assert.equal(run.result.structuredContent.outcome, "VALIDATED");
    await s.send({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "verify_proof", arguments: { proof_json: "{not json" } },
    });
    const bad = await s.response(4);
    assert.equal(bad.result.isError, true);
    assert.equal(bad.result.structuredContent.reason, "syntax_error");
    await s.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "nope" } });
    const unknown = await s.response(5);
    assert.ok(unknown.error, "an unknown tool is a protocol error");

    const { status, stderr } = await s.finish();
    assert.equal(status.code, 0, "exits when stdin closes");
    assertOnlyJsonRpc(s.lines);
    const progress = s.lines.map((l) => JSON.parse(l)).filter((m) =>
      m.method === "notifications/progress"
    );
    assert.ok(progress.length >= 10, "progress notifications on stdout, as JSON-RPC");
    assert.ok(progress.every((p) => p.params.progressToken === "run-1"));
    assert.match(stderr, new RegExp(`proof store: ${dirs.store} \\(EMPIRIC_STORE\\)`));
    assert.match(stderr, /serving over stdio/);
    assert.doesNotMatch(stderr, /demo key/);
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("mcp.ts entry point: stdio server with cwd=/; an unusable store fails only the tools that need it", async () => {
  const root = await Deno.makeTempDir();
  await Deno.writeTextFile(`${root}/file`, "");
  const s = rawServer(
    ["run", ...CLI_FLAGS, MCP_ENTRY],
    { EMPIRIC_STORE: `${root}/file/store` },
    "/",
  );
  try {
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    assert.equal((await s.response(1)).result.protocolVersion, "2025-11-25");
    await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await s.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "list_scenarios", arguments: {} },
    });
    const listed = await s.response(2);
    assert.notEqual(listed.result.isError, true);
    assert.equal(listed.result.structuredContent.errors.length, 0);
    await s.send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "read_proof_index", arguments: {} },
    });
    const idx = await s.response(3);
    assert.equal(idx.result.isError, true);
    assert.match(
      idx.result.content[0].text,
      /^io_error: cannot create the proof store .*file\/store.*set EMPIRIC_STORE or --store to an absolute, writable directory/,
    );
    const { status, stderr } = await s.finish();
    assert.equal(status.code, 0);
    assertOnlyJsonRpc(s.lines);
    assert.match(stderr, /warning: no key given .*public demo key/);
    assert.match(stderr, /scenario directory: \/scenarios/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("docs/mcp.md: the desktop configurations start working servers (cwd=/)", async () => {
  const doc = await Deno.readTextFile(`${ROOT}docs/mcp.md`);
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1])
    .filter((b) => b.includes('"mcpServers"'))
    .map((b) => JSON.parse(b).mcpServers.empiric);
  assert.equal(blocks.length, 2, "the binary and the from-source configuration");
  const [binary, fromSource] = blocks;
  assert.equal(binary.command, "empiric");
  assert.deepEqual(binary.args, ["mcp", "serve"]);
  assert.match(fromSource.args.at(-1), /^\/absolute\/path\/to\/empiric\/mcp\.ts$/);
  const dirs = await tempDirs();
  try {
    const configs = [
      // the compiled binary is cli.ts with these permission flags
      { command: Deno.execPath(), args: ["run", ...CLI_FLAGS, `${ROOT}cli.ts`, ...binary.args] },
      {
        command: Deno.execPath(),
        args: fromSource.args.map((a: string) => a.replace("/absolute/path/to/empiric/", ROOT)),
      },
    ];
    for (const [i, c] of configs.entries()) {
      const env = { ...binary.env, ...fromSource.env, EMPIRIC_STORE: `${dirs.store}${i}` };
      assert.ok(new TextEncoder().encode(env.EMPIRIC_SIGN_KEY).length >= 32);
      const client = await clientV1(
        new StdioClientTransportV1({ ...c, env: childEnv(env), cwd: "/", stderr: "pipe" }),
        `docs config ${i}`,
      );
      try {
        const r = await client.call("run_scenario", { scenario: "sentiment-accuracy" });
        assert.equal(r.structuredContent?.outcome, "REFUTED");
        assert.equal(
          r.structuredContent?.path,
          `${dirs.store}${i}/${r.structuredContent?.proof_id}.json`,
        );
      } finally {
        await client.close();
      }
    }
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("stdio: an oversized message and malformed lines are answered, and the server keeps serving", async () => {
  const dirs = await tempDirs();
  const s = rawServer(
    serveArgs(["--scenario-dir", dirs.scenarios]),
    { EMPIRIC_STORE: dirs.store, EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT },
    "/",
  );
  try {
    await s.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    await s.response(1);
    await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // 11 MiB in one verify_proof call: over the 10 MiB limit.
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "verify_proof", arguments: { proof_json: "x".repeat(11 * 1024 * 1024) } },
    });
    await s.raw(new TextEncoder().encode(big + "\n"));
    const tooBig = await s.response(2);
    assert.equal(tooBig.error.code, -32600);
    assert.match(tooBig.error.message, /larger than the 10485760 byte limit .*10 MiB/);
    await s.raw(new TextEncoder().encode("{not json\n"));
    await s.raw(new TextEncoder().encode('{"hello":"world","id":7}\n'));
    await s.send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    const list = await s.response(3);
    assert.equal(list.result.tools.length, TOOL_NAMES.length, "still serving");
    const { status, stderr } = await s.finish();
    assert.equal(status.code, 0);
    const answers = s.lines.map((l) => JSON.parse(l));
    const parse = answers.find((m) => m.error?.code === -32700);
    assert.ok(parse, "a parse error answer");
    assert.equal(parse.id, null);
    const invalid = answers.find((m) => m.error?.code === -32600 && m.id === 7);
    assert.ok(invalid, "an invalid request answer with its id");
    assertOnlyJsonRpc(s.lines);
    const diag = stderr.split("\n").filter((l) =>
      /parse error|invalid request|larger than/.test(l)
    );
    assert.equal(diag.length, 3, `one stderr line each:\n${stderr}`);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});
