/**
 * One listening instance of the HTTP server (the main thread, or one worker of `--workers`):
 * builds the app from a plain, structured-cloneable {@link ServerConfig} and serves it with
 * `Deno.serve` on the configured address.
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
import { createOpHost, preloadOperations } from "../ops/mod.ts";
import { denoOpsEnvironment } from "../ops/deno_env.ts";
import type { AuthMode } from "./auth.ts";
import { createApp } from "./app.ts";
import { type Logger, stderrLogger } from "./log.ts";

/** Everything a server instance needs; plain data, so it can be posted to a worker. */
export interface ServerConfig {
  host: string;
  port: number;
  token?: string;
  authMode: AuthMode;
  readOnly: boolean;
  allowCmdSubstrates: boolean;
  storeDir: string;
  scenarioDir: string;
  maxBodyBytes: number;
  /** Time a client has to send a request body (ms). */
  bodyTimeoutMs: number;
  /** The key's bytes (never logged, never sent). */
  key: Uint8Array<ArrayBuffer>;
  /** Listen with SO_REUSEPORT (several instances on one port; Linux). */
  reusePort: boolean;
}

/** A running instance. */
export interface Instance {
  /** The bound address (the real port when 0 was asked). */
  addr: { hostname: string; port: number };
  logger: Logger;
  /** Stop accepting connections, let in-flight requests finish, close the store. */
  shutdown(): Promise<void>;
}

/** Start one instance; `worker` is its number in log lines (0: the main thread). */
export async function startInstance(config: ServerConfig, worker: number): Promise<Instance> {
  const logger = stderrLogger();
  const host = createOpHost({
    caller: "network",
    env: await denoOpsEnvironment(),
    key: { bytes: config.key, source: "option" },
    store: config.storeDir,
    scenarioDir: config.scenarioDir,
    allowClientCmd: config.allowCmdSubstrates,
    readOnly: config.readOnly,
  });
  // Open the store now: a server whose store is unusable says so at start, not per request.
  await host.store();
  // A server's start-up is not what users wait for; its first request is (src/ops/preload.ts).
  await preloadOperations();
  let app;
  try {
    app = createApp({
      host,
      auth: {
        listenHost: config.host,
        token: config.token,
        mode: config.authMode,
        readOnly: config.readOnly,
      },
      maxBodyBytes: config.maxBodyBytes,
      bodyTimeoutMs: config.bodyTimeoutMs,
      logger,
      logFields: { worker },
    });
  } catch (e) {
    await host.close();
    throw e;
  }
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: config.host,
      port: config.port,
      reusePort: config.reusePort,
      onListen: () => {},
    }, (req, info) => app.fetch(req, info));
  } catch (e) {
    await host.close();
    // An address in use, one this machine does not have, a name that does not resolve, a
    // port that needs privileges: operating conditions, each said plainly.
    const why = e instanceof Deno.errors.AddrInUse
      ? "address in use"
      : e instanceof Deno.errors.PermissionDenied
      ? `permission denied (${(e as Error).message})`
      : (e as Error).message;
    throw new EmpiricError(
      "bind_failed",
      `cannot listen on ${config.host}:${config.port}: ${why}`,
      {
        cause: e,
      },
    );
  }
  let stopping: Promise<void> | undefined;
  return {
    addr: { hostname: server.addr.hostname, port: server.addr.port },
    logger,
    shutdown() {
      stopping ??= (async () => {
        await server.shutdown();
        await host.close();
        logger.flush();
      })();
      return stopping;
    },
  };
}
