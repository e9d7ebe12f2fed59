/**
 * Serving the empiric MCP server over HTTP (`Deno.serve` on loopback by default; Streamable HTTP
 * or SSE).
 *
 * @module
 */
import type { McpServerFactory } from "@modelcontextprotocol/server";
import { checkToken as checkAccessToken, isLoopbackHost, MIN_TOKEN_BYTES } from "../net/access.ts";
import { UsageError } from "../errors/errors.ts";
import { createMcpHttpHandler, type HttpTransportKind, MCP_PATH, SSE_PATH } from "./http.ts";

export { isLoopbackHost, MIN_TOKEN_BYTES };

/** Refuse tokens that are short or cannot travel in an HTTP header as they are. */
export function checkToken(token: string): void {
  checkAccessToken(token, "MCP bearer");
}

/** Options of {@link serveMcpHttp}. */
export interface HttpServeOptions {
  transport: HttpTransportKind;
  /** Address to bind (default 127.0.0.1). */
  hostname?: string;
  /** Port (0: any free port). */
  port?: number;
  /** Bearer token; required when `hostname` is not loopback. */
  token?: string;
  /** Extra allowed Origins (URLs or hostnames). */
  allowOrigins?: readonly string[];
  log: (line: string) => void;
}

/** A running HTTP server. */
export interface HttpServing {
  /** Bound address. */
  readonly hostname: string;
  readonly port: number;
  /** The endpoint clients connect to (`http://host:port/mcp` or `/sse`). */
  readonly url: string;
  /** Resolves when the server has stopped. */
  readonly finished: Promise<void>;
  /** Stop accepting requests, end open sessions and streams. */
  shutdown(): Promise<void>;
}

/**
 * Serve over HTTP. Refuses (usage_error) to bind beyond loopback without a token.
 */
export function serveMcpHttp(factory: McpServerFactory, options: HttpServeOptions): HttpServing {
  const hostname = options.hostname ?? "127.0.0.1";
  const loopback = isLoopbackHost(hostname);
  if (!loopback && !options.token) {
    throw new UsageError(
      `--host ${hostname} is reachable beyond this machine: give a bearer token with --token or EMPIRIC_MCP_TOKEN`,
    );
  }
  if (options.token !== undefined) checkToken(options.token);
  const handler = createMcpHttpHandler({
    transport: options.transport,
    factory,
    loopback,
    allowOrigins: options.allowOrigins,
    token: options.token,
    log: options.log,
  });
  const ctl = new AbortController();
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: hostname.replace(/^\[|\]$/g, ""),
      port: options.port ?? 0,
      signal: ctl.signal,
      onListen: () => {},
      onError: (e) => {
        options.log(`empiric mcp: ${(e as Error)?.stack ?? e}`);
        return new Response("internal error\n", { status: 500 });
      },
    }, (req) => handler.fetch(req));
  } catch (e) {
    throw new UsageError(
      `cannot listen on ${hostname}:${options.port ?? 0}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const addr = server.addr;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const path = options.transport === "sse" ? SSE_PATH : MCP_PATH;
  let stopping: Promise<void> | undefined;
  return {
    hostname: addr.hostname,
    port: addr.port,
    url: `http://${shown}:${addr.port}${path}`,
    finished: server.finished,
    shutdown: () => {
      stopping ??= (async () => {
        await handler.close();
        ctl.abort();
        await server.finished;
      })();
      return stopping;
    },
  };
}
