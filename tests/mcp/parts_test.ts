// The small parts of the MCP server: progress mapping, origin allow-list entries, loopback
// detection, constant-time token comparison.
import assert from "node:assert/strict";
import { progressNotifier } from "../../src/mcp/tools.ts";
import { originAllowEntry } from "../../src/mcp/http.ts";
import { tokenMatches } from "../../src/net/access.ts";
import { isLoopbackHost, serveMcpHttp } from "../../src/mcp/serve_http.ts";
import type { RunProgress } from "../../src/run/execute.ts";

Deno.test("progressNotifier: nothing without a progressToken", () => {
  assert.equal(progressNotifier(undefined, () => assert.fail("sent")), undefined);
});

Deno.test("progressNotifier: one increasing percentage over all phases, throttled, ends at 100", () => {
  const sent: {
    progress: number;
    total: number;
    message: string;
    progressToken: string | number;
  }[] = [];
  const on = progressNotifier(7, (p) => sent.push(p))!;
  const events: RunProgress[] = [];
  for (let i = 1; i <= 10; i++) {
    events.push({ phase: "warmup", done: i, total: 10, failures: 0, elapsed_ms: i });
  }
  for (let i = 1; i <= 190; i++) {
    events.push({
      phase: "measure",
      done: i,
      total: 190,
      failures: i > 180 ? 1 : 0,
      elapsed_ms: i,
    });
  }
  for (let i = 0; i <= 2000; i += 100) {
    events.push({ phase: "analyze", done: i, total: 2000, failures: 0, elapsed_ms: 0 });
  }
  events.push({ phase: "done", done: 1, total: 1, failures: 1, elapsed_ms: 0 });
  for (const e of events) on(e);
  assert.ok(sent.length <= 101 && sent.length > 50, `${sent.length} notifications`);
  for (let i = 1; i < sent.length; i++) assert.ok(sent[i].progress > sent[i - 1].progress);
  assert.ok(sent.every((p) => p.total === 100 && p.progressToken === 7));
  assert.equal(sent.at(-1)!.progress, 100);
  assert.equal(sent.at(-1)!.message, "record signed");
  assert.ok(sent.some((p) => p.message === "warm-up: 10/10 items"));
  assert.ok(sent.some((p) => p.message === "measuring: 190/190 items, 1 failed"));
  assert.ok(sent.some((p) => /^bootstrap: \d+\/2000 resamples$/.test(p.message)));
  // warm-up ends at 5%, measuring at 90%
  assert.equal(sent.find((p) => p.message === "warm-up: 10/10 items")!.progress, 5);
  assert.equal(sent.find((p) => p.message === "measuring: 190/190 items, 1 failed")!.progress, 90);
});

Deno.test("originAllowEntry: origins reduce to hostnames; scheme wildcards stay", () => {
  assert.equal(originAllowEntry("https://app.example:8443"), "app.example");
  assert.equal(originAllowEntry("App.Example"), "app.example");
  assert.equal(originAllowEntry("moz-extension://*"), "moz-extension://*");
  assert.equal(originAllowEntry("http://[::1]:3000"), "[::1]");
});

Deno.test("isLoopbackHost", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) {
    assert.ok(isLoopbackHost(h), h);
  }
  for (const h of ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "127.0.0.256", "example.com", ""]) {
    assert.ok(!isLoopbackHost(h), h);
  }
});

Deno.test("tokenMatches compares whole values", () => {
  assert.equal(tokenMatches("abc", "abc"), true);
  assert.equal(tokenMatches("abc", "abd"), false);
  assert.equal(tokenMatches("abc", "abcd"), false);
  assert.equal(tokenMatches("", "a"), false);
});

Deno.test("serveMcpHttp refuses short or unprintable tokens, and no token beyond loopback", () => {
  const factory = () => assert.fail("no server is built");
  const log = () => {};
  for (const token of ["short", "has a space in it 0123", "ünïcödé-token-0123456789"]) {
    assert.throws(
      () => serveMcpHttp(factory, { transport: "streamable-http", port: 0, token, log }),
      /usage|bearer token must be/i,
      token,
    );
  }
  assert.throws(
    () => serveMcpHttp(factory, { transport: "sse", hostname: "0.0.0.0", port: 0, log }),
    /--host 0\.0\.0\.0 is reachable beyond this machine/,
  );
});
