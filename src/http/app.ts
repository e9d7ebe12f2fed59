/**
 * The HTTP API as a Hono application: `createApp(deps)` builds it from its dependencies (the
 * operations' host, auth, limits, logger) with no I/O of its own, so tests call it with
 * `app.request()` and `serve.ts` puts it behind `Deno.serve`.
 *
 * Routes are generated from the operation registry (src/ops/registry.ts): each operation with
 * an HTTP binding gets its route, its input assembled from path parameters, the query string
 * or the JSON body, and is called through `invoke` as a network caller, which applies every
 * exposure rule. This file adds only what HTTP itself needs: the Host check, tokens, body
 * limits, problem+json, headers, logs, and the documentation pages.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { EmpiricError } from "../errors/errors.ts";
import {
  type Access,
  InputError,
  invoke,
  type Operation,
  type OpHost,
  successStatus,
} from "../ops/mod.ts";
import { OPERATIONS } from "../ops/registry.ts";
import { type AuthConfig, Authorizer } from "./auth.ts";
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  numericFields,
  queryObject,
  readJsonBody,
  strictParseProblems,
} from "./input.ts";
import { isoNow, type Logger } from "./log.ts";
import { context as otelContext } from "@opentelemetry/api";
import { activeTelemetry } from "../telemetry/otel.ts";
import { startHttpServerSpan } from "../telemetry/http.ts";
import { HttpProblem, problemBody, type ProblemCode, problemResponse } from "./problem.ts";
import { buildOpenApiDocument, HTTP_ONLY_ROUTES } from "./openapi.ts";
import { DOCS_CSP, DOCS_HTML, docsAssetResponse } from "./docs_page.ts";

/** What the application needs. */
export interface AppDeps {
  /** The operations' host, as a network caller (its key never appears in a response or log). */
  host: OpHost;
  /** Who may call what. */
  auth: AuthConfig;
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
  Bindings: { remoteAddr?: { hostname?: string; port?: number } } | undefined;
};

type Ctx = Context<AppEnv>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Headers of every answer. The API answers JSON, where `frame-ancestors` in the CSP already
// forbids framing; each header costs throughput (measured: /health served about a fifth fewer
// requests with its six added headers than with none), so the HTML-only ones are on the
// documentation page alone. Headers are appended, not set: `Headers.set` and `has` walk the
// list lower-casing every name, and only the documentation responses ({@link ownPolicy}) come
// with a policy of their own.
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Pages an operation answers (reports, the proofs page): inline style, no script, nothing from
 * any other origin; forms only to this server. Each page also carries a stricter policy of its
 * own (a `<meta>` element allowing its style sheets by hash).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Responses whose handler chose their own content or caching policy (documentation). */
const ownPolicy = new WeakSet<Response>();

