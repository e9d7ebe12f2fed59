/**
 * Serving the empiric MCP server over stdio (both protocol eras, through the SDK's `serveStdio`)
 * or HTTP (`Deno.serve` on loopback by default; Streamable HTTP or SSE).
 *
 * @module
 */
import { checkToken as checkAccessToken, isLoopbackHost, MIN_TOKEN_BYTES } from "../net/access.ts";

export { isLoopbackHost, MIN_TOKEN_BYTES };
import type { McpServerFactory } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { LineTransport } from "./stdio.ts";
import { UsageError } from "../errors/errors.ts";
import { createMcpHttpHandler, type HttpTransportKind, MCP_PATH, SSE_PATH } from "./http.ts";

/** Refuse tokens that are short or cannot travel in an HTTP header as they are. */
export function checkToken(token: string): void {
  checkAccessToken(token, "MCP bearer");
}

/** A running stdio server. */
export interface StdioServing {
  /** Resolves when the client closes the connection (stdin ends) or {@link close} is called. */
  readonly finished: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serve over this process's stdin/stdout. stdout then carries JSON-RPC messages only; the
 * opening message picks the protocol era (`server/discover` → 2026-07-28, `initialize` →
 * 2025-era) and the connection stays in it. Lines over the message limit and lines that are not
 * JSON-RPC are answered with JSON-RPC errors and the server keeps serving (stdio.ts).
 */
export function serveMcpStdio(
  factory: McpServerFactory,
  log: (line: string) => void,
  io: { input: ReadableStream<Uint8Array>; write: (bytes: Uint8Array) => Promise<void> } = {
    input: Deno.stdin.readable,
    write: async (bytes) => {
      let off = 0;
      while (off < bytes.length) off += await Deno.stdout.write(bytes.subarray(off));
    },
  },
  maxMessageBytes?: number,
): StdioServing {
  const transport = new LineTransport({ ...io, log, maxMessageBytes });
  const handle = serveStdio(factory, {
    transport,
    onerror: (e) => log(`empiric mcp: ${e.message}`),
  });
  return { finished: transport.closed, close: () => handle.close() };
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
