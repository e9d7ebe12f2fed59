// Shared pieces of the MCP tests: real servers (in-process on loopback, or the spawned CLI), real
// SDK clients of both generations behind one small interface, a slow HTTP substrate for
// cancellation, and the tool-suite every transport runs.
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  ClientV1,
  SSEClientTransportV1,
  StdioClientTransportV1,
  StreamableHTTPClientTransportV1,
} from "./sdk_v1.ts";
import { createMcpContext, type McpContext } from "../../src/mcp/context.ts";
import { empiricServerFactory } from "../../src/mcp/server.ts";
import { type HttpServing, serveMcpHttp } from "../../src/mcp/serve_http.ts";
import { DEMO_KEY_BYTES, keyFromText } from "../../src/crypto/keys.ts";
import {
  type Caller,
  canonicalizeValueOp,
  getScenarioClaimOp,
  invoke,
  listScenariosOp,
  readProofIndexOp,
  verifyProofImpl,
} from "../../src/ops/mod.ts";
import { DirectoryStore } from "../../src/store/store.ts";
import { testHost } from "../support/ops.ts";
import type { OpsEnvironment } from "../../src/ops/environment.ts";
import { testEnv } from "../support/env.ts";
import { CLI_FLAGS } from "../support/run_cli.ts";

import { childEnv, FIXTURE_KEY_TEXT, ROOT } from "../support/env.ts";
export { childEnv, FIXTURE_KEY_TEXT, ROOT } from "../support/env.ts";
export const CLI = `${ROOT}cli.ts`;
export const MCP_ENTRY = `${ROOT}mcp.ts`;
export { CLI_FLAGS };

export const TOOL_NAMES = [
  "audit_proof",
  "canonicalize_value",
  "get_scenario_claim",
  "list_scenarios",
  "plan_scenario",
  "read_proof_index",
  "run_scenario",
  "verify_attestation",
  "verify_proof",
];

// deno-lint-ignore no-explicit-any
type Json = any;

