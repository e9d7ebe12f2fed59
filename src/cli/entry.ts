/**
 * What every entry point (`cli.ts`, `server.ts`, `mcp.ts`) does: switch on OpenTelemetry export
 * when it is configured, run the CLI, flush telemetry, and return the exit code. `--version`
 * answers at once, and the telemetry stack loads only when an `OTEL_*` endpoint is set.
 *
 * @module
 */
import { EMPIRIC_VERSION } from "../version.ts";
import { loadModule } from "../lazy/load.ts";

/** Whether the environment asks for OpenTelemetry export (docs/telemetry.md). */
function telemetryWanted(): boolean {
  for (
    const name of [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
  ) {
    if (Deno.env.get(name)) return true;
  }
  return false;
}

/** Run `empiric <args>` with telemetry set up from the environment; returns the exit code. */
export async function runEntry(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    // The command CI steps run most: nothing else needs to load for it.
    await Deno.stdout.write(new TextEncoder().encode(`empiric ${EMPIRIC_VERSION}\n`));
    return 0;
  }
  const { denoHost } = await loadModule<typeof import("./deno_host.ts")>(
    "./deno_host.ts",
    import.meta.url,
  );
  const host = denoHost();
  // OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/telemetry.md).
  // A failing exporter is reported once on standard error (standard output may carry JSON-RPC).
  const telemetry = telemetryWanted()
    ? await loadModule<typeof import("../telemetry/otel.ts")>(
      "../telemetry/otel.ts",
      import.meta.url,
    ).then((m) =>
      m.initTelemetryFromEnv(undefined, {
        onExportFailure: (f) => host.stderr(`empiric: warning: ${f.message}\n`),
      })
    ).catch((e) => {
      host.stderr(`empiric: warning: OpenTelemetry export is off: ${(e as Error).message}\n`);
      return undefined;
    })
    : undefined;
  const { main } = await loadModule<typeof import("./main.ts")>("./main.ts", import.meta.url);
  const code = await main(args, host);
  await telemetry?.shutdown();
  return code;
}
