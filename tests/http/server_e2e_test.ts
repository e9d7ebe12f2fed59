// The real `empiric http serve` (and `server.ts`) in a child process on a loopback port:
// every endpoint over the network, structured logs, the key never shown, auth and the body
// limit on real sockets, --workers spreading connections, and a clean SIGTERM/SIGINT
// shutdown that lets an in-flight request finish.
import assert from "node:assert/strict";
import { freshFetch, RECORDS, ROOT, startServer } from "./support.ts";

const KEY = "e2e-secret-key-do-not-print-0123456789-zyx";
const TOKEN = "e2e-token-0123456789abcdef";

/** An HTTP substrate answering 0 that holds its first answer until `release()`. */
function heldSubstrate() {
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  let firstArrived!: () => void;
  const arrived = new Promise<void>((r) => firstArrived = r);
  let calls = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    if (calls++ === 0) {
      firstArrived();
      await released;
    }
    return Response.json({ answer: 0 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    /** Resolves when the first request is being held. */
    arrived,
    release,
    get calls() {
      return calls;
    },
    shutdown: () => server.shutdown(),
  };
}

const post = (url: string, json: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(json),
  });

Deno.test({
  name: "server.ts = empiric http serve: every endpoint over HTTP, JSON logs, the key never shown",
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const server = await startServer(["--port", "0", "--store", `${dir}/store`], {
      entry: `${ROOT}server.ts`,
      env: { EMPIRIC_SIGN_KEY: KEY },
      cwd: dir,
    });
    const bodies: string[] = [];
    const text = async (res: Response) => {
      const t = await res.text();
      bodies.push(t, JSON.stringify([...res.headers]));
      return t;
    };
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${server.url}/health`);
      assert.equal(health.status, 200);
      assert.equal(JSON.parse(await text(health)).status, "ok");
      const version = JSON.parse(await text(await fetch(`${server.url}/version`)));
      assert.equal(version.schema_version, "1.0");
      const doc = JSON.parse(await text(await fetch(`${server.url}/openapi.json`)));
      assert.equal(doc.openapi, "3.1.0");
      const docs = await fetch(`${server.url}/docs`);
      assert.match(await text(docs), /swagger-ui-bundle\.js/);
      assert.match(docs.headers.get("content-security-policy")!, /script-src 'self'/);
      const list = JSON.parse(await text(await fetch(`${server.url}/scenarios`)));
      assert.ok(list.scenarios.length >= 3);
      const claim = JSON.parse(
        await text(await fetch(`${server.url}/scenarios/arithmetic-accuracy`)),
      );
      assert.equal(claim.name, "arithmetic-accuracy");
      const canon = JSON.parse(
        await text(await post(`${server.url}/canonicalize`, { value_json: '{"b":1.0,"a":1}' })),
      );
      assert.equal(canon.canonical, '{"a":1,"b":1.0}');

      const run = await post(`${server.url}/runs`, { scenario: "arithmetic-accuracy" });
      assert.equal(run.status, 201);
      const result = JSON.parse(await text(run));
      assert.equal(run.headers.get("location"), `/proofs/${result.proof_id}`);
      const index = JSON.parse(await text(await fetch(`${server.url}/proofs?outcome=VALIDATED`)));
      assert.equal(index.total, 1);
      const file = await fetch(`${server.url}${run.headers.get("location")}`);
      assert.equal(file.status, 200);
      const bytes = new Uint8Array(await file.arrayBuffer());
      assert.deepEqual(bytes, await Deno.readFile(`${dir}/store/${result.proof_id}.json`));
      const verify = await post(`${server.url}/verify`, {
        proof_json: new TextDecoder().decode(bytes),
      });
      const v = JSON.parse(await text(verify));
      assert.equal(v.verified, true);
      assert.equal(v.demo_key, false);
      const tampered = await post(`${server.url}/verify`, {
        proof_json: await Deno.readTextFile(`${RECORDS}tampered-signature.json`),
      });
      assert.equal(JSON.parse(await text(tampered)).verified, false);
      for (const bad of ["{", '{"proof_json": 1}']) {
        const r = await fetch(`${server.url}/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: bad,
        });
        assert.equal(r.status, 400);
        await text(r);
      }
      const missing = await fetch(`${server.url}/nope`);
      assert.equal(missing.status, 404);
      await text(missing);
    } finally {
      const status = await server.stop("SIGTERM");
      assert.equal(status.code, 0, server.stderr());
    }
    const logs = server.logs();
    const requests = logs.filter((l) => l.msg === "request");
    assert.ok(requests.length >= 15, `one line per request (${requests.length})`);
    for (const l of requests) {
      assert.equal(typeof l.method, "string");
      assert.equal(typeof l.path, "string");
      assert.equal(typeof l.status, "number");
      assert.equal(typeof l.duration_ms, "number");
      assert.match(String(l.request_id), /^[0-9a-f-]{36}$/);
      assert.equal(l.remote, "127.0.0.1");
    }
    assert.ok(requests.some((l) => l.path === "/runs" && l.status === 201));
    for (const line of server.stderr().split("\n")) {
      assert.ok(
        line === "" || line.startsWith("{") || /^listening on http:\/\/\S+$/.test(line),
        `standard error holds only JSON log lines and the listening line: ${line}`,
      );
    }
    assert.ok(logs.some((l) => l.msg === "stopped"));
    // The key is in no response, header or log line (as text, hex or base64).
    const keyBytes = new TextEncoder().encode(KEY);
    const forms = [
      KEY,
      Array.from(keyBytes, (b) => b.toString(16).padStart(2, "0")).join(""),
      btoa(KEY),
    ];
    for (const f of forms) {
      assert.ok(!server.stderr().includes(f), "key in the log");
      assert.ok(!bodies.some((b) => b.includes(f)), "key in a response");
    }
  },
});

