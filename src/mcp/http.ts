/**
 * The HTTP side of `empiric mcp serve`: one web-standard fetch handler for `--transport
 * streamable-http` (path `/mcp`) or `--transport sse` (`GET /sse`, `POST /messages`).
 *
 * Every request passes three checks first, in order:
 * 1. Host (only when bound to loopback): the `Host` header must name a loopback host, so a
 *    DNS-rebound name cannot reach the server through a browser (403).
 * 2. Origin: a request carrying `Origin` must come from a loopback origin or one allowed with
 *    `--allow-origin` (403). Non-browser clients send no `Origin` and pass.
 * 3. Bearer token, when one is configured (required beyond loopback): `Authorization: Bearer
 *    <token>`, compared in constant time (401 with a `WWW-Authenticate` challenge).
 *
 * @module
 */
import { tokenMatches } from "../net/access.ts";
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  OAuthError,
  OAuthErrorCode,
  originValidationResponse,
  requireBearerAuth,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { SseServerTransport } from "./sse.ts";
import { BoundedEventStore, SSE_RETRY_MS } from "./event_store.ts";

/** The HTTP transports. */
export type HttpTransportKind = "sse" | "streamable-http";

/** Paths served. */
export const MCP_PATH = "/mcp";
/** SSE stream path. */
export const SSE_PATH = "/sse";
/** SSE message endpoint, beside the stream. */
export const SSE_MESSAGES_PATH = "/messages";

/** At most this many SSE sessions at once. */
export const MAX_SSE_SESSIONS = 64;

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpOptions {
  transport: HttpTransportKind;
  factory: McpServerFactory;
  /** Bound to a loopback address: check the Host header. */
  loopback: boolean;
  /** Extra allowed Origin hostnames (or `<scheme>://*`), beyond the loopback ones. */
  allowOrigins?: readonly string[];
  /** Required bearer token, if any. */
  token?: string;
  /** Diagnostics (stderr). */
  log: (line: string) => void;
}

/** A fetch handler with a shutdown. */
export interface McpHttpHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Reduce an `--allow-origin` value to what the Origin check compares: the hostname of an origin
 * URL (`https://app.example:8443` → `app.example`), a bare hostname as is, or `<scheme>://*`.
 */
export function originAllowEntry(value: string): string {
  const v = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\/\*$/.test(v)) return v;
  if (v.includes("://")) {
    try {
      return new URL(v).hostname;
    } catch {
      return v;
    }
  }
  return v.toLowerCase();
}

