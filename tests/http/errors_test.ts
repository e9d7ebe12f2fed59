// Every error status of the HTTP API as RFC 9457 problem+json with stable type URIs, and no
// 500 for any bad input.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ERROR_TABLE } from "../../src/errors/codes.ts";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
import { problemType } from "../../src/http/problem.ts";
import { ProblemDetailsSchema } from "../../src/http/openapi.ts";
import { VerifyProofOutput } from "../../src/ops/mod.ts";

/** A problem that also carries the verify_proof members. */
const VerifyProblemSchema = ProblemDetailsSchema.extend(VerifyProofOutput.shape);
import { fixture, FIXTURE_KEY, PROBLEM_MEMBERS, testApp } from "./support.ts";

/** Check the problem+json shape and return the body. */
async function problem(res: Response, status: number, code: string) {
  assert.equal(res.status, status, `expected ${status} ${code}`);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  const body = await res.json();
  ProblemDetailsSchema.parse(body);
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.type, `https://empiric.dev/problems/${code}`);
  const table = (ERROR_TABLE as Record<string, { http: number; title: string }>)[code];
  assert.equal(body.title, table.title, "title from the table");
  assert.equal(table.http, status, "status from the table");
  assert.ok(body.detail.length > 0);
  assert.equal(body.request_id, res.headers.get("x-request-id"));
  assert.ok(body.problems.length > 0);
  return body;
}

Deno.test("400: the request body is not JSON (with the parser's code and position)", async () => {
  const t = await testApp();
  try {
    const bad = await problem(
      await t.req("POST", "/verify", {
        body: '{"proof_json": "x",\n  oops}',
        headers: { "content-type": "application/json" },
      }),
      400,
      "syntax_error",
    );
    assert.deepEqual(bad.problems[0].position, { offset: 22, line: 2, column: 3 });
    assert.equal(bad.instance, "/verify");
    await problem(
      await t.req("POST", "/canonicalize", {
        body: '{"value_json": "1", "value_json": "2"}',
        headers: { "content-type": "application/json" },
      }),
      400,
      "duplicate_key",
    );
    await problem(
      await t.req("POST", "/verify", {
        body: new Uint8Array([0x7b, 0xff, 0x7d]),
        headers: { "content-type": "application/json" },
      }),
      400,
      "invalid_utf8",
    );
    await problem(
      await t.req("POST", "/verify", { body: "", headers: { "content-type": "application/json" } }),
      400,
      "syntax_error",
    );
  } finally {
    await t.close();
  }
});

Deno.test("400: a body, query or path that does not fit the schema", async () => {
  const t = await testApp();
  try {
    const cases: [string, string, unknown, string][] = [
      ["POST", "/verify", { proof_json: 5 }, "/proof_json"],
      ["POST", "/verify", {}, "/proof_json"],
      ["POST", "/verify", [], ""],
      ["POST", "/verify", { proof_json: "{}", key: "guess" }, ""],
      ["POST", "/canonicalize", { value_json: null }, "/value_json"],
      ["POST", "/runs", { scenario: "echo-latency", after: ["nope"] }, "/after/0"],
    ];
    for (const [method, path, json, pointer] of cases) {
      const body = await problem(await t.req(method, path, { json }), 400, "usage_error");
      assert.equal(body.problems[0].pointer, pointer, JSON.stringify(json));
    }
    for (
      const q of [
        "limit=0",
        "limit=1001",
        "limit=x",
        "offset=-1",
        "limit=1&limit=2",
        "outcome=MAYBE",
        "sort=asc",
      ]
    ) {
      await problem(await t.req("GET", `/proofs?${q}`), 400, "usage_error");
    }
    // A name the server does not list is not_found, whatever it looks like (as over MCP).
    for (const name of ["..%2F..%2Fetc%2Fpasswd", "Upper", "x.json", "%00"]) {
      await problem(await t.req("GET", `/scenarios/${name}`), 404, "not_found");
    }
    for (const scenario of ["../../etc/passwd", "secret.yaml", "/etc/passwd"]) {
      await problem(await t.req("POST", "/runs", { json: { scenario } }), 404, "not_found");
    }
    await problem(await t.req("GET", "/proofs/not-an-id"), 400, "usage_error");
  } finally {
    await t.close();
  }
});