Deno.test({
  name: "real sockets: token auth (EMPIRIC_HTTP_TOKEN) and the body limit (413, also chunked)",
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const server = await startServer(
      ["http", "serve", "--port", "0", "--max-body-bytes", "2000", "--store", `${dir}/s`],
      { env: { EMPIRIC_HTTP_TOKEN: TOKEN, EMPIRIC_SIGN_KEY: KEY }, cwd: dir },
    );
    try {
      const run = { scenario: "arithmetic-accuracy" };
      const anon = await post(`${server.url}/runs`, run);
      assert.equal(anon.status, 401);
      assert.equal(anon.headers.get("www-authenticate"), 'Bearer realm="empiric"');
      await anon.body?.cancel();
      const ok = await post(`${server.url}/runs`, run, { authorization: `Bearer ${TOKEN}` });
      assert.equal(ok.status, 201);
      await ok.body?.cancel();

      const big = await post(`${server.url}/canonicalize`, { value_json: "1".repeat(3000) });
      assert.equal(big.status, 413);
      assert.equal((await big.json()).code, "payload_too_large");
      const chunks = [new TextEncoder().encode('{"value_json":"'), new Uint8Array(2500).fill(0x31)];
      const chunked = await fetch(`${server.url}/canonicalize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(c) {
            for (const x of chunks) c.enqueue(x);
            c.close();
          },
        }),
      });
      assert.equal(chunked.status, 413);
      await chunked.body?.cancel();
      const small = await post(`${server.url}/canonicalize`, { value_json: "[1,2]" });
      assert.equal(small.status, 200);
      await small.body?.cancel();
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    assert.ok(!server.stderr().includes(TOKEN), "the token is not logged");
  },
});

Deno.test({
  name: "real sockets: a body that stops arriving gets 408 (--body-timeout-ms)",
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const server = await startServer(
      ["http", "serve", "--port", "0", "--body-timeout-ms", "200", "--store", `${dir}/s`],
      { env: { EMPIRIC_SIGN_KEY: KEY }, cwd: dir },
    );
    try {
      const { port } = new URL(server.url);
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
      try {
        // Headers promise 100 bytes; 15 come, then nothing.
        await conn.write(
          new TextEncoder().encode(
            `POST /verify HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
              'Content-Length: 100\r\n\r\n{"proof_json":"',
          ),
        );
        let text = "";
        const buf = new Uint8Array(4096);
        const decoder = new TextDecoder();
        while (!/\r\n\r\n[^]*\}$/.test(text)) {
          const n = await conn.read(buf);
          assert.ok(n !== null, `the server closed before answering: ${text}`);
          text += decoder.decode(buf.subarray(0, n));
        }
        assert.match(text, /^HTTP\/1\.1 408 /);
        assert.match(text, /\r\nconnection: close\r\n/i);
        const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
        assert.equal(body.code, "request_timeout");
        assert.equal(body.status, 408);
      } finally {
        conn.close();
      }
      // The server goes on serving.
      const ok = await post(`${server.url}/canonicalize`, { value_json: "[1]" });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    assert.match(server.stderr(), /"status":408/);
  },
});

