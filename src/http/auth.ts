/**
 * Who may call what: bearer-token checks (constant time), the loopback rule, and the Host
 * check that keeps web pages from reaching an unauthenticated loopback server through DNS
 * rebinding.
 *
 * @module
 */
import { checkToken, isLoopbackHost, MIN_TOKEN_BYTES, tokenMatches } from "../net/access.ts";

export { isLoopbackHost, MIN_TOKEN_BYTES, tokenMatches };
import { UsageError } from "../errors/errors.ts";
import { HttpProblem } from "./problem.ts";

/** How much of the API needs the token: only the writing endpoint, or every data endpoint. */
export const AUTH_MODES = ["writes", "all"] as const;

/** One of {@link AUTH_MODES}. */
export type AuthMode = typeof AUTH_MODES[number];

/** Access class of a route. */
export type Access = "public" | "read" | "write";

/** Authentication settings of a server. */
export interface AuthConfig {
  /** The address the server listens on (decides whether a token is mandatory). */
  listenHost: string;
  /** Bearer token; required unless `listenHost` is loopback. */
  token?: string;
  /** `writes` (default): only `POST /runs` needs the token; `all`: every data endpoint. */
  mode?: AuthMode;
  /** Refuse every write (`POST /runs` answers 403). */
  readOnly?: boolean;
}

const encoder = new TextEncoder();

/** Check a server's auth settings; throws `usage_error` for a configuration that is unsafe. */
export function validateAuthConfig(config: AuthConfig): void {
  const loopback = isLoopbackHost(config.listenHost);
  if (config.token !== undefined) {
    checkToken(config.token, "HTTP");
  } else if (!loopback) {
    throw new UsageError(
      `refusing to listen on ${config.listenHost} without a token: anyone who can reach it could run scenarios. Give --token or EMPIRIC_HTTP_TOKEN, or listen on 127.0.0.1`,
    );
  } else if (config.mode === "all") {
    throw new UsageError("--auth all needs a token (--token or EMPIRIC_HTTP_TOKEN)");
  }
}

/** The request-time side of {@link AuthConfig}. */
export class Authorizer {
  readonly #expected?: Uint8Array;
  readonly #mode: AuthMode;
  readonly #readOnly: boolean;
  readonly #hostCheck: boolean;
  readonly #listenHost: string;
  /** Host header values already accepted (a client sends the same one on every request). */
  readonly #acceptedHosts = new Set<string>();

  constructor(config: AuthConfig) {
    validateAuthConfig(config);
    this.#expected = config.token === undefined ? undefined : encoder.encode(config.token);
    this.#mode = config.mode ?? "writes";
    this.#readOnly = config.readOnly ?? false;
    this.#listenHost = config.listenHost.toLowerCase().replace(/^\[(.*)\]$/, "$1");
    // A loopback server answers only requests addressed to a loopback name, with or without a
    // token: a token guards writes, while the Host check keeps a DNS-rebound page from reading.
    this.#hostCheck = isLoopbackHost(config.listenHost);
  }

  /** Whether a route of this access class needs the bearer token under this configuration. */
  requiresToken(access: Access): boolean {
    if (this.#expected === undefined) return false;
    if (access === "write") return true;
    return access === "read" && this.#mode === "all";
  }

  /** Whether writes are refused outright. */
  get readOnly(): boolean {
    return this.#readOnly;
  }

  /** Whether requests' Host is checked (whenever the server listens on loopback). */
  get checksHost(): boolean {
    return this.#hostCheck;
  }

  /** Throw 403 when the request's host names something other than this loopback server. */
  checkHost(hostHeader: string | undefined): void {
    if (!this.#hostCheck) return;
    const header = hostHeader ?? "";
    if (this.#acceptedHosts.has(header)) return;
    const name = hostName(header);
    if (name !== undefined && (isLoopbackHost(name) || name === this.#listenHost)) {
      if (this.#acceptedHosts.size < MAX_ACCEPTED_HOSTS) this.#acceptedHosts.add(header);
      return;
    }
    throw new HttpProblem(
      "forbidden",
      `this server listens on loopback and answers only requests addressed to localhost, 127.0.0.1 or [::1] (host: ${
        JSON.stringify(hostHeader ?? "")
      }); listen on another address to serve other names`,
    );
  }

  /** Throw 401/403 unless the request may use a route of this access class. */
  authorize(access: Access, authorization: string | undefined): void {
    if (access === "write" && this.#readOnly) {
      throw new HttpProblem("forbidden", "this server is read-only (--read-only): runs are off");
    }
    if (!this.requiresToken(access)) return;
    const m = authorization === undefined ? null : /^Bearer +(\S+) *$/i.exec(authorization);
    if (m === null) {
      throw new HttpProblem(
        "unauthorized",
        authorization === undefined
          ? "this endpoint needs Authorization: Bearer <token>"
          : "the Authorization header must be: Bearer <token>",
        { headers: { "www-authenticate": 'Bearer realm="empiric"' } },
      );
    }
    if (!tokenMatches(this.#expected!, m[1])) {
      throw new HttpProblem("unauthorized", "the bearer token is not valid", {
        headers: {
          "www-authenticate": 'Bearer realm="empiric", error="invalid_token"',
        },
      });
    }
  }
}

/** At most this many accepted Host values are remembered (they are few: names of loopback). */
const MAX_ACCEPTED_HOSTS = 64;

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`), lower case. */
function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(h);
  if (v6) return v6[1];
  const m = /^([a-z0-9.-]+)(?::\d+)?$/.exec(h);
  return m ? m[1] : undefined;
}