/** A tool call result as both client generations return it. */
export interface ToolResult {
  content?: Json[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the tests need of a client, for both SDK generations. */
export interface TestClient {
  readonly label: string;
  listTools(): Promise<{ tools: Json[] }>;
  call(
    name: string,
    args: Record<string, unknown>,
    opts?: { onprogress?: (p: Json) => void; signal?: AbortSignal },
  ): Promise<ToolResult>;
  listResources(): Promise<{ resources: Json[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Json[] }>;
  readResource(uri: string): Promise<{ contents: Json[] }>;
  /** The protocol revision in use. */
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

const INFO = { name: "empiric-tests", version: "1.0.0" };

/** Wrap a 1.x SDK client (2025-11-25 `initialize` handshake). */
export async function clientV1(
  // deno-lint-ignore no-explicit-any
  transport: any,
  label: string,
  version: () => string | undefined = () => transport.protocolVersion ?? "2025-11-25",
): Promise<TestClient> {
  const c = new ClientV1(INFO);
  await c.connect(transport);
  return {
    label,
    listTools: () => c.listTools(),
    call: (name, args, opts) =>
      c.callTool({ name, arguments: args }, undefined, {
        onprogress: opts?.onprogress,
        signal: opts?.signal,
        timeout: 120_000,
      }) as Promise<ToolResult>,
    listResources: () => c.listResources(),
    listResourceTemplates: () => c.listResourceTemplates(),
    readResource: (uri) => c.readResource({ uri }),
    protocolVersion: version,
    close: () => c.close(),
  };
}

/** Wrap a 2.x SDK client; `pin` selects the 2026-07-28 revision, `legacy` a 2025 revision. */
export async function clientV2(
  // deno-lint-ignore no-explicit-any
  transport: any,
  label: string,
  era: { pin: string } | { legacy: string },
): Promise<TestClient> {
  const c = "pin" in era
    ? new Client(INFO, { versionNegotiation: { mode: { pin: era.pin } } })
    : new Client(INFO, { supportedProtocolVersions: [era.legacy] });
  await c.connect(transport);
  return {
    label,
    listTools: () => c.listTools(),
    call: (name, args, opts) =>
      c.callTool({ name, arguments: args }, {
        onprogress: opts?.onprogress,
        signal: opts?.signal,
        timeout: 120_000,
      }) as Promise<ToolResult>,
    listResources: () => c.listResources(),
    listResourceTemplates: () => c.listResourceTemplates(),
    readResource: (uri) => c.readResource({ uri }),
    protocolVersion: () => c.getNegotiatedProtocolVersion(),
    close: () => c.close(),
  };
}

/** A temporary store and scenario directory (with one unloadable scenario file). */
export async function tempDirs(): Promise<{ root: string; store: string; scenarios: string }> {
  const root = await Deno.makeTempDir({ prefix: "empiric-mcp-" });
  const scenarios = `${root}/scenarios`;
  await Deno.mkdir(scenarios);
  await Deno.writeTextFile(`${scenarios}/broken.yaml`, "name: broken\ntitle: [unterminated\n");
  return { root, store: `${root}/store`, scenarios };
}

/** Arguments that start `empiric mcp serve` from source. */
export function serveArgs(extra: string[] = []): string[] {
  return ["run", ...CLI_FLAGS, CLI, "mcp", "serve", ...extra];
}

/** Stdio client transports (of both generations) spawning the real CLI. */
export function stdioParams(
  dirs: { store: string; scenarios: string },
  env: Record<string, string> = {},
) {
  return {
    command: Deno.execPath(),
    args: serveArgs(["--scenario-dir", dirs.scenarios]),
    env: childEnv({ EMPIRIC_STORE: dirs.store, EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT, ...env }),
    cwd: "/",
    stderr: "pipe" as const,
  };
}

export { SSEClientTransport, SSEClientTransportV1, StdioClientTransport, StdioClientTransportV1 };
export { StreamableHTTPClientTransport, StreamableHTTPClientTransportV1 };

/** An in-process server on loopback port 0 over a real HTTP transport. */
export interface HttpFixture {
  serving: HttpServing;
  ctx: McpContext;
  env: OpsEnvironment;
  dirs: { root: string; store: string; scenarios: string };
  logs: string[];
  close(): Promise<void>;
}

export async function startHttp(
  transport: "sse" | "streamable-http",
  options: {
    token?: string;
    allowOrigins?: string[];
    allowCmdSubstrates?: boolean;
    envVars?: Record<string, string>;
    demoKey?: boolean;
    /** Wrap the operations' environment (e.g. to record which files are opened). */
    wrapEnv?: (env: OpsEnvironment) => OpsEnvironment;
  } = {},
): Promise<HttpFixture> {
  const dirs = await tempDirs();
  const base = await testEnv(options.envVars ?? {});
  const env = options.wrapEnv ? options.wrapEnv(base) : base;
  const logs: string[] = [];
  const log = (l: string) => logs.push(l);
  const ctx = createMcpContext({
    env,
    key: options.demoKey
      ? { bytes: DEMO_KEY_BYTES, source: "demo" }
      : { bytes: keyFromText(FIXTURE_KEY_TEXT), source: "option" },
    storeDir: dirs.store,
    scenarioDir: dirs.scenarios,
    caller: "network",
    allowCmdSubstrates: options.allowCmdSubstrates ?? false,
    log,
  });
  const serving = serveMcpHttp(empiricServerFactory(ctx), {
    transport,
    hostname: "127.0.0.1",
    port: 0,
    token: options.token,
    allowOrigins: options.allowOrigins,
    log,
  });
  return {
    serving,
    ctx,
    env,
    dirs,
    logs,
    close: async () => {
      await serving.shutdown();
      ctx.close();
      await Deno.remove(dirs.root, { recursive: true }).catch(() => undefined);
    },
  };
}

/** Send one raw HTTP/1.1 request (any Host header) and return the status code. */
export async function rawStatus(port: number, request: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(request));
    const buf = new Uint8Array(1024);
    const n = await conn.read(buf);
    const head = new TextDecoder().decode(buf.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? -1);
  } finally {
    conn.close();
  }
}

/** An HTTP substrate that answers after `delayMs`, counting calls (for cancellation). */
export function slowSubstrate(delayMs = 25) {
  let hits = 0;
  const firstHit = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    hits++;
    firstHit.resolve();
    await new Promise((r) => setTimeout(r, delayMs));
    return Response.json({ echo: "ok" });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    hits: () => hits,
    firstHit: firstHit.promise,
    close: () => server.shutdown(),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ajv = new Ajv2020({ strict: false, allErrors: true });

/** Validate a value against a JSON Schema from tools/list (independently of the SDKs). */
export function assertMatchesSchema(schema: Json, value: unknown, what: string): void {
  const validate = ajv.compile(schema);
  assert.ok(validate(value), `${what}: ${ajv.errorsText(validate.errors)}`);
}

/** The text of a result's content blocks. */
export function textOf(r: ToolResult): string {
  return (r.content ?? []).map((c: Json) => c.text ?? "").join("\n");
}

/** A tool call that must fail as a tool result (not a protocol error) naming the problem. */
export async function assertToolError(
  client: TestClient,
  name: string,
  args: Record<string, unknown>,
  pattern: RegExp,
): Promise<ToolResult> {
  const r = await client.call(name, args);
  assert.equal(r.isError, true, `${client.label} ${name}(${JSON.stringify(args)}) should fail`);
  assert.match(textOf(r), pattern, `${client.label} ${name}: error message`);
  return r;
}

/** Check tools/list: names, descriptions, annotations, schemas. Returns the output schemas. */
export async function checkToolList(client: TestClient): Promise<Record<string, Json>> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t: Json) => t.name).sort(), TOOL_NAMES, client.label);
  const schemas: Record<string, Json> = {};
  for (const t of tools) {
    assert.ok(typeof t.description === "string" && t.description.length > 120, t.name);
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.inputSchema.additionalProperties, false, `${t.name}: unknown arguments refused`);
    assert.equal(t.outputSchema?.type, "object", `${t.name} declares an output schema`);
    const a = t.annotations ?? {};
    if (t.name === "run_scenario") {
      assert.deepEqual(
        [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint],
        [false, false, false, true],
      );
    } else {
      assert.equal(a.readOnlyHint, true, `${t.name} is read-only`);
      assert.deepEqual(
        [a.destructiveHint, a.idempotentHint, a.openWorldHint],
        [false, true, false],
        t.name,
      );
    }
    schemas[t.name] = t.outputSchema;
  }
  assert.deepEqual(
    tools.find((t: Json) => t.name === "verify_proof").inputSchema.required,
    ["proof_json"],
  );
  return schemas;
}