Deno.test({
  name: "--workers 2: two processes share the port, both serve; SIGINT stops them all",
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const server = await startServer(
      ["http", "serve", "--port", "0", "--workers", "2", "--store", `${dir}/s`],
      { env: { EMPIRIC_SIGN_KEY: KEY }, cwd: dir, timeoutMs: 60_000 },
    );
    const listening = server.logs().find((l) => l.msg === "listening")!;
    const pids = listening.pids as number[];
    assert.equal(pids.length, 2);
    try {
      for (let i = 0; i < 40; i++) {
        const r = await freshFetch(`${server.url}/health`);
        assert.equal(r.status, 200);
      }
      // Log lines are written in batches: wait until both workers' lines are out.
      await server.waitFor(/"msg":"request".*"worker":1\}/);
      await server.waitFor(/"msg":"request".*"worker":2\}/);
      const workers = new Set(
        server.logs().filter((l) => l.msg === "request").map((l) => l.worker),
      );
      assert.deepEqual([...workers].sort(), [1, 2], "connections reached both processes");
    } finally {
      const status = await server.stop("SIGINT");
      assert.equal(status.code, 0, server.stderr());
    }
    assert.ok(server.logs().some((l) => l.msg === "stopped" && l.worker === "supervisor"));
    for (const pid of pids) {
      const alive = await Deno.stat(`/proc/${pid}`).then(() => true, () => false);
      assert.equal(alive, false, `worker process ${pid} is gone`);
    }
    const refused = await fetch(`${server.url}/health`).then(() => false, () => true);
    assert.ok(refused, "nothing listens any more");
  },
});

Deno.test({
  name: "SIGTERM: no new connections, the in-flight request finishes (201), exit 0",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const substrate = heldSubstrate();
    const dir = await Deno.makeTempDir();
    const server = await startServer(["http", "serve", "--port", "0", "--store", `${dir}/s`], {
      env: { EMPIRIC_SIGN_KEY: KEY },
      cwd: dir,
    });
    try {
      const inFlight = post(`${server.url}/runs`, {
        scenario: "arithmetic-accuracy",
        substrate: substrate.url,
      });
      let settled = false;
      inFlight.finally(() => settled = true);
      await substrate.arrived;
      server.process.kill("SIGTERM");
      await server.waitFor(/"msg":"shutting down"/);
      let refused = false;
      for (let i = 0; i < 100 && !refused; i++) {
        refused = await freshFetch(`${server.url}/health`).then(() => false, () => true);
        if (!refused) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(refused, "new connections are refused while shutting down");
      assert.equal(settled, false, "…while the run is still in flight");
      substrate.release();
      const res = await inFlight;
      assert.equal(res.status, 201, await res.clone().text());
      const body = await res.json();
      assert.equal(body.measured, 120, "the whole run was measured");
      const status = await server.exit();
      assert.equal(status.code, 0, server.stderr());
      const order = server.logs().map((l) => l.msg === "request" ? `${l.path} ${l.status}` : l.msg);
      const i = order.indexOf("shutting down");
      assert.ok(i >= 0 && order.indexOf("/runs 201") > i, order.join(", "));
      assert.equal(order.at(-1), "stopped");
      assert.ok(await Deno.stat(`${dir}/s/${body.proof_id}.json`), "the record was stored");
    } finally {
      substrate.release();
      await server.stop("SIGKILL");
      await substrate.shutdown();
    }
  },
});