Deno.test("400 and 422 from /verify carry the verify_proof result too", async () => {
  const t = await testApp();
  try {
    const cases: [string, number, string][] = [
      ["tampered-truncated.json", 400, "syntax_error"],
      ["tampered-duplicate-key.json", 400, "duplicate_key"],
      ["malformed-missing-evidence.json", 422, "schema_invalid"],
      ["malformed-no-signature.json", 422, "schema_invalid"],
    ];
    for (const [file, status, code] of cases) {
      const text = await fixture(file);
      const body = await problem(
        await t.req("POST", "/verify", { json: { proof_json: text } }),
        status,
        code,
      );
      VerifyProblemSchema.parse(body);
      const result = Object.fromEntries(
        Object.entries(body).filter(([k]) => !PROBLEM_MEMBERS.includes(k)),
      );
      assert.deepEqual(result, await verifyProofImpl(text, { key: FIXTURE_KEY }), file);
      assert.equal(body.detail, body.problems[0].message);
    }
  } finally {
    await t.close();
  }
});

Deno.test("404: unknown paths, scenarios and proofs; 405 with Allow for a wrong method", async () => {
  const t = await testApp();
  try {
    for (const path of ["/", "/nope", "/verify/", "/proofs/a/b", "/docs/assets/nope.js"]) {
      await problem(await t.req("GET", path), 404, "not_found");
    }
    const wrong = await t.req("GET", "/verify");
    assert.equal(wrong.headers.get("allow"), "OPTIONS, POST");
    await problem(wrong, 405, "method_not_allowed");
    const del = await t.req("DELETE", `/proofs/${"a".repeat(64)}`);
    assert.equal(del.headers.get("allow"), "GET, HEAD, OPTIONS");
    await problem(del, 405, "method_not_allowed");
    await problem(await t.req("PUT", "/runs", { json: {} }), 405, "method_not_allowed");
  } finally {
    await t.close();
  }
});

Deno.test("408: a body that stops arriving, declared or streamed, is given up", async () => {
  const t = await testApp({ bodyTimeoutMs: 150 });
  try {
    for (const declared of [true, false]) {
      let cancelled = false;
      const stalled = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"proof_json":"'));
        },
        pull: () => new Promise<void>(() => {}), // the rest never comes
        cancel() {
          cancelled = true;
        },
      });
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (declared) headers["content-length"] = "100";
      const res = await t.app.request("http://127.0.0.1/verify", {
        method: "POST",
        body: stalled,
        headers,
        duplex: "half",
      } as RequestInit);
      const body = await problem(res, 408, "request_timeout");
      assert.match(body.detail, /within 150 ms \(--body-timeout-ms\)/);
      assert.equal(res.headers.get("connection"), "close");
      // A streamed body is cancelled; a declared one ends with the connection.
      if (!declared) assert.ok(cancelled, "the stalled stream was cancelled");
    }
    const line = t.logs.find((l) => l.status === 408);
    assert.equal(line?.path, "/verify");
    // A body that arrives in time is read as usual.
    const ok = await t.req("POST", "/canonicalize", { json: { value_json: "[1]" } });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await t.close();
  }
  for (const bodyTimeoutMs of [0, -1, 1.5, 2 ** 31]) {
    await assert.rejects(() => testApp({ bodyTimeoutMs }), /--body-timeout-ms/);
  }
});

