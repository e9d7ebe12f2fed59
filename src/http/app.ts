/**
 * The HTTP API as a Hono application: `createApp(deps)` builds it from its dependencies (the
 * operations' environment, key, store, auth, limits, logger) with no I/O of its own, so tests
 * call it with `app.request()` and `serve.ts` puts it behind `Deno.serve`.
 *
 * Every endpoint calls the shared implementation in src/ops/ and returns its object as is.
 *
 * @module
 */
import { OpenAPIHono, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EmpiricError } from "../errors/errors.ts";
import { verifyProofImpl } from "../ops/verify_proof.ts";
import { canonicalizeValue } from "../ops/canonicalize_value.ts";
import { type Exposure, getScenarioClaim, listScenarios } from "../ops/scenarios.ts";
import { readProofIndex } from "../ops/proof_index.ts";
import { runScenarioOp, runScenarioView } from "../ops/run_scenario.ts";
import type { OpsEnvironment } from "../ops/environment.ts";
import { SCHEMA_VERSION } from "../record/types.ts";
import type { ProofStore } from "../store/store.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { type Access, type AuthConfig, Authorizer } from "./auth.ts";
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  numericFields,
  queryObject,
  readJsonBody,
  strictParseProblems,
  validate,
  zodProblems,
} from "./input.ts";
import { isoNow, type Logger } from "./log.ts";
import {
  HttpProblem,
  problemBody,
  type ProblemCode,
  problemResponse,
  problemStatus,
} from "./problem.ts";
import { ROUTES } from "./routes.ts";
import { DOCS_CSP, DOCS_HTML, docsAssetResponse } from "./docs_page.ts";

/** What the application needs. */
export interface AppDeps {
  /** Host facilities of the shared operations. */
  env: OpsEnvironment;
  /** The HMAC key: verifies records and signs runs. Never appears in a response or log. */
  key: Uint8Array<ArrayBuffer>;
  /** The proof store (`GET /proofs`, `POST /runs`). */
  store: ProofStore;
  /** Directory searched for scenario files (default `scenarios`). */
  scenarioDir?: string;
  /** Who may call what. */
  auth: AuthConfig;
  /** Allow clients to name `cmd:` substrates in `POST /runs` (runs their command line). */
  allowCmdSubstrates?: boolean;
  /** Largest request body accepted (default 1 MiB). */
  maxBodyBytes?: number;
  /** Time a client has to send a request body, in milliseconds (default 30 s). */
  bodyTimeoutMs?: number;
  /** Where request logs go. */
  logger: Logger;
  /** Extra fields of every request log line (e.g. the worker number). */
  logFields?: Record<string, unknown>;
}

/** Hono environment of the app: the request id, and Deno.serve's connection info if any. */
export type AppEnv = {
  Variables: { requestId: string };
  Bindings: { remoteAddr?: { hostname?: string } } | undefined;
};

type Ctx = Context<AppEnv>;

type Infer<T> = T extends z.ZodType ? z.infer<T> : undefined;
type BodyOf<R> = R extends
  { request: { body: { content: { "application/json": { schema: infer S } } } } } ? Infer<S>
  : undefined;
type QueryOf<R> = R extends { request: { query: infer S } } ? Infer<S> : undefined;
type ParamsOf<R> = R extends { request: { params: infer S } } ? Infer<S> : undefined;

/** The validated input of an operation. */
interface Input<R> {
  body: BodyOf<R>;
  query: QueryOf<R>;
  params: ParamsOf<R>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Headers of every answer. The API answers JSON, where `frame-ancestors` in the CSP already
// forbids framing; each header costs throughput (measured: /health served about a fifth fewer
// requests with its six added headers than with none), so the HTML-only ones are on the
// documentation page alone. Headers are appended, not set: `Headers.set` and `has` walk the
// list lower-casing every name, and only the documentation responses ({@link ownPolicy}) come
// with a policy of their own.
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Responses whose handler chose their own content or caching policy (documentation). */
const ownPolicy = new WeakSet<Response>();

function honoPath(route: RouteConfig): string {
  return route.path.replace(/\{([^}]+)\}/g, ":$1");
}

