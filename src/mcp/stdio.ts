/**
 * The stdio transport of `empiric mcp serve`: newline-delimited JSON-RPC on standard input and
 * output, with every line a client can send answered. A line longer than the message limit is
 * skipped to its end and answered with a JSON-RPC error that names the limit (the server keeps
 * serving); a line that is not JSON is answered -32700 (parse error), one that is JSON but not a
 * JSON-RPC message -32600 (invalid request), each with one diagnostic line on stderr, as the
 * Streamable HTTP transport answers them.
 *
 * @module
 */
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/server";

/** Largest message accepted on stdin (bytes, without its newline): 10 MiB. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** JSON-RPC error codes answered by the transport itself. */
export const JSONRPC_PARSE_ERROR = -32700;
/** The line is JSON but not a JSON-RPC message, or is too large. */
export const JSONRPC_INVALID_REQUEST = -32600;

/** Options of {@link LineTransport}. */
export interface LineTransportOptions {
  /** Standard input. */
  input: ReadableStream<Uint8Array>;
  /** Write bytes to standard output (all of them). */
  write: (bytes: Uint8Array) => Promise<void>;
  /** One diagnostic line (stderr). */
  log: (line: string) => void;
  /** Message limit in bytes (default {@link MAX_STDIO_MESSAGE_BYTES}). */
  maxMessageBytes?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** The request id of a line, when its start shows one (for answering an oversized request). */
function idOf(head: string): string | number | null {
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]);
  } catch {
    return null;
  }
}

/**
 * A stdio transport for the MCP SDK that never lets one bad line end the session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineTransport } from "./stdio.ts";
 * const out: string[] = [];
 * const input = new ReadableStream<Uint8Array>({
 *   start(c) {
 *     c.enqueue(new TextEncoder().encode('not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
 *     c.close();
 *   },
 * });
 * const t = new LineTransport({
 *   input,
 *   write: (b) => Promise.resolve(void out.push(new TextDecoder().decode(b))),
 *   log: () => {},
 * });
 * const seen: unknown[] = [];
 * // Input ends with the ping unanswered: the transport stays open until it is answered.
 * t.onmessage = (m) => {
 *   seen.push(m);
 *   void t.send({ jsonrpc: "2.0", id: 1, result: {} });
 * };
 * await t.start();
 * await t.closed;
 * assert.equal(JSON.parse(out[0]).error.code, -32700);
 * assert.deepEqual(JSON.parse(out[1]), { jsonrpc: "2.0", id: 1, result: {} });
 * assert.deepEqual(seen, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
 * ```
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Resolves when standard input has ended or the transport was closed. */
  readonly closed: Promise<void>;
  #done!: () => void;
  #options: LineTransportOptions;
  #max: number;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #isClosed = false;
  #writes: Promise<void> = Promise.resolve();
  /** Requests received and not answered yet (answered before closing at end of input). */
  #pending = new Set<string | number>();
  #drained?: () => void;

  constructor(options: LineTransportOptions) {
    this.#options = options;
    this.#max = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
    this.closed = new Promise((r) => (this.#done = r));
  }

  start(): Promise<void> {
    this.#reader = this.#options.input.getReader();
    void this.#pump();
    return Promise.resolve();
  }

  async #pump(): Promise<void> {
    let parts: Uint8Array[] = [];
    let size = 0;
    let skipping = false; // inside a line that went over the limit
    let skippedHead = "";
    try {
      while (!this.#isClosed) {
        const { value, done } = await this.#reader!.read();
        if (done) break;
        let start = 0;
        while (start < value.length) {
          const nl = value.indexOf(0x0a, start);
          const end = nl === -1 ? value.length : nl;
          const piece = value.subarray(start, end);
          if (skipping) {
            if (nl !== -1) {
              await this.#tooLarge(skippedHead);
              skipping = false;
              skippedHead = "";
            }
          } else if (size + piece.length > this.#max) {
            skipping = true;
            skippedHead = decoder.decode(concat(parts, size).subarray(0, 4096));
            parts = [];
            size = 0;
            if (nl !== -1) {
              await this.#tooLarge(skippedHead);
              skipping = false;
              skippedHead = "";
            }
          } else {
            parts.push(piece.slice());
            size += piece.length;
            if (nl !== -1) {
              const line = concat(parts, size);
              parts = [];
              size = 0;
              await this.#line(line);
            }
          }
          start = nl === -1 ? value.length : nl + 1;
        }
      }
      if (size > 0 && !skipping) await this.#line(concat(parts, size));
      // End of input: a client that wrote its requests and closed its side (`printf … | empiric
      // mcp serve`) still gets every answer before the server stops.
      if (this.#pending.size > 0) {
        await new Promise<void>((resolve) => (this.#drained = resolve));
      }
    } catch (e) {
      if (!this.#isClosed) this.onerror?.(e as Error);
    } finally {
      await this.close();
    }
  }

  async #line(bytes: Uint8Array): Promise<void> {
    const text = decoder.decode(bytes).replace(/\r$/, "");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.#options.log(`empiric mcp: parse error: ${(e as Error).message}`);
      await this.#error(null, JSONRPC_PARSE_ERROR, `Parse error: ${(e as Error).message}`);
      return;
    }
    if (
      isJSONRPCRequest(value) || isJSONRPCNotification(value) || isJSONRPCResultResponse(value) ||
      isJSONRPCErrorResponse(value)
    ) {
      if (isJSONRPCRequest(value)) this.#pending.add(value.id);
      this.onmessage?.(value as JSONRPCMessage);
      return;
    }
    const id = typeof value === "object" && value !== null && "id" in value &&
        (typeof value.id === "string" || typeof value.id === "number")
      ? value.id
      : null;
    this.#options.log("empiric mcp: invalid request: not a JSON-RPC 2.0 message");
    await this.#error(id, JSONRPC_INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message");
  }

  async #tooLarge(head: string): Promise<void> {
    const limit = this.#max;
    const message = `message larger than the ${limit} byte limit of the stdio transport (${
      limit % (1024 * 1024) === 0 ? `${limit / 1024 / 1024} MiB` : `${limit} bytes`
    }); it was skipped`;
    this.#options.log(`empiric mcp: ${message}`);
    await this.#error(idOf(head), JSONRPC_INVALID_REQUEST, `Invalid Request: ${message}`);
  }

  #error(id: string | number | null, code: number, message: string): Promise<void> {
    return this.#write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  #write(message: unknown): Promise<void> {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    this.#writes = this.#writes.then(() => this.#options.write(bytes));
    return this.#writes;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return Promise.resolve();
    const written = this.#write(message);
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = (message as { id?: string | number }).id;
      if (id !== undefined) this.#pending.delete(id);
      if (this.#pending.size === 0) void written.finally(() => this.#drained?.());
    }
    return written.catch(async (e) => {
      // The client is gone (its end of the pipe closed): stop, nobody reads the answers.
      this.#pending.clear();
      this.#drained?.();
      await this.close();
      throw e;
    });
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    try {
      await this.#reader?.cancel();
    } catch {
      // already released
    }
    await this.#writes.catch(() => undefined);
    try {
      this.onclose?.();
    } finally {
      this.#done();
    }
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
