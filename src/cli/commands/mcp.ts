/**
 * `empiric mcp serve`: the MCP tool server over stdio (default), SSE or Streamable HTTP.
 *
 * In stdio mode standard output carries JSON-RPC messages only: every diagnostic goes to
 * standard error.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { resolve } from "node:path";
import { DEFAULT_DEMO_KEY } from "../../ops/keys.ts";
import { isDatabaseLocation, shownStoreLocation } from "../../ops/store_location.ts";
import { createMcpContext } from "../../mcp/context.ts";
import { preloadOperations } from "../../ops/mod.ts";
import { activeTelemetry } from "../../telemetry/active.ts";
import { empiricServerFactory } from "../../mcp/server.ts";
import { serveMcpStdio } from "../../mcp/serve.ts";
import { cliKey } from "../context.ts";
import { loadModule } from "../../lazy/load.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import {
  collect,
  keyFileOption,
  keyOption,
  portOption,
  scenarioDirOption,
  storeOption,
} from "../options.ts";

/** Default port of the HTTP transports. */
export const DEFAULT_MCP_PORT = 8765;

const TRANSPORTS = ["stdio", "sse", "streamable-http"] as const;

/** The `mcp` command group. */
export function mcpCommand(host: CliHost): AnyCommand {
  const cmd = new Command("mcp").summary("The MCP tool server for AI agents (docs/mcp.md)")
    .description(
      "Model Context Protocol tool server for agents (see docs/mcp.md)",
    );
  cmd.command("serve")
    .description(
      "Serve empiric's six tools and its proofs and scenarios (as resources) to MCP\n" +
        "clients of revision 2026-07-28 and of the 2025 revisions.\n" +
        "stdio (default): stdout carries the protocol only; logs go to stderr.\n" +
        "HTTP transports bind 127.0.0.1 unless --host says otherwise; beyond loopback\n" +
        "a bearer token (--token or EMPIRIC_MCP_TOKEN) is required.\n" +
        "Agents may start the server in any directory (often /): set EMPIRIC_STORE\n" +
        "(or --store) to an absolute path. See docs/mcp.md.",
    )
    .addOption(
      new Option("--transport <kind>", "stdio, sse (GET /sse) or streamable-http (/mcp)")
        .choices(TRANSPORTS)
        .default("stdio" as const),
    )
    .option("--host <address>", "address the HTTP transports bind", "127.0.0.1")
    .addOption(portOption("port of the HTTP transports (0: any free port)", DEFAULT_MCP_PORT))
    .option("--token <token>", "bearer token HTTP clients must send; also EMPIRIC_MCP_TOKEN")
    .option(
      "--allow-origin <origin>",
      "also accept browser requests from this Origin (repeatable); loopback origins always pass",
      collect,
    )
    .addOption(
      keyOption(
        "HMAC key to verify and sign with (at least 32 bytes to sign); also EMPIRIC_SIGN_KEY",
      ),
    )
    .addOption(keyFileOption())
    .addOption(storeOption())
    .addOption(scenarioDirOption())
    .option(
      "--allow-cmd-substrates",
      "HTTP transports: let run_scenario start cmd: substrates (always allowed over stdio)",
    )
    .action(async (opts) => {
      const log = (line: string) => host.stderr(line + "\n");
      const key = (await cliKey(host, opts, true))!;
      const token = opts.token ?? (host.env("EMPIRIC_MCP_TOKEN") || undefined);
      const storeFrom = opts.store !== undefined
        ? "--store"
        : host.env("EMPIRIC_STORE")
        ? "EMPIRIC_STORE"
        : "default ./proofs";
      const storeLocation = opts.store ?? (host.env("EMPIRIC_STORE") || "proofs");
      const storeDir = isDatabaseLocation(storeLocation) ? storeLocation : resolve(storeLocation);
      const scenarioDir = resolve(opts.scenarioDir);
      const env = await (await import("../../ops/deno_env.ts")).denoOpsEnvironment();
      const http = opts.transport !== "stdio";
      // Over stdio the client is the user's own agent, with the user's rights; over HTTP any
      // client that can connect is a network caller (listed scenario names only, no paths).
      const ctx = createMcpContext({
        env,
        key,
        storeDir,
        scenarioDir,
        caller: http ? "network" : "local",
        allowCmdSubstrates: opts.allowCmdSubstrates === true,
        log,
      });
      const factory = empiricServerFactory(ctx);
      // With telemetry on, nothing may load for the first time inside a request's trace
      // (src/ops/preload.ts); without it, stdio start-up stays lean (bench/startup.ts).
      if (activeTelemetry()) await preloadOperations();

      if (key.source === "demo") {
        log(
          `empiric mcp: warning: no key given (--key, --key-file or EMPIRIC_SIGN_KEY); verifying and signing with the public demo key (${DEFAULT_DEMO_KEY}): anyone can forge such records`,
        );
      }
      log(`empiric mcp: proof store: ${shownStoreLocation(storeDir)} (${storeFrom})`);
      if (storeFrom === "default ./proofs") {
        log(
          "empiric mcp: set EMPIRIC_STORE to an absolute path: agents may start this server in any directory",
        );
      }
      log(`empiric mcp: scenario directory: ${scenarioDir}`);

      let stop: () => Promise<void>;
      let finished: Promise<void>;
      if (!http) {
        const serving = serveMcpStdio(factory, log);
        stop = serving.close;
        finished = serving.finished;
        log("empiric mcp: serving over stdio (MCP 2026-07-28 and 2025-era clients)");
      } else {
        const { serveMcpHttp } = await loadModule<typeof import("../../mcp/serve_http.ts")>(
          "../../mcp/serve_http.ts",
          import.meta.url,
        );
        const serving = serveMcpHttp(factory, {
          transport: opts.transport as "sse" | "streamable-http",
          hostname: opts.host,
          port: opts.port,
          token,
          allowOrigins: opts.allowOrigin,
          log,
        });
        stop = serving.shutdown;
        finished = serving.finished;
        log(
          `empiric mcp: listening on ${serving.url} (${
            opts.transport === "sse" ? "HTTP+SSE" : "Streamable HTTP"
          }; ${token ? "bearer token required" : "no token"}${
            ctx.host.allowClientCmd ? "; cmd: substrates allowed" : ""
          })`,
        );
      }
      const stopOnSignal = host.onInterrupt?.(() => {
        log("empiric mcp: stopping");
        void stop();
      });
      try {
        await finished;
      } finally {
        stopOnSignal?.();
        await ctx.close();
      }
    });
  return cmd;
}