/** A route's path as a regular expression (for 405 answers). */
function pathRegex(path: string): RegExp {
  const src = path.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${src.join("[^/]+")}$`);
}

/**
 * Build the application.
 *
 * @example
 * ```ts ignore
 * const app = createApp({ env, key, store, auth: { listenHost: "127.0.0.1" }, logger });
 * const res = await app.request("/health");
 * ```
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const authorizer = new Authorizer(deps.auth);
  const maxBody = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBody) || maxBody < 1) {
    throw new EmpiricError("usage_error", "--max-body-bytes must be a positive whole number");
  }
  const bodyTimeoutMs = deps.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  if (!Number.isSafeInteger(bodyTimeoutMs) || bodyTimeoutMs < 1 || bodyTimeoutMs > 2 ** 31 - 1) {
    throw new EmpiricError(
      "usage_error",
      "--body-timeout-ms must be a whole number of milliseconds from 1 to 2147483647",
    );
  }
  const scenarioDir = deps.scenarioDir ?? "scenarios";
  // Clients of the HTTP API name scenarios only by name, and no command lines unless allowed.
  const exposure: Exposure = { namesOnly: true, allowClientCmd: deps.allowCmdSubstrates ?? false };
  const startedAt = deps.env.monotonic();
  const logFields = deps.logFields ?? {};
  const logExtra = Object.entries(logFields).map(([k, v]) =>
    `,${JSON.stringify(k)}:${JSON.stringify(v)}`
  ).join("");
  const app = new OpenAPIHono<AppEnv>();
  const known: { method: string; regex: RegExp }[] = [];

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "The server's token (--token or EMPIRIC_HTTP_TOKEN). Needed for POST /runs when the server has a token, and for every data endpoint with --auth all.",
  });

  const context = (c: Ctx) => ({ instance: c.req.path, requestId: c.get("requestId") });

  const errorResponse = (err: unknown, c: Ctx): Response => {
    if (err instanceof HttpProblem) {
      return problemResponse(
        problemBody(err.code, err.message, { ...context(c), problems: err.problems }),
        err.headers,
      );
    }
    if (err instanceof EmpiricError && err.code !== "internal_error" && err.code !== "io_error") {
      return problemResponse(
        problemBody(err.code, err.message, { ...context(c), problems: err.problems }),
      );
    }
    deps.logger.log({
      level: "error",
      msg: "request failed",
      request_id: c.get("requestId"),
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      ...(err instanceof Error ? { stack: err.stack } : {}),
      ...logFields,
    });
    const code: ProblemCode = err instanceof EmpiricError ? err.code : "internal_error";
    const detail = code === "io_error"
      ? `the server could not read or write its files (request ${c.get("requestId")})`
      : `internal error: please report it with request id ${c.get("requestId")}`;
    return problemResponse(problemBody(code, detail, context(c)));
  };

  // Request id, Host check, security headers, one log line per request.
  app.use("*", async (c, next) => {
    const t0 = performance.now();
    const given = c.req.header("x-request-id");
    const requestId = given !== undefined && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    c.set("requestId", requestId);
    try {
      if (authorizer.checksHost) {
        // The Host header (HTTP/1.1), else the URL's authority (HTTP/2 :authority).
        authorizer.checkHost(c.req.header("host") ?? new URL(c.req.url).host);
      }
      await next();
    } catch (e) {
      c.res = errorResponse(e, c);
    }
    const res = c.res;
    const headers = res.headers;
    headers.append("x-request-id", requestId);
    headers.append("x-content-type-options", "nosniff");
    if (!ownPolicy.has(res)) {
      headers.append("content-security-policy", API_CSP);
      headers.append("cache-control", "no-store");
    } else {
      if (!headers.has("content-security-policy")) {
        headers.append("content-security-policy", API_CSP);
      }
      if (!headers.has("cache-control")) headers.append("cache-control", "no-store");
    }
    // The request line, written directly (the hot path): same members as logger.log would give.
    const remote = c.env?.remoteAddr?.hostname;
    deps.logger.line(
      `{"ts":"${isoNow()}","level":"info","msg":"request","request_id":"${requestId}","method":${
        JSON.stringify(c.req.method)
      },"path":${JSON.stringify(c.req.path)},"status":${res.status},"duration_ms":${
        Math.round((performance.now() - t0) * 1000) / 1000
      }${remote === undefined ? "" : `,"remote":${JSON.stringify(remote)}`}${logExtra}}`,
    );
  });

  app.onError((err, c) => errorResponse(err, c));

  app.notFound((c) => {
    const path = c.req.path;
    const allowed = new Set(known.filter((k) => k.regex.test(path)).map((k) => k.method));
    if (allowed.size === 0) {
      return problemResponse(
        problemBody("not_found", `no such endpoint: ${path} (see /openapi.json)`, context(c)),
      );
    }
    if (allowed.has("GET")) allowed.add("HEAD");
    allowed.add("OPTIONS");
    const allow = [...allowed].sort().join(", ");
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: { allow } });
    return problemResponse(
      problemBody(
        "method_not_allowed",
        `${c.req.method} is not allowed on ${path}; allowed: ${allow}`,
        context(c),
      ),
      { allow },
    );
  });

  /** Register one operation: OpenAPI description and handler from the same route object. */
  function operation<R extends RouteConfig>(
    spec: { route: R; access: Access },
    handler: (c: Ctx, input: Input<R>) => Response | Promise<Response>,
  ): void {
    const route: RouteConfig = authorizer.requiresToken(spec.access)
      ? { ...spec.route, security: [{ bearerAuth: [] }] }
      : spec.route;
    app.openAPIRegistry.registerPath(route);
    const method = route.method.toUpperCase();
    known.push({ method, regex: pathRegex(route.path) });
    const media = route.request?.body?.content?.["application/json"];
    const bodySchema = media && "schema" in media ? media.schema as z.ZodType : undefined;
    const querySchema = route.request?.query as z.ZodType | undefined;
    const paramsSchema = route.request?.params as z.ZodType | undefined;
    const numeric = querySchema ? numericFields(querySchema) : new Set<string>();
    app.on(method, honoPath(route), async (c) => {
      if (spec.access === "write" || authorizer.requiresToken(spec.access)) {
        authorizer.authorize(spec.access, c.req.header("authorization"));
      }
      const input = {} as Record<string, unknown>;
      if (paramsSchema) input.params = validate(paramsSchema, c.req.param(), "path");
      if (querySchema) {
        input.query = validate(querySchema, queryObject(c.req.queries(), numeric), "query");
      }
      if (bodySchema) {
        const body = await readJsonBody(c.req.raw, maxBody, bodyTimeoutMs);
        const parsed = bodySchema.safeParse(body.value);
        if (!parsed.success) {
          // A wire-format problem (e.g. an int out of range) is reported before the schema's.
          strictParseProblems(body.bytes);
          const problems = zodProblems(parsed.error, "body");
          throw new HttpProblem("usage_error", problems[0].message, { problems });
        }
        input.body = parsed.data;
      }
      return await handler(c, input as unknown as Input<R>);
    });
  }

  const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });

  operation(ROUTES.verify, async (c, { body }) => {
    const result = await verifyProofImpl(body.proof_json, { key: deps.key });
    if (result.checks.parse === "fail" || result.checks.schema === "fail") {
      const code = (result.reason ?? "schema_invalid") as ProblemCode;
      return problemResponse(
        problemBody(
          code,
          result.problems[0]?.message ?? problemStatus(code).title,
          { ...context(c), problems: result.problems },
          { ...result },
        ),
      );
    }
    return json(result);
  });

  operation(ROUTES.listScenarios, async () => json(await listScenarios(deps.env, scenarioDir)));

  operation(ROUTES.getScenario, async (_c, { params }) => {
    return json(await getScenarioClaim(deps.env, params.name, scenarioDir, exposure));
  });

  operation(ROUTES.canonicalize, async (_c, { body }) => {
    // No key: an HMAC under the server's key would let anyone sign records.
    return json(await canonicalizeValue(body.value_json));
  });

  operation(ROUTES.listProofs, (_c, { query }) => json(readProofIndex(deps.store, query)));

  operation(ROUTES.getProof, async (_c, { params }) => {
    const text = await deps.store.getText(params.proof_id);
    if (text === undefined) {
      throw new EmpiricError("not_found", `no stored proof ${params.proof_id}`);
    }
    return new Response(text, { headers: { "content-type": "application/json" } });
  });

  operation(ROUTES.run, async (_c, { body }) => {
    const result = await runScenarioOp({
      scenario: body.scenario,
      substrate: body.substrate,
      substrateName: body.substrate_name,
      substrateCommit: body.substrate_commit,
      after: body.after,
    }, {
      env: deps.env,
      key: deps.key,
      store: deps.store,
      scenarioDir,
      exposure,
      // No abort signal: a run whose client went away still completes and is stored (its
      // record is in GET /proofs); a server shutdown also lets it finish.
    });
    return json(runScenarioView(result), 201, { location: `/proofs/${result.proof_id}` });
  });

  operation(ROUTES.health, () =>
    json({
      status: "ok",
      uptime_s: Math.round(deps.env.monotonic() - startedAt) / 1000,
    }));

  operation(ROUTES.version, () => {
    const rt = deps.env.runtime();
    return json({
      empiric_version: rt.empiricVersion,
      empiric_git_commit: rt.empiricCommit,
      schema_version: SCHEMA_VERSION,
      deno: rt.host.deno,
    });
  });

  let documentText: string | undefined;
  operation(ROUTES.openapi, () => {
    documentText ??= JSON.stringify(openApiDocument(app));
    return new Response(documentText, { headers: { "content-type": "application/json" } });
  });

  operation(ROUTES.docs, () => {
    const res = new Response(DOCS_HTML, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": DOCS_CSP,
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
      },
    });
    ownPolicy.add(res);
    return res;
  });

  operation(ROUTES.docsAsset, async (c, { params }) => {
    const res = await docsAssetResponse(params.asset, c.req.header("accept-encoding"));
    if (!res) throw new EmpiricError("not_found", `no documentation asset ${params.asset}`);
    ownPolicy.add(res);
    return res;
  });

  return app;
}

/** The OpenAPI 3.1 document of an app built by {@link createApp}. */
export function openApiDocument(app: OpenAPIHono<AppEnv>): Record<string, unknown> {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "empiric HTTP API",
      version: EMPIRIC_VERSION,
      description:
        "Test falsifiable claims and verify signed Empirical Proof Records. Every endpoint calls the same implementation as the empiric CLI and the MCP tools and returns the same shapes. Errors are RFC 9457 problem+json with stable type URIs `https://empiric.dev/problems/{code}`.",
    },
    tags: [
      { name: "proofs", description: "Verify and read proof records" },
      { name: "scenarios", description: "Scenarios and their claims" },
      { name: "runs", description: "Run scenarios (writes)" },
      { name: "wire format", description: "The canonical form" },
      { name: "service", description: "Health, version, this document" },
    ],
  }) as unknown as Record<string, unknown>;
}
