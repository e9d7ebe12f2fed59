/**
 * One listening instance of the HTTP server (the main thread, or one worker of `--workers`):
 * builds the app from a plain, structured-cloneable {@link ServerConfig} and serves it with
 * `Deno.serve` on the configured address.
 *
 * @module
 */
import { EmpiricError, IoError } from "../errors/errors.ts";
import { denoOpsEnvironment } from "../ops/deno_env.ts";
import { ProofStore } from "../store/store.ts";
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
  const store = await ProofStore.open(config.storeDir);
  let app;
  try {
    app = createApp({
      env: await denoOpsEnvironment(),
      key: config.key,
      store,
      scenarioDir: config.scenarioDir,
      auth: {
        listenHost: config.host,
        token: config.token,
        mode: config.authMode,
        readOnly: config.readOnly,
      },
      allowCmdSubstrates: config.allowCmdSubstrates,
      maxBodyBytes: config.maxBodyBytes,
      bodyTimeoutMs: config.bodyTimeoutMs,
      logger,
      logFields: { worker },
    });
  } catch (e) {
    store.close();
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
    store.close();
    if (e instanceof Deno.errors.AddrInUse) {
      throw new IoError(
        "io_error",
        `cannot listen on ${config.host}:${config.port}: address in use`,
      );
    }
    if (e instanceof Deno.errors.AddrNotAvailable || e instanceof Deno.errors.PermissionDenied) {
      throw new EmpiricError(
        "usage_error",
        `cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`,
      );
    }
    throw e;
  }
  let stopping: Promise<void> | undefined;
  return {
    addr: { hostname: server.addr.hostname, port: server.addr.port },
    logger,
    shutdown() {
      stopping ??= (async () => {
        await server.shutdown();
        store.close();
        logger.flush();
      })();
      return stopping;
    },
  };
}
