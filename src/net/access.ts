/**
 * Access rules shared by the network surfaces (HTTP API and MCP HTTP transports): which hosts
 * are loopback-only, what a bearer token must look like, and comparing tokens in constant time.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";

/** Shortest bearer token accepted, in bytes. */
export const MIN_TOKEN_BYTES = 16;

const encoder = new TextEncoder();

/**
 * True for addresses that only this machine can reach: `localhost` (and `*.localhost`),
 * 127.0.0.0/8, `::1`. Brackets around IPv6 literals are accepted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLoopbackHost } from "./access.ts";
 * assert.ok(isLoopbackHost("127.0.0.1"));
 * assert.ok(isLoopbackHost("[::1]"));
 * assert.ok(isLoopbackHost("localhost"));
 * assert.ok(!isLoopbackHost("0.0.0.0"));
 * assert.ok(!isLoopbackHost("192.168.1.4"));
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((x) => Number(x) <= 255);
}

/**
 * Refuse a bearer token that is short or cannot travel in an HTTP header as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkToken } from "./access.ts";
 * checkToken("0123456789abcdef0123", "HTTP");
 * assert.throws(() => checkToken("short", "HTTP"), /at least/);
 * ```
 */
export function checkToken(token: string, surface: string): void {
  if (encoder.encode(token).length < MIN_TOKEN_BYTES) {
    throw new UsageError(
      `the ${surface} token must be at least ${MIN_TOKEN_BYTES} bytes (use a random string, e.g. openssl rand -hex 32)`,
    );
  }
  if (!/^[!-~]+$/.test(token)) {
    throw new UsageError(
      `the ${surface} token must be printable ASCII without spaces (it is sent in an HTTP header)`,
    );
  }
}

/**
 * Compare a presented token with the expected one in time that depends only on the expected
 * token's length (never returns early on the first differing byte).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenMatches } from "./access.ts";
 * assert.ok(tokenMatches("s3cret-token-0123456789", "s3cret-token-0123456789"));
 * assert.ok(!tokenMatches("s3cret-token-0123456789", "s3cret-token-0123456780"));
 * ```
 */
export function tokenMatches(expected: string | Uint8Array, presented: string): boolean {
  const want = typeof expected === "string" ? encoder.encode(expected) : expected;
  const got = encoder.encode(presented);
  let diff = got.length ^ want.length;
  for (let i = 0; i < want.length; i++) diff |= want[i] ^ (got[i] ?? 0);
  return diff === 0;
}
