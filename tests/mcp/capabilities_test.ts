// The MCP capabilities beyond tools, over Streamable HTTP (a real server on loopback) and stdio
// (the spawned CLI), with the 1.x SDK client most agents embed: logging (setLevel, log messages
// during run_scenario), completions, prompts, resource subscriptions (list_changed and updated
// when proofs are added), and SSE resumption with Last-Event-ID.
import assert from "node:assert/strict";
import { ClientV1, StdioClientTransportV1, StreamableHTTPClientTransportV1 } from "./sdk_v1.ts";
import { FIXTURE_KEY_TEXT, startHttp, stdioParams, tempDirs } from "./support.ts";
import { runCli } from "../support/run_cli.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const INFO = { name: "empiric-capabilities-test", version: "1.0.0" };

async function exercise(client: InstanceType<typeof ClientV1>, store: string, network: boolean) {
  const caps = client.getServerCapabilities() as Json;
  assert.ok(caps.logging, "logging declared");
  assert.ok(caps.completions, "completions declared");
  assert.ok(caps.prompts, "prompts declared");
  assert.equal(caps.resources.subscribe, true);
  assert.equal(caps.resources.listChanged, true);

  // Logging: messages during run_scenario at the level set.
  const logs: Json[] = [];
  const notices: string[] = [];
  client.setNotificationHandler(
    (await import("@modelcontextprotocol/sdk/types.js")).LoggingMessageNotificationSchema,
    (n: Json) => void logs.push(n.params),
  );
  client.setNotificationHandler(
    (await import("@modelcontextprotocol/sdk/types.js"))
      .ResourceListChangedNotificationSchema,
    () => void notices.push("list_changed"),
  );
  client.setNotificationHandler(
    (await import("@modelcontextprotocol/sdk/types.js")).ResourceUpdatedNotificationSchema,
    (n: Json) => void notices.push(`updated ${n.params.uri}`),
  );
  await client.setLoggingLevel("info");
  await client.subscribeResource({ uri: "empiric://proofs" });
  const run = await client.callTool({
    name: "run_scenario",
    arguments: { scenario: "arithmetic-accuracy" },
  }) as Json;
  assert.equal(run.isError, undefined, JSON.stringify(run));
  const until = Date.now() + 5000;
  while ((notices.length < 2 || logs.length < 3) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(
    logs.some((l) => l.level === "info" && l.data.phase === "measure"),
    JSON.stringify(logs),
  );
  assert.ok(logs.some((l) => l.data.message === "record signed"));
  assert.ok(logs.every((l) => l.logger === "empiric.run_scenario"));
  assert.ok(notices.includes("list_changed"), notices.join());
  assert.ok(notices.includes("updated empiric://proofs"), notices.join());
  // A level above info silences them.
  await client.setLoggingLevel("error");
  const before = logs.length;
  await client.callTool({ name: "run_scenario", arguments: { scenario: "arithmetic-accuracy" } });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(logs.length, before, "no info messages under level error");
  // A record another process adds is announced too (the store is polled).
  await client.unsubscribeResource({ uri: "empiric://proofs" });
  notices.length = 0;
  const other = await runCli(["run", "sentiment-accuracy", "--store", store, "-q"], {
    env: { EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT },
  });
  assert.equal(other.code, 0, other.stderr);
  const until2 = Date.now() + 8000;
  while (!notices.includes("list_changed") && Date.now() < until2) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(notices.includes("list_changed"), "a proof stored by another process is announced");
  assert.ok(!notices.some((n) => n.startsWith("updated")), "no updates once unsubscribed");

  // Completions: scenario names, proof ids, substrates this server allows.
  const names = await client.complete({
    ref: { type: "ref/resource", uri: "empiric://scenarios/{name}" },
    argument: { name: "name", value: "ari" },
  });
  assert.deepEqual(names.completion.values, ["arithmetic-accuracy"]);
  const ids = await client.complete({
    ref: { type: "ref/resource", uri: "empiric://proofs/{proof_id}" },
    argument: { name: "proof_id", value: run.structuredContent.proof_id.slice(0, 10) },
  });
  assert.deepEqual(ids.completion.values, [run.structuredContent.proof_id]);
  const subs = await client.complete({
    ref: { type: "ref/prompt", name: "draft_claim" },
    argument: { name: "substrate", value: "" },
  });
  assert.ok(subs.completion.values.includes("builtin:calculator"));
  assert.equal(subs.completion.values.includes("cmd:"), !network, "cmd: only where allowed");

  // Prompts.
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p: Json) => p.name).sort(), ["draft_claim", "explain_proof"]);
  const draft = await client.getPrompt({
    name: "draft_claim",
    arguments: { system: "a search service answering queries over HTTP", concern: "p95 latency" },
  });
  const draftText = draft.messages.map((m: Json) => m.content.text).join("\n");
  assert.match(draftText, /search service/);
  assert.match(draftText, /threshold/);
  assert.match(draftText, /arithmetic-accuracy/);
  const explain = await client.getPrompt({
    name: "explain_proof",
    arguments: { proof_id: run.structuredContent.proof_id },
  });
  const embedded: Json = explain.messages.find((m: Json) => m.content.type === "resource");
  assert.equal(embedded.content.resource.uri, `empiric://proofs/${run.structuredContent.proof_id}`);
  assert.match(embedded.content.resource.text, /"signature"/);
  await assert.rejects(
    client.getPrompt({ name: "explain_proof", arguments: { proof_id: "0".repeat(64) } }),
  );
}

