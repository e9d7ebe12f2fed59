// HTTP+SSE (`empiric mcp serve --transport sse`: GET /sse, POST /messages?sessionId=…): real SDK
// clients against a real server on loopback; Origin and token checks on both endpoints.
import assert from "node:assert/strict";
import {
  callOk,
  cancellationCheck,
  checkToolList,
  clientV1,
  clientV2,
  SSEClientTransport,
  SSEClientTransportV1,
  startHttp,
  toolSuite,
} from "./support.ts";

/** Open the event stream and read up to the `endpoint` event; returns the message path. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers } });
  if (res.status !== 200) return { res, endpoint: undefined, close: () => res.body?.cancel() };
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/\n\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const endpoint = /^event: endpoint\ndata: (\/messages\?sessionId=[0-9a-f-]{36})\n\n/.exec(text)
    ?.[1];
  return { res, endpoint, close: () => reader.cancel() };
}

Deno.test("sse: a 2025-11-25 client (SDK 1.x) uses every tool and resource, with progress and cancellation", async () => {
  const f = await startHttp("sse");
  const client = await clientV1(new SSEClientTransportV1(new URL(f.serving.url)), "sse v1");
  try {
    assert.match(f.serving.url, /^http:\/\/127\.0\.0\.1:\d+\/sse$/);
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

Deno.test("sse: a 2025-06-18 client (SDK 2.x) is served at its revision", async () => {
  const f = await startHttp("sse");
  const client = await clientV2(
    new SSEClientTransport(new URL(f.serving.url)),
    "sse v2 2025-06-18",
    { legacy: "2025-06-18" },
  );
  try {
    assert.equal(client.protocolVersion(), "2025-06-18");
    const schemas = await checkToolList(client);
    const r = await callOk(client, schemas, "get_scenario_claim", { name: "arithmetic-accuracy" });
    assert.match(r.config_hash, /^[0-9a-f]{64}$/);
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("sse: the endpoint event, message endpoint errors, Origin and token", async () => {
  const token = "sse-token-0123456789abcdef";
  const f = await startHttp("sse", { token });
  const auth = { authorization: `Bearer ${token}` };
  const base = f.serving.url.replace(/\/sse$/, "");
  try {
    const noToken = await openStream(f.serving.url);
    assert.equal(noToken.res.status, 401);
    await noToken.close();
    const evil = await openStream(f.serving.url, { ...auth, origin: "https://evil.example" });
    assert.equal(evil.res.status, 403);
    await evil.close();

    const s = await openStream(f.serving.url, auth);
    assert.ok(s.endpoint, "the first event names the message endpoint");
    const postTo = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(base + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const unauth = await postTo(s.endpoint!, ping);
    assert.equal(unauth.status, 401, "the message endpoint needs the token too");
    await unauth.body?.cancel();
    const badOrigin = await postTo(s.endpoint!, ping, { ...auth, origin: "http://evil.example" });
    assert.equal(badOrigin.status, 403);
    await badOrigin.body?.cancel();
    const notJson = await postTo(s.endpoint!, "{", auth);
    assert.equal(notJson.status, 400);
    await notJson.body?.cancel();
    const wrongType = await fetch(base + s.endpoint!, {
      method: "POST",
      headers: { "content-type": "text/plain", ...auth },
      body: ping,
    });
    assert.equal(wrongType.status, 415);
    await wrongType.body?.cancel();
    const unknown = await postTo("/messages?sessionId=nope", ping, auth);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    const accepted = await postTo(s.endpoint!, ping, auth);
    assert.equal(accepted.status, 202);
    await accepted.body?.cancel();
    await s.close();

    const c = await clientV1(
      new SSEClientTransportV1(new URL(f.serving.url), {
        requestInit: { headers: auth },
        eventSourceInit: {
          fetch: (u: string | URL | Request, init?: RequestInit) =>
            fetch(u, { ...init, headers: { ...init?.headers, ...auth } }),
        },
      }),
      "sse v1 token",
    );
    const r = await c.call("canonicalize_value", { value_json: "[]" });
    assert.equal(r.structuredContent?.canonical, "[]");
    await c.close();
  } finally {
    await f.close();
  }
});
