/**
 * Whether an error means the client went away (closed or reset its connection while the server
 * was reading the request or writing the answer). That is an operating condition, not a bug:
 * no 5xx is counted and no stack is logged.
 *
 * @module
 */

const GONE_NAMES = new Set(["BadResource", "BrokenPipe", "ConnectionReset", "ConnectionAborted"]);
const GONE_MESSAGE =
  /connection (closed|reset|aborted)|broken pipe|body (stream|read) (was )?(aborted|cancelled|closed)|error reading a body from connection|request (body )?(was )?aborted|unexpected (eof|end of file)/i;

/**
 * True when `error` (or its cause) says the peer closed or reset the connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isClientGone } from "./client_gone.ts";
 * assert.equal(isClientGone(new Deno.errors.ConnectionReset("reset")), true);
 * assert.equal(isClientGone(new TypeError("x is undefined")), false);
 * ```
 */
export function isClientGone(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (!(e instanceof Error)) return false;
    if (GONE_NAMES.has(e.name) || GONE_MESSAGE.test(e.message)) return true;
  }
  return false;
}
