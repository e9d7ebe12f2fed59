/**
 * A PostgreSQL store location (`postgres://user@host:port/db?sslmode=verify-full&…`) read the
 * way libpq reads a connection URI, so that the URL a team already uses for `psql` works here:
 * the `sslmode` levels (disable, allow, prefer, require, verify-ca, verify-full), the
 * certificate files, and the `PG*` environment variables as fallbacks. It becomes the options
 * of the `postgres` client; the password never appears in the displayed location.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";

/** TLS options handed to the client (Node's `tls.connect` options). */
export interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  checkServerIdentity?: () => undefined;
}

/** Connection settings of a PostgreSQL store. */
export interface PgConfig {
  /** The location as shown to people: no password, no query. */
  display: string;
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string;
  /** Unix socket path, when `host` names a directory. */
  socketPath?: string;
  /** `false` (no TLS), `prefer` (TLS when the server offers it, unverified), or TLS options. */
  ssl: false | "prefer" | TlsOptions;
  sslmode: SslMode;
  /** Seconds to wait for a connection. */
  connectTimeout: number;
  /** Connections in the pool. */
  poolMax: number;
  applicationName: string;
}

/** libpq's `sslmode` levels. */
export const SSL_MODES = [
  "disable",
  "allow",
  "prefer",
  "require",
  "verify-ca",
  "verify-full",
] as const;

/** One of {@link SSL_MODES}. */
export type SslMode = typeof SSL_MODES[number];

/** URL query parameters understood (libpq's names, plus `pool_max`). */
export const PG_PARAMETERS = [
  "sslmode",
  "sslrootcert",
  "sslcert",
  "sslkey",
  "connect_timeout",
  "application_name",
  "host",
  "port",
  "user",
  "password",
  "dbname",
  "pool_max",
] as const;

/** Default connections per process. */
export const DEFAULT_POOL_MAX = 10;

/** Whether a store location names a PostgreSQL database rather than a directory. */
export function isDatabaseLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** What reading a configuration needs from its caller. */
export interface PgConfigEnvironment {
  env(name: string): string | undefined;
  /** A text file's content, or undefined when it does not exist. */
  readText(path: string): Promise<string | undefined>;
}

/**
 * Read a `postgres://` or `postgresql://` URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePgLocation } from "./pg_config.ts";
 * const c = await parsePgLocation(
 *   "postgresql://ci:s3cret@db.example:6543/registry?sslmode=require",
 *   { env: () => undefined, readText: () => Promise.resolve(undefined) },
 * );
 * assert.equal(c.display, "postgresql://ci@db.example:6543/registry");
 * assert.equal(c.password, "s3cret");
 * assert.deepEqual(c.ssl, { rejectUnauthorized: false });
 * ```
 */
