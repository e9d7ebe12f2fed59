/**
 * `empiric http serve`: the HTTP API (docs/http.md).
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { KeyError, UsageError } from "../../errors/errors.ts";
import { MIN_SIGNING_KEY_BYTES } from "../../ops/keys.ts";
import { AUTH_MODES, type AuthMode } from "../../http/auth.ts";
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from "../../http/input.ts";
import { cliKey } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import {
  keyFileOption,
  keyOption,
  portOption,
  scenarioDirOption,
  storeOption,
} from "../options.ts";

/** Default port of `empiric http serve`. */
export const DEFAULT_HTTP_PORT = 8787;

function wholeNumber(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${text}`);
  }
  return Number(text);
}

/** The bearer token: `--token`, `--token-file`, then `EMPIRIC_HTTP_TOKEN`. */
export async function readToken(
  host: CliHost,
  opts: { token?: string; tokenFile?: string },
): Promise<string | undefined> {
  if (opts.token !== undefined) return opts.token;
  if (opts.tokenFile !== undefined) {
    let bytes: Uint8Array;
    try {
      bytes = await host.readFile(opts.tokenFile);
    } catch (e) {
      throw new UsageError(`cannot read --token-file ${opts.tokenFile}: ${(e as Error).message}`);
    }
    return new TextDecoder().decode(bytes).replace(/\r?\n$/, "");
  }
  const env = host.env("EMPIRIC_HTTP_TOKEN");
  return env === undefined || env === "" ? undefined : env;
}

/** The `http` command group. */
export function httpCommand(host: CliHost): AnyCommand {
  const http = new Command("http").description("The HTTP API (docs/http.md)");
  http.command("serve")
    .description(
      "Serve the HTTP API (docs/http.md): POST /verify, GET /scenarios[/{name}],\n" +
        "POST /canonicalize, GET /proofs[/{proof_id}], POST /proofs, POST /runs,\n" +
        "GET /health, GET /version, GET /openapi.json, GET /docs.\n" +
        "Prints 'listening on http://HOST:PORT' on stderr when ready, then one\n" +
        "JSON log line per request. SIGINT/SIGTERM: in-flight requests finish.",
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .addOption(portOption("port (0: any free port; the bound one is printed)", DEFAULT_HTTP_PORT))
    .option("--workers <n>", "server instances sharing the port (Linux: SO_REUSEPORT)", "1")
    .addOption(
      new Option(
        "--token <token>",
        "bearer token for POST /runs and POST /proofs (and everything with --auth all); also EMPIRIC_HTTP_TOKEN. Required off loopback",
      ).conflicts("tokenFile"),
    )
    .option("--token-file <path>", "read the bearer token from a file")
    .addOption(
      new Option("--auth <scope>", "what needs the token: writes (POST /runs, POST /proofs) or all")
        .choices(
          AUTH_MODES,
        ).default("writes" as AuthMode),
    )
    .option("--read-only", "refuse POST /runs and POST /proofs (403)")
    .option(
      "--allow-cmd-substrates",
      "let clients name cmd: substrates in POST /runs (runs their command line on this machine)",
    )
    .addOption(storeOption())
    .addOption(scenarioDirOption())
    .option("--max-body-bytes <n>", "largest request body accepted", String(DEFAULT_MAX_BODY_BYTES))
    .option(
      "--body-timeout-ms <n>",
      "time a client has to send a request body (408 after it)",
      String(DEFAULT_BODY_TIMEOUT_MS),
    )
    .addOption(keyOption("HMAC key as text (verifies records, signs runs); also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption())
    .action(async (opts) => {
      const serve = await import("../../http/serve.ts");
      if (host.env(serve.INSTANCE_ENV) === "1") {
        // A --workers child: configuration arrives from the supervisor on standard input.
        await serve.runChildInstance({
          stderr: (s) => host.stderr(s),
          onInterrupt: host.onInterrupt?.bind(host),
        });
        return;
      }
      const port = opts.port;
      const workers = wholeNumber("--workers", opts.workers, 1, 64);
      const maxBodyBytes = wholeNumber("--max-body-bytes", opts.maxBodyBytes, 1, 2 ** 31);
      const bodyTimeoutMs = wholeNumber("--body-timeout-ms", opts.bodyTimeoutMs, 1, 2 ** 31 - 1);
      const key = (await cliKey(host, opts, true))!;
      const readOnly = opts.readOnly === true;
      if (!readOnly && key.bytes.length < MIN_SIGNING_KEY_BYTES) {
        throw new KeyError(
          "key_too_short",
          `the key signs the records of POST /runs and must be at least ${MIN_SIGNING_KEY_BYTES} bytes (this one has ${key.bytes.length}); use a longer key, or --read-only to only verify`,
        );
      }
      if (key.source === "demo") {
        host.stderr(
          "empiric: warning: no key given (--key-file or EMPIRIC_SIGN_KEY): using the public demo key; anyone can forge records that verify on this server\n",
        );
      }
      const token = await readToken(host, opts);
      await serve.serveHttp({
        host: opts.host.replace(/^\[(.*)\]$/, "$1"),
        port,
        workers,
        token,
        authMode: opts.auth,
        readOnly,
        allowCmdSubstrates: opts.allowCmdSubstrates === true,
        storeDir: opts.store ?? (host.env("EMPIRIC_STORE") || "proofs"),
        scenarioDir: opts.scenarioDir,
        maxBodyBytes,
        bodyTimeoutMs,
        key: key.bytes,
      }, {
        stderr: (s) => host.stderr(s),
        onInterrupt: host.onInterrupt?.bind(host),
      });
    });
  return http;
}
