// Authentication and authorization: the loopback rule, bearer tokens for writes (and for
// everything with --auth all), 401/403, the Host check, read-only servers, cmd: substrates.
import assert from "node:assert/strict";
import { createApp } from "../../src/http/app.ts";
import { isLoopbackHost, tokenMatches, validateAuthConfig } from "../../src/http/auth.ts";
import { jsonLineLogger } from "../../src/http/log.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { DEFAULT_DEMO_KEY } from "../../src/crypto/keys.ts";
import { runEntry, testApp } from "./support.ts";
import { testHost } from "../support/ops.ts";

const TOKEN = "tok-0123456789abcdef-XYZ";
const RUN = { scenario: "arithmetic-accuracy", substrate: "builtin:calculator" };

async function status(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

Deno.test("loopback without a token: writes and reads are open", async () => {
  const t = await testApp({ auth: { listenHost: "127.0.0.1" } });
  try {
    assert.equal(await status(await t.req("POST", "/runs", { json: RUN })), 201);
    assert.equal(await status(await t.req("GET", "/proofs")), 200);
  } finally {
    await t.close();
  }
});

Deno.test("a non-loopback address without a token is refused; with one, writes need it", async () => {
  const host = await testHost({
    caller: "network",
    key: new TextEncoder().encode("k".repeat(32)),
    store: await Deno.makeTempDir(),
  });
  try {
    const deps = { host, logger: jsonLineLogger(() => {}, { batch: false }) };
    for (const listenHost of ["0.0.0.0", "::", "192.168.1.10", "example.org"]) {
      assert.throws(
        () => createApp({ ...deps, auth: { listenHost } }),
        (e) => e instanceof EmpiricError && e.code === "usage_error" && /token/.test(e.message),
        listenHost,
      );
    }
  } finally {
    await host.close();
  }
  const t = await testApp({ auth: { listenHost: "0.0.0.0", token: TOKEN } });
  try {
    const none = await t.req("POST", "/runs", { json: RUN });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="empiric"');
    const body = await none.json();
    assert.equal(body.code, "unauthorized");
    assert.equal(body.type, "https://empiric.dev/problems/unauthorized");

    const wrong = await t.req("POST", "/runs", {
      json: RUN,
      headers: { authorization: `Bearer ${TOKEN}x` },
    });
    assert.equal(wrong.status, 401);
    assert.equal(
      wrong.headers.get("www-authenticate"),
      'Bearer realm="empiric", error="invalid_token"',
    );
    await wrong.body?.cancel();
    const basic = await t.req("POST", "/runs", {
      json: RUN,
      headers: { authorization: `Basic ${btoa(`u:${TOKEN}`)}` },
    });
    assert.equal(await status(basic), 401);

    const right = await t.req("POST", "/runs", {
      json: RUN,
      headers: { authorization: `bearer ${TOKEN}` },
    });
    assert.equal(await status(right), 201, "the scheme is case-insensitive");
    // Reads stay open with --auth writes; a server beyond loopback answers any Host name.
    assert.equal(await status(await t.req("GET", "/proofs")), 200);
    const foreign = await t.app.request("http://empiric.example.org/health");
    assert.equal(await status(foreign), 200);
  } finally {
    await t.close();
  }
});

Deno.test("the 401 comes before the body is read (no 413/415 for anonymous clients)", async () => {
  const t = await testApp({ auth: { listenHost: "127.0.0.1", token: TOKEN } });
  try {
    const res = await t.req("POST", "/runs", {
      body: "x".repeat(2 * 1024 * 1024),
      headers: { "content-type": "text/plain" },
    });
    assert.equal(await status(res), 401);
  } finally {
    await t.close();
  }
});

Deno.test("--auth all: every data endpoint needs the token; /health, /openapi.json, /docs do not", async () => {
  const t = await testApp({ auth: { listenHost: "127.0.0.1", token: TOKEN, mode: "all" } });
  try {
    const protectedRoutes: [string, string, unknown?][] = [
      ["POST", "/verify", { proof_json: "{}" }],
      ["GET", "/scenarios"],
      ["GET", "/scenarios/echo-latency"],
      ["POST", "/canonicalize", { value_json: "1" }],
      ["GET", "/proofs"],
      ["GET", `/proofs/${"a".repeat(64)}`],
      ["POST", "/runs", RUN],
      ["GET", "/version"],
    ];
    for (const [method, path, json] of protectedRoutes) {
      assert.equal(await status(await t.req(method, path, { json })), 401, path);
      const ok = await t.req(method, path, { json, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.notEqual(await status(ok), 401, path);
    }
    for (const path of ["/health", "/openapi.json", "/docs", "/docs/assets/swagger-ui.css"]) {
      assert.equal(await status(await t.req("GET", path)), 200, path);
    }
  } finally {
    await t.close();
  }
});

Deno.test("403: a loopback server without a token answers only loopback Host names", async () => {
  const t = await testApp({ auth: { listenHost: "127.0.0.1" } });
  try {
    for (const host of ["localhost", "127.0.0.1", "[::1]", "127.0.0.1:8787", "app.localhost"]) {
      assert.equal(await status(await t.app.request(`http://${host}/health`)), 200, host);
    }
    // Accepted values are remembered (bounded); past the bound each is checked again.
    for (let port = 1; port <= 80; port++) {
      assert.equal(await status(await t.app.request(`http://127.0.0.1:${port}/health`)), 200);
    }
    // Twice each: a refusal is never remembered as an acceptance.
    const refused = ["evil.example", "10.0.0.1", "localhost.evil.example"];
    for (const host of [...refused, ...refused]) {
      const res = await t.app.request(`http://${host}/runs`, {
        method: "POST",
        body: JSON.stringify(RUN),
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.status, 403, host);
      assert.equal((await res.json()).code, "forbidden");
    }
    assert.equal((await t.store.list()).entries.length, 0, "nothing ran");
  } finally {
    await t.close();
  }
});

Deno.test("403: a loopback server keeps the Host check when it has a token (DNS rebinding)", async () => {
  for (const mode of ["writes", "all"] as const) {
    const t = await testApp({ auth: { listenHost: "127.0.0.1", token: TOKEN, mode } });
    try {
      const auth = { authorization: `Bearer ${TOKEN}` };
      for (const path of ["/proofs", "/scenarios", "/version", "/health"]) {
        const rebound = await t.app.request(`http://rebind.example/${path.slice(1)}`, {
          headers: auth,
        });
        assert.equal(rebound.status, 403, `${mode} ${path}`);
        assert.equal((await rebound.json()).code, "forbidden");
        assert.equal(await status(await t.req("GET", path, { headers: auth })), 200, path);
      }
    } finally {
      await t.close();
    }
  }
});

Deno.test("403: a read-only server refuses runs; cmd: substrates only when allowed", async () => {
  const ro = await testApp({ auth: { listenHost: "127.0.0.1", readOnly: true } });
  try {
    const res = await ro.req("POST", "/runs", { json: RUN });
    assert.equal(res.status, 403);
    assert.match((await res.json()).detail, /read-only/);
    assert.equal(await status(await ro.req("GET", "/proofs")), 200);
  } finally {
    ro.close();
  }
  const t = await testApp();
  const marker = `${t.dir}/ran`;
  try {
    const res = await t.req("POST", "/runs", {
      json: { scenario: "arithmetic-accuracy", substrate: `cmd:touch ${marker}` },
    });
    assert.equal(res.status, 403);
    assert.match((await res.json()).detail, /--allow-cmd-substrates/);
    assert.equal(await Deno.stat(marker).then(() => true, () => false), false, "not run");
  } finally {
    await t.close();
  }
  const allowed = await testApp({ allowCmdSubstrates: true });
  try {
    const res = await allowed.req("POST", "/runs", {
      json: {
        scenario: "arithmetic-accuracy",
        substrate: `cmd:python3 ${Deno.cwd()}/fixtures/substrates/calculator.py`,
      },
    });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).outcome, "VALIDATED");
  } finally {
    allowed.close();
  }
});

Deno.test("auth helpers: loopback names, constant-time token check, config rules", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) {
    assert.ok(isLoopbackHost(h), h);
  }
  for (const h of ["0.0.0.0", "::", "10.0.0.1", "127.0.0.256", "localhost.example", "128.0.0.1"]) {
    assert.ok(!isLoopbackHost(h), h);
  }
  const expected = new TextEncoder().encode(TOKEN);
  assert.ok(tokenMatches(expected, TOKEN));
  for (
    const t of ["", TOKEN.slice(0, -1), TOKEN + "x", TOKEN.toUpperCase(), "x".repeat(TOKEN.length)]
  ) {
    assert.ok(!tokenMatches(expected, t), t);
  }
  assert.throws(() => validateAuthConfig({ listenHost: "127.0.0.1", token: "short" }), /16 bytes/);
  assert.throws(
    () => validateAuthConfig({ listenHost: "127.0.0.1", token: "has space 0123456789" }),
    /printable/,
  );
  assert.throws(
    () => validateAuthConfig({ listenHost: "127.0.0.1", mode: "all" }),
    /needs a token/,
  );
  validateAuthConfig({ listenHost: "0.0.0.0", token: TOKEN });
});

Deno.test("CLI: refuses to listen on 0.0.0.0 without a token (exit 64), names the fix", async () => {
  const dir = await Deno.makeTempDir();
  const r = await runEntry(["http", "serve", "--host", "0.0.0.0", "--port", "0"], { cwd: dir });
  assert.equal(r.code, 64, r.stderr);
  assert.match(r.stderr, /usage_error: refusing to listen on 0\.0\.0\.0 without a token/);
  assert.match(r.stderr, /--token or EMPIRIC_HTTP_TOKEN/);
  assert.doesNotMatch(r.stderr, /listening on/);
  assert.match(r.stderr, /warning: no key given .* public demo key/, "no key: demo key, warned");
  assert.ok(!r.stderr.includes(DEFAULT_DEMO_KEY), "the demo key's text is not printed either");
  const short = await runEntry(["http", "serve", "--port", "0", "--token", "short"], { cwd: dir });
  assert.equal(short.code, 64);
  assert.match(short.stderr, /at least 16 bytes/);
  const shortKey = await runEntry(["http", "serve", "--port", "0", "--key", "too-short"], {
    cwd: dir,
  });
  assert.equal(shortKey.code, 64);
  assert.match(shortKey.stderr, /key_too_short: .*--read-only/);
});