export async function parsePgLocation(
  location: string,
  host: PgConfigEnvironment,
): Promise<PgConfig> {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new UsageError(`--store ${redact(location)} is not a valid postgres:// URL`);
  }
  const q = new Map<string, string>();
  for (const [k, v] of url.searchParams) {
    if (!(PG_PARAMETERS as readonly string[]).includes(k)) {
      throw new UsageError(
        `unknown connection parameter ${k} in --store ${redact(location)} (known: ${
          PG_PARAMETERS.join(", ")
        })`,
      );
    }
    q.set(k, v);
  }
  const env = (name: string) => host.env(name) || undefined;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new UsageError(`--store ${redact(location)}: bad percent-encoding`);
    }
  };
  const hostParam = q.get("host");
  const socketDir = hostParam?.startsWith("/") ? hostParam : undefined;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1") ||
    (socketDir ? "localhost" : hostParam) || env("PGHOST") || "localhost";
  const portText = url.port || q.get("port") || env("PGPORT") || "5432";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new UsageError(`--store ${redact(location)}: port must be 1-65535, got ${portText}`);
  }
  const user = (url.username ? decode(url.username) : undefined) ?? q.get("user") ??
    env("PGUSER") ?? env("USER") ?? "postgres";
  const password = (url.password ? decode(url.password) : undefined) ?? q.get("password") ??
    env("PGPASSWORD");
  const database = decode(url.pathname.replace(/^\//, "")) || q.get("dbname") ||
    env("PGDATABASE") || user;
  const mode = (q.get("sslmode") ?? env("PGSSLMODE") ?? "prefer") as SslMode;
  if (!SSL_MODES.includes(mode)) {
    throw new UsageError(
      `sslmode must be one of ${SSL_MODES.join(", ")}, got ${JSON.stringify(mode)}`,
    );
  }
  const rootcert = q.get("sslrootcert") ?? env("PGSSLROOTCERT");
  const certFile = q.get("sslcert") ?? env("PGSSLCERT");
  const keyFile = q.get("sslkey") ?? env("PGSSLKEY");
  const read = async (what: string, path: string) => {
    let text: string | undefined;
    try {
      text = await host.readText(path);
    } catch (e) {
      throw new UsageError(`cannot read the ${what} ${path}: ${(e as Error).message}`);
    }
    if (text === undefined) throw new UsageError(`the ${what} ${path} does not exist`);
    return text;
  };
  const client = {
    ...(certFile ? { cert: await read("client certificate (sslcert)", certFile) } : {}),
    ...(keyFile ? { key: await read("client key (sslkey)", keyFile) } : {}),
  };
  const ca = rootcert && rootcert !== "system"
    ? { ca: await read("root certificate (sslrootcert)", rootcert) }
    : {};
  let ssl: PgConfig["ssl"];
  // libpq: `require` with a root certificate verifies the chain like verify-ca;
  // `sslrootcert=system` means verify-full against the system's roots.
  const effective: SslMode = rootcert === "system"
    ? "verify-full"
    : mode === "require" && rootcert
    ? "verify-ca"
    : mode;
  if (effective === "disable") ssl = false;
  else if (effective === "allow" || effective === "prefer") {
    ssl = certFile || keyFile ? { ...client, rejectUnauthorized: false } : "prefer";
  } else if (effective === "require") ssl = { ...client, rejectUnauthorized: false };
  else if (effective === "verify-ca") {
    ssl = { ...ca, ...client, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  } else ssl = { ...ca, ...client, rejectUnauthorized: true };
  const timeoutText = q.get("connect_timeout") ?? env("PGCONNECT_TIMEOUT") ?? "10";
  const connectTimeout = Number(timeoutText);
  if (!/^\d+$/.test(timeoutText) || connectTimeout < 1) {
    throw new UsageError(`connect_timeout takes whole seconds (>= 1), got ${timeoutText}`);
  }
  const poolText = q.get("pool_max") ?? String(DEFAULT_POOL_MAX);
  const poolMax = Number(poolText);
  if (!/^\d+$/.test(poolText) || poolMax < 1 || poolMax > 1000) {
    throw new UsageError(`pool_max takes a whole number from 1 to 1000, got ${poolText}`);
  }
  const shownHost = socketDir ?? (hostname.includes(":") ? `[${hostname}]` : hostname);
  return {
    display: socketDir
      ? `postgresql://${encodeURIComponent(user)}@/${
        encodeURIComponent(database)
      }?host=${socketDir}`
      : `postgresql://${encodeURIComponent(user)}@${shownHost}:${port}/${
        encodeURIComponent(database)
      }`,
    host: hostname,
    port,
    database,
    user,
    password,
    socketPath: socketDir ? `${socketDir}/.s.PGSQL.${port}` : undefined,
    ssl,
    sslmode: effective,
    connectTimeout,
    poolMax,
    applicationName: q.get("application_name") ?? env("PGAPPNAME") ?? "empiric",
  };
}

/** A location with any password replaced by `***` (for messages). */
export function redact(location: string): string {
  return location.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, "$1:***@").replace(
    /([?&]password=)[^&]*/i,
    "$1***",
  );
}
