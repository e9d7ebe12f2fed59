// Streamable HTTP (`empiric mcp serve --transport streamable-http`, path /mcp): real SDK clients
// of both generations against a real server on loopback; Origin, Host and token checks.
import assert from "node:assert/strict";
import {
  callOk,
  cancellationCheck,
  checkToolList,
  childEnv,
  clientV1,
  clientV2,
  FIXTURE_KEY_TEXT,
  rawStatus,
  serveArgs,
  startHttp,
  StreamableHTTPClientTransport,
  StreamableHTTPClientTransportV1,
  textOf,
  toolSuite,
} from "./support.ts";
import { keyFromText } from "../../src/crypto/keys.ts";
import { invoke, runScenarioOp } from "../../src/ops/mod.ts";
import { testHost } from "../support/ops.ts";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

function post(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(INIT),
  });
}

Deno.test("streamable-http: a 2025-11-25 client (SDK 1.x) uses every tool and resource, with progress and cancellation", async () => {
  const f = await startHttp("streamable-http");
  const transport = new StreamableHTTPClientTransportV1(new URL(f.serving.url));
  const client = await clientV1(transport, "http v1");
  try {
    assert.equal(client.protocolVersion(), "2025-11-25");
    await toolSuite(client, {
      env: f.env,
      store: f.dirs.store,
      scenarios: f.dirs.scenarios,
      caller: "network",
    });
    await cancellationCheck(client, f.dirs.store);
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("streamable-http: a 2026-07-28 client (SDK 2.x, no initialize) uses every tool and resource, with progress and cancellation", async () => {
  const f = await startHttp("streamable-http");
  const client = await clientV2(
    new StreamableHTTPClientTransport(new URL(f.serving.url)),
    "http v2 2026-07-28",
    { pin: "2026-07-28" },
  );
  try {
    assert.equal(client.protocolVersion(), "2026-07-28");
    await toolSuite(client, {
      env: f.env,
      store: f.dirs.store,
      scenarios: f.dirs.scenarios,
      caller: "network",
    });
    await cancellationCheck(client, f.dirs.store);
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("streamable-http: a 2025-06-18 client (SDK 2.x in legacy mode) is served at its revision", async () => {
  const f = await startHttp("streamable-http");
  const client = await clientV2(
    new StreamableHTTPClientTransport(new URL(f.serving.url)),
    "http v2 2025-06-18",
    { legacy: "2025-06-18" },
  );
  try {
    assert.equal(client.protocolVersion(), "2025-06-18");
    const schemas = await checkToolList(client);
    const r = await callOk(client, schemas, "canonicalize_value", { value_json: "[1.0, 2]" });
    assert.equal(r.canonical, "[1.0,2]");
    const bad = await client.call("read_proof_index", { limt: 5 });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /limt/, "an unknown argument is named");
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("streamable-http: a 2025-era session: initialize opens it, DELETE ends it", async () => {
  const f = await startHttp("streamable-http");
  try {
    const url = f.serving.url;
    const init = await post(url);
    assert.equal(init.status, 200);
    await init.body?.cancel();
    const session = init.headers.get("mcp-session-id");
    assert.match(session ?? "", /^[0-9a-f-]{36}$/);
    const headers = { "mcp-session-id": session!, "mcp-protocol-version": "2025-06-18" };
    const list = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(list.status, 200);
    assert.match(await list.text(), /"run_scenario"/);
    const del = await fetch(url, { method: "DELETE", headers });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    const after = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    });
    assert.equal(after.status, 404, "the session is gone");
    await after.body?.cancel();
    const noSession = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }),
    });
    assert.equal(noSession.status, 400, "2025-era requests need initialize first");
    await noSession.body?.cancel();
  } finally {
    await f.close();
  }
});

Deno.test("streamable-http: run_scenario returns what runScenarioOp returns (deterministic run)", async () => {
  const envVars = { SOURCE_DATE_EPOCH: "1767225600" };
  const f = await startHttp("streamable-http", { envVars });
  const client = await clientV1(
    new StreamableHTTPClientTransportV1(new URL(f.serving.url)),
    "http v1",
  );
  const direct = await testHost({
    caller: "network",
    env: f.env,
    key: keyFromText(FIXTURE_KEY_TEXT),
    store: `${f.dirs.root}/direct`,
    scenarioDir: f.dirs.scenarios,
  });
  try {
    const schemas = await checkToolList(client);
    const viaMcp = await callOk(client, schemas, "run_scenario", {
      scenario: "arithmetic-accuracy",
      substrate: "builtin:calculator",
    });
    const op = await invoke(
      runScenarioOp,
      { scenario: "arithmetic-accuracy", substrate: "builtin:calculator" },
      direct,
    );
    assert.equal(viaMcp.path, `${op.proof_id}.json`);
    assert.deepEqual(viaMcp, op);
    assert.equal(viaMcp.outcome, "VALIDATED");
  } finally {
    direct.close();
    await client.close();
    await f.close();
  }
});

Deno.test("streamable-http: cmd: substrates are refused unless --allow-cmd-substrates", async () => {
  const f = await startHttp("streamable-http");
  const client = await clientV1(
    new StreamableHTTPClientTransportV1(new URL(f.serving.url)),
    "http v1",
  );
  try {
    const r = await client.call("run_scenario", {
      scenario: "arithmetic-accuracy",
      substrate: "cmd:python3 -c pass",
    });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^forbidden: .*\(cmd: substrates\).*--allow-cmd-substrates/);
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("streamable-http: Origin and Host are checked (DNS-rebinding protection)", async () => {
  const f = await startHttp("streamable-http", { allowOrigins: ["https://app.example:8443"] });
  try {
    const url = f.serving.url;
    const evil = await post(url, { origin: "http://evil.example" });
    assert.equal(evil.status, 403);
    assert.match(await evil.text(), /Invalid Origin: evil\.example/);
    const opaque = await post(url, { origin: "null" });
    assert.equal(opaque.status, 403);
    await opaque.body?.cancel();
    const body = JSON.stringify(INIT);
    const raw = (host: string) =>
      rawStatus(
        f.serving.port,
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    assert.equal(await raw("attacker.example"), 403, "a DNS-rebound Host is refused");
    assert.equal(await raw(`localhost:${f.serving.port}`), 200, "a loopback Host passes");
    for (const origin of [`http://localhost:5173`, "https://app.example"]) {
      const ok = await post(url, { origin });
      assert.equal(ok.status, 200, origin);
      await ok.body?.cancel();
    }
    const none = await post(url);
    assert.equal(none.status, 200, "clients that send no Origin pass");
    await none.body?.cancel();
    const elsewhere = await fetch(url.replace("/mcp", "/other"));
    assert.equal(elsewhere.status, 404);
    await elsewhere.body?.cancel();
  } finally {
    await f.close();
  }
});

Deno.test("streamable-http: the bearer token is enforced (401 without, 200 with)", async () => {
  const token = "s3cret-token-for-tests-0123456789";
  const f = await startHttp("streamable-http", { token });
  try {
    const url = f.serving.url;
    const without = await post(url);
    assert.equal(without.status, 401);
    assert.match(without.headers.get("www-authenticate") ?? "", /^Bearer/);
    await without.body?.cancel();
    const wrong = await post(url, { authorization: "Bearer not-the-token" });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const right = await post(url, { authorization: `Bearer ${token}` });
    assert.equal(right.status, 200);
    await right.body?.cancel();
    // real clients of both generations, with the header
    await assert.rejects(
      clientV1(new StreamableHTTPClientTransportV1(new URL(url)), "no token"),
    );
    const headers = { authorization: `Bearer ${token}` };
    const c1 = await clientV1(
      new StreamableHTTPClientTransportV1(new URL(url), { requestInit: { headers } }),
      "v1 token",
    );
    const c2 = await clientV2(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
      "v2 token",
      { pin: "2026-07-28" },
    );
    for (const c of [c1, c2]) {
      const r = await c.call("canonicalize_value", { value_json: "{}" });
      assert.equal(r.isError, undefined, c.label);
      assert.equal(r.structuredContent?.canonical, "{}");
      await c.close();
    }
  } finally {
    await f.close();
  }
});

Deno.test("mcp serve (CLI): refuses to bind beyond loopback without a token; serves with one", async () => {
  const refused = await new Deno.Command(Deno.execPath(), {
    args: serveArgs(["--transport", "streamable-http", "--host", "0.0.0.0", "--port", "0"]),
    env: childEnv({}),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(refused.code, 64);
  const err = new TextDecoder().decode(refused.stderr);
  assert.match(
    err,
    /usage_error: --host 0\.0\.0\.0 is reachable beyond this machine: give a bearer token/,
  );
  assert.equal(refused.stdout.length, 0);

  const dir = await Deno.makeTempDir();
  const token = "cli-token-0123456789abcdef";
  const child = new Deno.Command(Deno.execPath(), {
    args: serveArgs(["--transport", "streamable-http", "--port", "0"]),
    env: childEnv({ EMPIRIC_MCP_TOKEN: token, EMPIRIC_STORE: `${dir}/store` }),
    clearEnv: true,
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await lines.read();
    if (done) break;
    seen += value;
    url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp) \(Streamable HTTP; bearer token required/
      .exec(seen)?.[1];
  }
  try {
    assert.ok(url, seen);
    assert.match(seen, new RegExp(`proof store: ${dir}/store \\(EMPIRIC_STORE\\)`));
    assert.match(seen, /warning: no key given .* public demo key/);
    const denied = await post(url);
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    const c = await clientV2(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
      "cli v2",
      { pin: "2026-07-28" },
    );
    const r = await c.call("list_scenarios", {});
    assert.ok(Array.isArray(r.structuredContent?.scenarios));
    await c.close();
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await lines.cancel();
    assert.equal(status.code, 0, "stops cleanly on SIGTERM");
    assert.equal(await stdout, "", "logs go to stderr");
    await Deno.remove(dir, { recursive: true });
  }
});