/** A successful call: not an error, structuredContent valid, text mirrors it. */
export async function callOk(
  client: TestClient,
  schemas: Record<string, Json>,
  name: string,
  args: Record<string, unknown>,
  opts?: { onprogress?: (p: Json) => void },
): Promise<Record<string, Json>> {
  const r = await client.call(name, args, opts);
  assert.notEqual(r.isError, true, `${client.label} ${name}: ${textOf(r)}`);
  assert.ok(r.structuredContent, `${name} returns structuredContent`);
  assertMatchesSchema(schemas[name], r.structuredContent, `${client.label} ${name}`);
  assert.deepEqual(JSON.parse(r.content![0].text), r.structuredContent, "text mirrors structure");
  return r.structuredContent as Record<string, Json>;
}

export async function readFixture(name: string): Promise<string> {
  return await Deno.readTextFile(`${ROOT}fixtures/records/${name}`);
}

/**
 * The suite every transport and client generation runs: every tool with good and bad arguments
 * (results equal to the shared operations'), run_scenario with progress, resources.
 */
export async function toolSuite(
  client: TestClient,
  opts: { env: OpsEnvironment; store: string; scenarios: string; caller: Caller },
): Promise<void> {
  const schemas = await checkToolList(client);
  // The operations as this transport's caller class calls them (stdio: local, HTTP: network).
  const host = await testHost({
    caller: opts.caller,
    env: opts.env,
    store: opts.store,
    scenarioDir: opts.scenarios,
  });

  // list_scenarios: the operation's object; the broken file is reported, not thrown
  const listed = await callOk(client, schemas, "list_scenarios", {});
  assert.deepEqual(listed, await invoke(listScenariosOp, {}, host));
  assert.ok(listed.scenarios.some((s: Json) => s.name === "echo-latency"));
  assert.match(
    listed.errors[0].path,
    opts.caller === "local" ? /\/broken\.yaml$/ : /^broken\.yaml$/,
  );
  await assertToolError(client, "list_scenarios", { verbose: true }, /verbose/);

  // get_scenario_claim
  const claim = await callOk(client, schemas, "get_scenario_claim", { name: "echo-latency" });
  assert.deepEqual(claim, await invoke(getScenarioClaimOp, { name: "echo-latency" }, host));
  await assertToolError(client, "get_scenario_claim", {}, /name/);
  await assertToolError(
    client,
    "get_scenario_claim",
    { name: "no-such-scenario" },
    // one code for one situation on every transport
    /^not_found: no scenario named "no-such-scenario"/,
  );

  // verify_proof: the same object as verifyProofImpl under the server's key
  const key = keyFromText(FIXTURE_KEY_TEXT);
  const valid = await readFixture("valid.json");
  const v = await callOk(client, schemas, "verify_proof", { proof_json: valid });
  assert.deepEqual(v, await verifyProofImpl(valid, { key }));
  assert.equal(v.verified, true);
  const tampered = await readFixture("tampered-signature.json");
  const t = await client.call("verify_proof", { proof_json: tampered });
  assert.equal(t.isError, true);
  assert.match(textOf(t), /^not verified: signature_mismatch: /);
  assert.deepEqual(t.structuredContent, await verifyProofImpl(tampered, { key }));
  assertMatchesSchema(schemas.verify_proof, t.structuredContent, "tampered");
  await assertToolError(client, "verify_proof", {}, /proof_json/);
  await assertToolError(
    client,
    "verify_proof",
    { proof_json: 42 },
    /proof_json.*string|string.*proof_json/s,
  );

  // canonicalize_value
  const text = '{"b": 1.0, "a": [1, 1e-5, "\u00e9"]}';
  const c = await callOk(client, schemas, "canonicalize_value", { value_json: text });
  assert.deepEqual(c, await invoke(canonicalizeValueOp, { value_json: text }, host));
  assert.equal(c.canonical, '{"a":[1,1e-05,"\\u00e9"],"b":1.0}');
  await assertToolError(
    client,
    "canonicalize_value",
    { value_json: '{"a":1,"a":2}' },
    /^duplicate_key: /,
  );
  await assertToolError(client, "canonicalize_value", { value_json: "[1," }, /^syntax_error: /);
  await assertToolError(client, "canonicalize_value", {}, /value_json/);

  // run_scenario with progress notifications (echo-latency: 200 items, 10 warm-up + 190 measured)
  const progress: Json[] = [];
  const run = await callOk(client, schemas, "run_scenario", { scenario: "echo-latency" }, {
    onprogress: (p) => progress.push(p),
  });
  assert.match(run.proof_id, /^[0-9a-f]{64}$/);
  assert.equal(run.scenario, "echo-latency");
  assert.equal(run.substrate, "builtin:echo");
  assert.equal(run.measured, 190);
  assert.equal(
    run.path,
    opts.caller === "local" ? `${opts.store}/${run.proof_id}.json` : `${run.proof_id}.json`,
    "network clients see paths relative to the store",
  );
  assert.ok(progress.length >= 10, `${client.label}: ${progress.length} progress notifications`);
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress, "progress increases");
  }
  assert.ok(progress.every((p) => p.total === 100));
  assert.ok(progress.some((p) => /^measuring: \d+\/190 items/.test(p.message)), "item counts");
  const stored = await Deno.readTextFile(`${opts.store}/${run.proof_id}.json`);
  const check = await verifyProofImpl(stored, { key });
  assert.equal(check.verified, true);
  assert.equal(check.verdict?.outcome, run.outcome);
  await assertToolError(client, "run_scenario", {}, /scenario/);
  await assertToolError(
    client,
    "run_scenario",
    { scenario: "nope" },
    /^not_found: /,
  );
  await assertToolError(
    client,
    "run_scenario",
    { scenario: "echo-latency", after: ["not-a-proof-id"] },
    /after/,
  );

  // read_proof_index: the operation's page over the same store
  const page = await callOk(client, schemas, "read_proof_index", { scenario: "echo-latency" });
  try {
    const op = await invoke(readProofIndexOp, { scenario: "echo-latency" }, host);
    assert.deepEqual(page, op);
  } finally {
    await host.close();
  }
  assert.ok(page.entries.some((e: Json) => e.proof_id === run.proof_id));
  await assertToolError(client, "read_proof_index", { limit: 0 }, /limit/);
  await assertToolError(client, "read_proof_index", { outcome: "MAYBE" }, /outcome/);

  // resources: the stored record's exact text, and the scenario's claim
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((t: Json) => [t.uriTemplate, t.mimeType]).sort(),
    [
      ["empiric://proofs/{proof_id}", "application/json"],
      ["empiric://proofs/{proof_id}/observations", "application/jsonl"],
      ["empiric://proofs/{proof_id}/report", "text/markdown"],
      ["empiric://proofs/{proof_id}/scenario", "application/json"],
      ["empiric://scenarios/{name}", "application/json"],
    ],
  );
  // the bundle: observations and scenario beside the stored record, and an audit of it
  const obsRes = await client.readResource(`empiric://proofs/${run.proof_id}/observations`);
  assert.equal(obsRes.contents[0].mimeType, "application/jsonl");
  assert.equal(obsRes.contents[0].text.split("\n").length - 1, run.measured);
  const scenarioRes = await client.readResource(`empiric://proofs/${run.proof_id}/scenario`);
  assert.equal(JSON.parse(scenarioRes.contents[0].text).name, "echo-latency");
  const audit = await client.call("audit_proof", { proof_id: run.proof_id });
  assert.equal(audit.isError ?? false, false, JSON.stringify(audit.structuredContent));
  assert.equal(audit.structuredContent?.agrees, true);
  const flipped = stored.replace(/"outcome": "(VALIDATED|REFUTED)"/, '"outcome": "INCONCLUSIVE"');
  const bad = await client.call("audit_proof", {
    proof_json: flipped,
    observations_jsonl: obsRes.contents[0].text,
    scenario_json: scenarioRes.contents[0].text,
  });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent?.agrees, false);
  const { resources } = await client.listResources();
  const uris = resources.map((r: Json) => r.uri);
  assert.ok(uris.includes(`empiric://proofs/${run.proof_id}`), "proof listed");
  assert.ok(uris.includes("empiric://scenarios/echo-latency"), "scenario listed");
  const proofRes = await client.readResource(`empiric://proofs/${run.proof_id}`);
  assert.equal(proofRes.contents[0].mimeType, "application/json");
  assert.equal(proofRes.contents[0].text, stored, "exactly the stored file");
  const scenRes = await client.readResource("empiric://scenarios/echo-latency");
  assert.equal(scenRes.contents[0].mimeType, "application/json");
  assert.deepEqual(JSON.parse(scenRes.contents[0].text), claim);
  await assert.rejects(
    client.readResource(`empiric://proofs/${"0".repeat(64)}`),
    /not_found: no proof record/,
  );
}

