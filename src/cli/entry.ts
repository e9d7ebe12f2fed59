/**
 * What every entry point (`cli.ts`, `server.ts`, `mcp.ts`) does: switch on OpenTelemetry export
 * when it is configured, run the CLI, flush telemetry, and return the exit code.
 *
 * @module
 */
import { main } from "./main.ts";
import { denoHost } from "./deno_host.ts";
import { initTelemetryFromEnv } from "../telemetry/otel.ts";

/** Run `empiric <args>` with telemetry set up from the environment; returns the exit code. */
export async function runEntry(args: string[]): Promise<number> {
  const host = denoHost();
  // OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/telemetry.md).
  // A failing exporter is reported once on standard error (standard output may carry JSON-RPC).
  const telemetry = await initTelemetryFromEnv(undefined, {
    onExportFailure: (f) => host.stderr(`empiric: warning: ${f.message}\n`),
  }).catch((e) => {
    host.stderr(`empiric: warning: OpenTelemetry export is off: ${(e as Error).message}\n`);
    return undefined;
  });
  const code = await main(args, host);
  await telemetry?.shutdown();
  return code;
}
