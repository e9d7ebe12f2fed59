// GET /openapi.json: a valid OpenAPI 3.1 document (checked by an independent validator from
// the npm registry) that describes exactly the routes the server answers.
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { API_OPERATIONS, type TestApp, testApp } from "./support.ts";

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

async function documentOf(t: TestApp): Promise<Doc> {
  return await (await t.req("GET", "/openapi.json")).json() as Doc;
}

Deno.test("GET /openapi.json validates as OpenAPI 3.1", async () => {
  const t = await testApp();
  try {
    const res = await t.req("GET", "/openapi.json");
    assert.equal(res.status, 200);
    const doc = await res.json() as Doc;
    assert.equal(doc.openapi, "3.1.0");
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
    assert.equal(validator.version, "3.1");
    // The validator is not a rubber stamp: a broken document fails.
    const broken = structuredClone(doc) as unknown as Record<string, unknown>;
    delete broken.info;
    assert.equal((await new Validator().validate(broken)).valid, false);
  } finally {
    await t.close();
  }
});

Deno.test("the document describes every route the app answers, and nothing else", async () => {
  const t = await testApp();
  try {
    const doc = await (await t.req("GET", "/openapi.json")).json() as Doc;
    const described = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) described.add(`${method.toUpperCase()} ${path}`);
    }
    const answered = new Set(
      t.app.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}")}`),
    );
    assert.deepEqual([...described].sort(), [...answered].sort());
    for (
      const route of [
        ...API_OPERATIONS,
        "GET /docs",
        "GET /docs/assets/{asset}",
      ]
    ) {
      assert.ok(described.has(route), route);
    }
    // Every described operation is really answered (not 404/405) by the app.
    for (const key of described) {
      const [method, path] = key.split(" ");
      const concrete = path
        .replace("{name}", "echo-latency")
        .replace("{proof_id}", "0".repeat(64))
        .replace("{asset}", "swagger-ui.css");
      const res = await t.req(method, concrete, method === "POST" ? { json: {} } : {});
      await res.body?.cancel();
      assert.ok(![405].includes(res.status), `${key}: ${res.status}`);
      if (res.status === 404) {
        assert.ok(key.startsWith("GET /proofs/{proof_id}"), `${key} answered 404`);
      }
    }
  } finally {
    await t.close();
  }
});

Deno.test("the document's request schemas are the ones that validate (no drift)", async () => {
  const t = await testApp();
  try {
    const doc = await documentOf(t);
    const verify = doc.paths["/verify"].post as {
      requestBody: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
      operationId: string;
    };
    assert.equal(verify.operationId, "verify_proof");
    assert.equal(verify.requestBody.required, true);
    const bodySchema = verify.requestBody.content["application/json"].schema as unknown as {
      oneOf: { $ref: string }[];
    };
    // POST /verify takes a record (verify_proof) or an envelope (verify_attestation).
    assert.deepEqual(bodySchema.oneOf.map((r) => r.$ref.split("/").at(-1)), [
      "VerifyProofInput",
      "VerifyAttestationInput",
    ]);
    const ref = bodySchema.oneOf[0].$ref;
    const schema = doc.components.schemas[ref.split("/").at(-1)!] as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { type: string; minLength?: number }>;
    };
    assert.deepEqual(schema.required, ["proof_json"]);
    assert.equal(schema.additionalProperties, false);
    assert.equal(schema.properties.proof_json.type, "string");
    // What the document says is what the server does: no extra members; an empty record text
    // is a record that is not JSON (syntax_error, as the CLI says), not a schema failure.
    const empty = await t.req("POST", "/verify", { json: { proof_json: "" } });
    assert.equal(empty.status, 400);
    assert.equal((await empty.json()).code, "syntax_error");
    assert.equal(
      (await t.req("POST", "/verify", { json: { proof_json: "{}", x: 1 } })).status,
      400,
    );
    const params = (doc.paths["/proofs"].get as { parameters: { name: string }[] }).parameters;
    assert.deepEqual(params.map((p) => p.name).sort(), [
      "created_after",
      "created_before",
      "cursor",
      "limit",
      "offset",
      "outcome",
      "scenario",
      "substrate",
    ]);
    const run = doc.paths["/runs"].post as { responses: Record<string, unknown> };
    assert.ok(run.responses["201"] && run.responses["401"] && run.responses["403"]);
    assert.ok("ProblemDetails" in doc.components.schemas);
    assert.ok("bearerAuth" in doc.components.securitySchemes);
  } finally {
    await t.close();
  }
});

Deno.test("security requirements follow the server's auth configuration", async () => {
  const open = await testApp();
  const all = await testApp({
    auth: { listenHost: "127.0.0.1", token: "tok-0123456789abcdef", mode: "all" },
  });
  const writes = await testApp({
    auth: { listenHost: "127.0.0.1", token: "tok-0123456789abcdef" },
  });
  try {
    const sec = async (t: typeof open, path: string, method: string) =>
      ((await documentOf(t)).paths[path][method] as { security?: unknown }).security;
    assert.equal(await sec(open, "/runs", "post"), undefined);
    assert.deepEqual(await sec(writes, "/runs", "post"), [{ bearerAuth: [] }]);
    assert.equal(await sec(writes, "/verify", "post"), undefined);
    assert.deepEqual(await sec(all, "/verify", "post"), [{ bearerAuth: [] }]);
    assert.equal(await sec(all, "/health", "get"), undefined);
  } finally {
    open.close();
    all.close();
    writes.close();
  }
});