/**
 * Start a run against a slow substrate, cancel it once the substrate is being called, and check
 * that the call rejects, the substrate stops being called, and nothing is stored.
 */
export async function cancellationCheck(client: TestClient, storeDir: string): Promise<void> {
  const sub = slowSubstrate(25);
  try {
    const countBefore = await indexCount(storeDir);
    const ctl = new AbortController();
    const pending = client.call(
      "run_scenario",
      { scenario: "echo-latency", substrate: sub.url },
      { signal: ctl.signal, onprogress: () => {} },
    );
    await sub.firstHit;
    await sleep(150);
    ctl.abort();
    await assert.rejects(pending, /abort/i);
    // wait until no call arrives for 500 ms (the call in flight may still finish); a run that
    // was not cancelled goes on for ~5 s (200 calls of 25 ms) and fails the checks below
    let atStop = sub.hits();
    for (let i = 0; i < 20; i++) {
      await sleep(500);
      if (sub.hits() === atStop) break;
      atStop = sub.hits();
    }
    await sleep(500);
    assert.equal(sub.hits(), atStop, `${client.label}: the run stopped calling the substrate`);
    assert.ok(atStop < 150, `${client.label}: stopped early (${atStop} of 200 calls)`);
    assert.equal(await indexCount(storeDir), countBefore, "a cancelled run stores nothing");
  } finally {
    await sub.close();
  }
}

async function indexCount(storeDir: string): Promise<number> {
  const store = await DirectoryStore.open(storeDir);
  try {
    return await store.count();
  } finally {
    await store.close();
  }
}