Deno.test("413: a body over the limit, declared or streamed, is refused unread", async () => {
  const t = await testApp();
  try {
    const big = JSON.stringify({ proof_json: "x".repeat(1024 * 1024) });
    await problem(
      await t.req("POST", "/verify", { json: JSON.parse(big) }),
      413,
      "payload_too_large",
    );
    const ok = await t.req("POST", "/verify", {
      json: { proof_json: "x".repeat(1024 * 1024 - 20) },
    });
    assert.equal(ok.status, 400, "just under 1 MiB: read and parsed (it is not JSON)");
    await ok.body?.cancel();
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        if (pulled > 1000) c.close();
        else c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const res = await t.app.request("http://127.0.0.1/verify", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    await problem(res, 413, "payload_too_large");
    assert.ok(pulled < 40, `stopped reading early (read ${pulled} chunks of 64 KiB)`);
  } finally {
    await t.close();
  }
  const small = await testApp({ maxBodyBytes: 100 });
  try {
    await problem(
      await small.req("POST", "/canonicalize", { json: { value_json: "1".repeat(100) } }),
      413,
      "payload_too_large",
    );
    const fits = await small.req("POST", "/canonicalize", { json: { value_json: "[1]" } });
    assert.equal(fits.status, 200);
    await fits.body?.cancel();
  } finally {
    small.close();
  }
});

Deno.test("415: not application/json, a foreign charset, or a content coding", async () => {
  const t = await testApp();
  try {
    const body = JSON.stringify({ value_json: "1" });
    for (
      const headers of [
        { "content-type": "text/plain" },
        { "content-type": "application/x-www-form-urlencoded" },
        { "content-type": "application/json; charset=iso-8859-1" },
        { "content-type": "application/jsonx" },
        {},
        { "content-type": "application/json", "content-encoding": "gzip" },
      ] as Record<string, string>[]
    ) {
      await problem(
        await t.req("POST", "/canonicalize", { body, headers }),
        415,
        "unsupported_media_type",
      );
    }
    const ok = await t.req("POST", "/canonicalize", {
      body,
      headers: { "content-type": 'Application/JSON; Charset="UTF-8"' },
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("422: a scenario file that exists but is invalid", async () => {
  const t = await testApp();
  try {
    await Deno.mkdir(`${t.dir}/scenarios`);
    await Deno.writeTextFile(`${t.dir}/scenarios/bad.yaml`, "name: bad\ntitle: 5\n");
    await problem(await t.req("GET", "/scenarios/bad"), 422, "scenario_invalid");
    await problem(
      await t.req("POST", "/runs", { json: { scenario: "bad" } }),
      422,
      "scenario_invalid",
    );
  } finally {
    await t.close();
  }
});

Deno.test("problem type URIs are stable: https://empiric.dev/problems/<code>", () => {
  for (const code of Object.keys(ERROR_TABLE)) {
    const uri = problemType(code as keyof typeof ERROR_TABLE);
    assert.equal(uri, `https://empiric.dev/problems/${code}`);
    assert.equal(new URL(uri).pathname, `/problems/${code}`, "a valid URI, code unescaped");
  }
  const network = [
    "unauthorized",
    "forbidden",
    "method_not_allowed",
    "payload_too_large",
    "unsupported_media_type",
    "request_timeout",
  ] as const;
  assert.deepEqual(network.map((c) => ERROR_TABLE[c].http), [401, 403, 405, 413, 415, 408]);
});

Deno.test("fuzz: no bad input gets a 500 (random bodies, headers, paths, methods)", async () => {
  const t = await testApp();
  try {
    const paths = [
      "/verify",
      "/canonicalize",
      "/runs",
      "/proofs",
      "/scenarios",
      "/scenarios/x",
      "/health",
      "/docs/assets/x",
      "/proofs/zz",
    ];
    const jsonish = fc.oneof(
      fc.json(),
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify({ proof_json: JSON.stringify(v) })),
      fc.jsonValue().map((v) => JSON.stringify({ value_json: JSON.stringify(v) })),
      fc.jsonValue().map((v) => JSON.stringify({ scenario: v })),
      fc.string().map((s) => JSON.stringify({ proof_json: s })),
      fc.string().map((s) => JSON.stringify({ value_json: s })),
      fc.uint8Array().map((b) => new TextDecoder().decode(b)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
        jsonish,
        fc.constantFrom("application/json", "text/plain", "application/json; charset=utf-8"),
        fc.string({ maxLength: 20 }),
        async (path, method, body, type, query) => {
          const res = await t.req(
            method,
            `${path}?${encodeURIComponent(query)}=${encodeURIComponent(query)}`,
            {
              body: method === "GET" ? undefined : body,
              headers: { "content-type": type },
            },
          );
          await res.body?.cancel();
          assert.ok(res.status < 500, `${method} ${path} ${body}: ${res.status}`);
        },
      ),
      { numRuns: 400 },
    );
    const errors = t.logs.filter((l) => l.level === "error");
    assert.deepEqual(errors, []);
  } finally {
    await t.close();
  }
});