Deno.test({
  name: "a run whose client disconnects still completes and is stored",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const substrate = heldSubstrate();
    const dir = await Deno.makeTempDir();
    const server = await startServer(["http", "serve", "--port", "0", "--store", `${dir}/s`], {
      env: { EMPIRIC_SIGN_KEY: KEY },
      cwd: dir,
    });
    try {
      const ctl = new AbortController();
      const gone = fetch(`${server.url}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          scenario: "arithmetic-accuracy",
          substrate: substrate.url,
        }),
        signal: ctl.signal,
      }).then(() => "answered", (e) => (e as Error).name);
      await substrate.arrived;
      ctl.abort();
      assert.equal(await gone, "AbortError");
      substrate.release();
      await server.waitFor(/"path":"\/runs","status":201/);
      const page = await (await fetch(`${server.url}/proofs`)).json();
      assert.equal(page.total, 1, "the record was stored");
      // 120 items and one priming call, made before measuring (docs/statistics.md, Measurement).
      assert.equal(substrate.calls, 121, "every item was sent");
    } finally {
      substrate.release();
      assert.equal((await server.stop()).code, 0, server.stderr());
      await substrate.shutdown();
    }
  },
});

Deno.test({
  name:
    "clients that half-close after their body, or name bad substrates, get no 5xx and leave no stack",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const server = await startServer(["http", "serve", "--port", "0", "--store", `${dir}/s`], {
      env: { EMPIRIC_SIGN_KEY: KEY },
      cwd: dir,
    });
    try {
      const body = JSON.stringify({
        proof_json: await Deno.readTextFile(`${RECORDS}valid.json`),
      });
      const statuses = new Map<number, number>();
      for (let i = 0; i < 100; i++) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
        await conn.write(
          new TextEncoder().encode(
            `POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${body.length}\r\n\r\n${body}`,
          ),
        );
        await conn.closeWrite();
        const buf = new Uint8Array(1024);
        const n = await conn.read(buf).catch(() => null);
        const status = Number(
          /^HTTP\/1\.1 (\d{3})/.exec(
            new TextDecoder().decode(buf.subarray(0, n ?? 0)),
          )?.[1] ?? 0,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        conn.close();
      }
      for (const s of statuses.keys()) assert.ok(s < 500, `status ${s}: ${[...statuses]}`);
      // Client mistakes in substrate names are 4xx, never 502.
      for (const substrate of ["CMD:id", " cmd:id", "file:///etc/passwd", "builtin:../..", ""]) {
        const res = await post(`${server.url}/runs`, {
          scenario: "arithmetic-accuracy",
          substrate,
        });
        const problem = await res.json();
        assert.ok(
          res.status >= 400 && res.status < 500,
          `${JSON.stringify(substrate)}: ${res.status}`,
        );
        assert.match(problem.code, /^(usage_error|forbidden)$/, JSON.stringify(problem));
      }
    } finally {
      assert.equal((await server.stop()).code, 0, server.stderr());
    }
    const errors = server.logs().filter((l) => l.level === "error");
    assert.deepEqual(errors, [], "no error lines");
    assert.doesNotMatch(server.stderr(), /"stack"|\n\s+at /, "no stack in the log");
  },
});

Deno.test({
  name: "operating conditions have their own codes: a host that does not resolve, a killed worker",
  sanitizeResources: false,
  fn: async () => {
    const { runCli } = await import("../support/run_cli.ts");
    const r = await runCli(["http", "serve", "--host", "no-such-host.invalid", "--port", "0"], {
      env: { EMPIRIC_SIGN_KEY: KEY, EMPIRIC_HTTP_TOKEN: TOKEN },
    });
    assert.equal(r.code, 69, r.stderr);
    assert.match(r.stderr, /^empiric: bind_failed: cannot listen on no-such-host\.invalid:0: /);
    assert.doesNotMatch(r.stderr, /this is a bug|internal_error/);

    const dir = await Deno.makeTempDir();
    const server = await startServer(
      ["http", "serve", "--port", "0", "--workers", "2", "--store", `${dir}/s`],
      { env: { EMPIRIC_SIGN_KEY: KEY }, cwd: dir, timeoutMs: 60_000 },
    );
    const pids = server.logs().find((l) => l.msg === "listening")!.pids as number[];
    Deno.kill(pids[1], "SIGKILL");
    const status = await server.exit();
    assert.equal(status.code, 71, server.stderr());
    assert.match(server.stderr(), /empiric: worker_failed: worker \d exited unexpectedly/);
    assert.doesNotMatch(server.stderr(), /this is a bug/);
  },
});