function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
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
 * const app = createApp({ host, auth: { listenHost: "127.0.0.1" }, logger });
 * const res = await app.request("/health");
 * ```
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
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
  const host = deps.host;
  if (host.caller !== "network") {
    throw new EmpiricError("internal_error", "the HTTP API serves network callers only");
  }
  const logFields = deps.logFields ?? {};
  const logExtra = Object.entries(logFields).map(([k, v]) =>
    `,${JSON.stringify(k)}:${JSON.stringify(v)}`
  ).join("");
  const app = new Hono<AppEnv>();
  const known: { method: string; regex: RegExp }[] = [];

  const context = (c: Ctx) => ({ instance: c.req.path, requestId: c.get("requestId") });

  const errorResponse = (err: unknown, c: Ctx): Response => {
    if (err instanceof HttpProblem) {
      if (err.code === "client_closed") {
        // Not the server's fault and nobody may read the answer: one info line, no stack.
        deps.logger.log({
          level: "info",
          msg: "client closed the connection",
          request_id: c.get("requestId"),
          ...logFields,
        });
      }
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
    // With telemetry on, the request runs in a SERVER span continuing the caller's W3C
    // traceparent (HTTP semantic conventions); with it off, nothing is started (no cost).
    const span = activeTelemetry()
      ? startHttpServerSpan(c.req.raw, {
        clientAddress: c.env?.remoteAddr?.hostname,
        clientPort: c.env?.remoteAddr?.port,
      })
      : undefined;
    const handle = async () => {
      try {
        if (authorizer.checksHost) {
          // The Host header (HTTP/1.1), else the URL's authority (HTTP/2 :authority).
          authorizer.checkHost(c.req.header("host") ?? new URL(c.req.url).host);
        }
        await next();
      } catch (e) {
        c.res = errorResponse(e, c);
      }
    };
    if (span) {
      await otelContext.with(span.context, handle);
      const route = c.req.routePath;
      if (route && route !== "/*" && route !== "*") {
        span.setRoute(route.replace(/:([^/]+)/g, "{$1}"));
      }
      span.end({ status: c.res.status });
    } else {
      await handle();
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

  /** Register a route: remember it for 405 answers, then the handler. */
  function route(
    method: string,
    path: string,
    handler: (c: Ctx) => Response | Promise<Response>,
  ): void {
    known.push({ method, regex: pathRegex(path) });
    app.on(method, honoPath(path), handler);
  }

  /**
   * The route of the operations on one method and path: input from path, query or body, the
   * operation chosen by its body discriminator when several share the route; the call goes
   * through invoke.
   */
  function operationRoute(ops: Operation[]): void {
    const b = ops[0].http!;
    const fallback = ops.find((op) => !op.http!.discriminator) ?? ops[0];
    const inPath = [...b.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const numeric = b.method === "GET" ? numericFields(fallback.input) : new Set<string>();
    const describe = (member: string | undefined) =>
      member === undefined
        ? (b.method === "GET" ? "the query string" : "the body")
        : inPath.includes(member)
        ? `path parameter ${member}`
        : b.method === "GET"
        ? `query parameter ${member}`
        : `/${member}`;
    const needsCheck = (op: Operation) =>
      op.access === "write" || authorizer.requiresToken(op.access);
    route(b.method, b.path, async (c) => {
      // Authorization comes before the body is read: every operation of a route shares the
      // strictest access class among them for this check.
      const strictest = ops.find(needsCheck);
      if (strictest) authorizer.authorize(strictest.access, c.req.header("authorization"));
      const input: Record<string, unknown> = {};
      let bytes: Uint8Array | undefined;
      if (b.method === "GET") {
        Object.assign(input, queryObject(c.req.queries(), numeric));
      } else {
        const body = await readJsonBody(c.req.raw, maxBody, bodyTimeoutMs);
        bytes = body.bytes;
        if (typeof body.value !== "object" || body.value === null || Array.isArray(body.value)) {
          const message = "the body must be a JSON object";
          throw new HttpProblem("usage_error", message, {
            problems: [{ code: "usage_error", message, pointer: "" }],
          });
        }
        Object.assign(input, body.value);
      }
      for (const name of inPath) {
        if (name in input) {
          throw new HttpProblem(
            "usage_error",
            `${describe(name)} is given in the path; do not repeat it`,
          );
        }
        input[name] = c.req.param(name);
      }
      const op = ops.find((o) => o.http!.discriminator && o.http!.discriminator in input) ??
        fallback;
      const binding = op.http!;
      let out: unknown;
      try {
        out = await invoke(op, input, host, { describe });
      } catch (e) {
        // A wire-format problem in the body (an int out of range) is reported before the
        // schema's, as the typed parser names it.
        if (e instanceof InputError && bytes) strictParseProblems(bytes);
        throw e;
      }
      const problem = binding.problem?.(out as never);
      if (problem) {
        const result = out as { problems?: unknown[] };
        return problemResponse(
          problemBody(
            problem,
            (result.problems?.[0] as { message?: string })?.message ?? problem,
            { ...context(c), problems: result.problems as never },
            { ...result },
          ),
        );
      }
      const status = successStatus(binding, out as never);
      if (binding.rawBody) {
        const type = binding.rawContentType?.(out as never) ?? "application/json";
        if (!type.startsWith("text/html")) {
          return new Response(binding.rawBody(out as never), {
            status,
            headers: { "content-type": type },
          });
        }
        const res = new Response(binding.rawBody(out as never), {
          status,
          headers: {
            "content-type": type,
            "content-security-policy": PAGE_CSP,
            "referrer-policy": "no-referrer",
            "x-frame-options": "DENY",
          },
        });
        ownPolicy.add(res);
        return res;
      }
      return json(out, status, binding.headers?.(out as never) ?? {});
    });
  }

  const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });

  const routes = new Map<string, Operation[]>();
  for (const op of OPERATIONS) {
    if (!op.http) continue;
    const key = `${op.http.method} ${op.http.path}`;
    routes.set(key, [...(routes.get(key) ?? []), op]);
  }
  for (const ops of routes.values()) operationRoute(ops);

  const publicRoute = (path: string) => {
    const r = HTTP_ONLY_ROUTES.find((x) => x.path === path)!;
    return { path, access: r.access as Access };
  };

  let documentText: string | undefined;
  route("GET", publicRoute("/openapi.json").path, () => {
    documentText ??= JSON.stringify(openApiDocument(authorizer));
    return new Response(documentText, { headers: { "content-type": "application/json" } });
  });

  route("GET", publicRoute("/docs").path, () => {
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

  route("GET", publicRoute("/docs/assets/{asset}").path, async (c) => {
    const asset = c.req.param("asset") ?? "";
    const res = await docsAssetResponse(asset, c.req.header("accept-encoding"));
    if (!res) throw new EmpiricError("not_found", `no documentation asset ${asset}`);
    ownPolicy.add(res);
    return res;
  });

  return app;
}

/** The OpenAPI 3.1 document of a server with this auth configuration. */
export function openApiDocument(
  auth: { requiresToken(access: Access): boolean },
): Record<string, unknown> {
  return buildOpenApiDocument({ requiresToken: (a) => auth.requiresToken(a) });
}