Deno.test("streamable-http: logging, completions, prompts and subscriptions", async () => {
  const f = await startHttp("streamable-http");
  const client = new ClientV1(INFO);
  await client.connect(new StreamableHTTPClientTransportV1(new URL(f.serving.url)));
  try {
    await exercise(client, f.dirs.store, true);
  } finally {
    await client.close();
    await f.close();
  }
});

Deno.test("stdio: logging, completions, prompts and subscriptions", async () => {
  const dirs = await tempDirs();
  const client = new ClientV1(INFO);
  await client.connect(new StdioClientTransportV1(stdioParams(dirs)));
  try {
    await exercise(client, dirs.store, false);
  } finally {
    await client.close();
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("streamable-http: a stream starts with a priming event and resumes with Last-Event-ID", async () => {
  const f = await startHttp("streamable-http");
  try {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await fetch(f.serving.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    const session = init.headers.get("mcp-session-id")!;
    await init.body?.cancel();
    const sessionHeaders = {
      ...headers,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    await (await fetch(f.serving.url, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })).body?.cancel();
    // A run with progress; read the priming event and a few events, then drop the stream.
    const res = await fetch(f.serving.url, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "run_scenario",
          arguments: { scenario: "echo-latency" },
          _meta: { progressToken: "p" },
        },
      }),
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while ((text.match(/\n\n/g) ?? []).length < 3) text += (await reader.read()).value ?? "";
    await reader.cancel();
    const events = text.split("\n\n").filter((e) => e.trim());
    assert.match(events[0], /^id: \S+\nretry: \d+\ndata: $/m, "a priming event first");
    const lastId = /^id: (\S+)$/m.exec(events.at(-1)!)![1];
    // Reconnect: everything after the last event seen arrives, the result included.
    const resumed = await fetch(f.serving.url, {
      method: "GET",
      headers: { ...sessionHeaders, accept: "text/event-stream", "last-event-id": lastId },
    });
    assert.equal(resumed.status, 200);
    const r2 = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    const deadline = Date.now() + 30_000;
    while (!/"id":2,"result"|"result".*"id":2/.test(rest) && Date.now() < deadline) {
      const { value, done } = await r2.read();
      if (done) break;
      rest += value;
    }
    await r2.cancel();
    assert.match(rest, /"structuredContent"/, "the tool result arrives on the resumed stream");
  } finally {
    await f.close();
  }
});
