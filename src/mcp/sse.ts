/**
 * The HTTP+SSE transport of MCP revision 2024-11-05 (still used by many 2025-era clients), on
 * web-standard `Request`/`Response` so it runs on `Deno.serve` beside Streamable HTTP.
 *
 * A client opens `GET /sse`: the response is an event stream whose first event, `endpoint`,
 * names where to POST messages (`/messages?sessionId=<id>`). Each POSTed JSON-RPC message is
 * answered `202 Accepted`; responses and notifications come back on the event stream as
 * `message` events. The 2.x SDK dropped this transport (its frozen copy in
 * `@modelcontextprotocol/server-legacy` needs Express), so it is implemented here against the
 * SDK's `Transport` interface, with the SDK's own body reader and message validation.
 *
 * @module
 */
import {
  isJsonContentType,
  type JSONRPCMessage,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  readRequestBody,
  type Transport,
} from "@modelcontextprotocol/server";

/** Largest POSTed message accepted (bytes). */
export const SSE_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();

function plain(status: number, text: string): Response {
  return new Response(text + "\n", {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

/** One SSE session: the event stream of one `GET /sse` and its POST endpoint. */
export class SseServerTransport implements Transport {
  /** The session id (a random UUID), also in the endpoint URL. */
  readonly sessionId: string = crypto.randomUUID();
  /** The event-stream response to return for the `GET`. */
  readonly response: Response;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  #controller?: ReadableStreamDefaultController<Uint8Array>;
  #endpoint: string;
  #keepAlive?: ReturnType<typeof setInterval>;
  #keepAliveMs: number;
  #closed = false;

  /**
   * @param endpoint path clients POST messages to (the session id is appended as a query)
   * @param keepAliveMs interval of SSE comment frames that keep proxies from closing an idle
   *   stream (0: none)
   */
  constructor(endpoint: string, keepAliveMs = 15_000) {
    this.#endpoint = `${endpoint}?sessionId=${encodeURIComponent(this.sessionId)}`;
    this.#keepAliveMs = keepAliveMs;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#controller = c;
      },
      cancel: () => {
        // the client went away
        void this.close();
      },
    });
    this.response = new Response(stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  /** Whether the session has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  #write(chunk: string): void {
    if (this.#closed || !this.#controller) return;
    try {
      this.#controller.enqueue(encoder.encode(chunk));
    } catch {
      void this.close();
    }
  }

  /** Send the `endpoint` event (called by the SDK on connect). */
  start(): Promise<void> {
    this.#write(`event: endpoint\ndata: ${this.#endpoint}\n\n`);
    if (this.#keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#write(": keep-alive\n\n"), this.#keepAliveMs);
    }
    return Promise.resolve();
  }

  /** Send one JSON-RPC message as a `message` event. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the SSE session is closed"));
    // JSON.stringify escapes line breaks inside strings, so one data line carries the message.
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return Promise.resolve();
  }

  /** Handle one `POST` to this session's endpoint. */
  async handlePost(
    request: Request,
    extra: Omit<MessageExtraInfo, "request"> = {},
  ): Promise<Response> {
    if (this.#closed) return plain(404, "the SSE session is closed");
    if (!isJsonContentType(request.headers.get("content-type"))) {
      return plain(415, "Content-Type must be application/json");
    }
    let text: string;
    try {
      const body = await readRequestBody(request, SSE_MAX_MESSAGE_BYTES);
      if (body.tooLarge) return plain(413, `message larger than ${SSE_MAX_MESSAGE_BYTES} bytes`);
      text = body.text;
    } catch (e) {
      return plain(400, `cannot read the request body: ${(e as Error).message}`);
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(text));
    } catch (e) {
      this.onerror?.(e as Error);
      return plain(400, `not a JSON-RPC message: ${(e as Error).message}`);
    }
    this.onmessage?.(message, { ...extra, request });
    return plain(202, "Accepted");
  }

  /** End the event stream and the session. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    try {
      this.#controller?.close();
    } catch {
      // already closed by the client
    }
    this.onclose?.();
    return Promise.resolve();
  }
}
