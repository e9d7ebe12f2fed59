/**
 * Serving the empiric MCP server over stdio (both protocol eras, through the SDK's `serveStdio`).
 * The HTTP transports are in serve_http.ts, which stdio serving does not load.
 *
 * @module
 */
import type { McpServerFactory } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { LineTransport } from "./stdio.ts";

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