function notFound(path: string, transport: HttpTransportKind): Response {
  const where = transport === "sse"
    ? `${SSE_PATH} (GET) and ${SSE_MESSAGES_PATH} (POST)`
    : MCP_PATH;
  return new Response(`no MCP endpoint at ${path}: this server serves ${where}\n`, {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

/** Build the handler. */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const origins = [
    ...localhostAllowedOrigins(),
    ...(options.allowOrigins ?? []).map(originAllowEntry),
  ];
  const hosts = localhostAllowedHostnames();
  const token = options.token;
  const auth = token === undefined ? undefined : requireBearerAuth({
    verifier: {
      verifyAccessToken: (presented) => {
        if (!tokenMatches(token, presented)) {
          return Promise.reject(
            new OAuthError(OAuthErrorCode.InvalidToken, "invalid bearer token"),
          );
        }
        return Promise.resolve({
          token: presented,
          clientId: "empiric-mcp",
          scopes: [],
          // a static token does not expire; the SDK's check wants a time
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
        });
      },
    },
  });

  const guard = async (req: Request): Promise<Response | AuthInfo | undefined> => {
    if (options.loopback) {
      const bad = hostHeaderValidationResponse(req, hosts);
      if (bad) return bad;
    }
    const badOrigin = originValidationResponse(req, origins);
    if (badOrigin) {
      options.log(
        `empiric mcp: refused a request from Origin ${
          req.headers.get("origin")
        } (allow it with --allow-origin)`,
      );
      return badOrigin;
    }
    return auth ? await auth(req) : undefined;
  };

  if (options.transport === "streamable-http") {
    const modern = createMcpHandler(options.factory, {
      legacy: "reject",
      onerror: (e) => options.log(`empiric mcp: ${e.message}`),
    });
    const legacy = legacySessions(options.factory, options.log);
    return {
      fetch: async (req) => {
        const checked = await guard(req);
        if (checked instanceof Response) return checked;
        const path = new URL(req.url).pathname;
        if (path !== MCP_PATH) return notFound(path, "streamable-http");
        const authInfo = checked ?? undefined;
        if (await isLegacyRequest(req)) return await legacy.fetch(req, authInfo);
        return await modern.fetch(req, authInfo ? { authInfo } : undefined);
      },
      close: async () => {
        await Promise.all([modern.close(), legacy.close()]);
      },
    };
  }

  const sessions = new Map<string, SseServerTransport>();
  return {
    fetch: async (req) => {
      const checked = await guard(req);
      if (checked instanceof Response) return checked;
      const url = new URL(req.url);
      if (url.pathname === SSE_PATH) {
        if (req.method !== "GET") {
          return new Response("use GET to open the event stream\n", {
            status: 405,
            headers: { allow: "GET" },
          });
        }
        if (sessions.size >= MAX_SSE_SESSIONS) {
          return new Response("too many open SSE sessions\n", { status: 503 });
        }
        const transport = new SseServerTransport(SSE_MESSAGES_PATH);
        const server = await options.factory({ era: "legacy", requestInfo: req });
        sessions.set(transport.sessionId, transport);
        transport.onclose = () => {
          sessions.delete(transport.sessionId);
        };
        await server.connect(transport);
        return transport.response;
      }
      if (url.pathname === SSE_MESSAGES_PATH) {
        if (req.method !== "POST") {
          return new Response("POST JSON-RPC messages here\n", {
            status: 405,
            headers: { allow: "POST" },
          });
        }
        const id = url.searchParams.get("sessionId") ?? "";
        const transport = sessions.get(id);
        if (!transport) {
          return new Response(`no SSE session ${JSON.stringify(id)}\n`, { status: 404 });
        }
        return await transport.handlePost(req, checked ? { authInfo: checked } : {});
      }
      return notFound(url.pathname, "sse");
    },
    close: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((t) => t.close()));
    },
  };
}

/** At most this many 2025-era Streamable HTTP sessions; the least recently used one is closed. */
export const MAX_LEGACY_SESSIONS = 128;

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status });
}

/**
 * 2025-era Streamable HTTP (revisions 2025-03-26 to 2025-11-25), served with sessions: the
 * `initialize` request creates a server instance and a session id (`Mcp-Session-Id`), and later
 * requests of the session reach the same instance, so that `notifications/cancelled` aborts the
 * request it names and the GET stream and DELETE work as those revisions describe. (The SDK's
 * stateless fallback answers each POST with a fresh instance, which cannot cancel a running
 * call.)
 */
function legacySessions(factory: McpServerFactory, log: (line: string) => void) {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const touch = (id: string, t: WebStandardStreamableHTTPServerTransport) => {
    sessions.delete(id);
    sessions.set(id, t);
  };
  return {
    async fetch(req: Request, authInfo: AuthInfo | undefined): Promise<Response> {
      const id = req.headers.get("mcp-session-id");
      if (id) {
        const t = sessions.get(id);
        if (!t) return jsonRpcError(404, "Session not found: initialize a new session");
        touch(id, t);
        return await t.handleRequest(req, { authInfo });
      }
      if (req.method !== "POST") {
        return jsonRpcError(400, "Bad Request: no Mcp-Session-Id; POST initialize first");
      }
      const transport: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          // Every SSE stream starts with a priming event (an id, a retry time), and a client
          // that lost its stream resumes with Last-Event-ID.
          eventStore: new BoundedEventStore(),
          retryInterval: SSE_RETRY_MS,
          onsessioninitialized: (sid) => {
            touch(sid, transport);
            while (sessions.size > MAX_LEGACY_SESSIONS) {
              const [oldest, t] = sessions.entries().next().value!;
              sessions.delete(oldest);
              log(
                `empiric mcp: closing idle session ${oldest} (more than ${MAX_LEGACY_SESSIONS} open)`,
              );
              void t.close();
            }
          },
          onsessionclosed: (sid) => {
            sessions.delete(sid);
          },
        });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      const server = await factory({ era: "legacy", authInfo, requestInfo: req });
      await server.connect(transport);
      const res = await transport.handleRequest(req, { authInfo });
      if (!transport.sessionId) await server.close(); // not an initialize: refused, nothing kept
      return res;
    },
    async close(): Promise<void> {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((t) => t.close()));
    },
  };
}
