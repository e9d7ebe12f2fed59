/**
 * The MCP tools, generated from the operation registry: every operation with an MCP tool
 * binding (the SPEC's six: `list_scenarios`, `get_scenario_claim`, `verify_proof`,
 * `canonicalize_value`, `read_proof_index`, `run_scenario`) is registered with its title,
 * description, input and output schemas and annotations from its declaration, and called
 * through `invoke` with this server's caller class. Each returns the operation's result
 * unchanged as `structuredContent` (the same object the HTTP API returns), mirrored as JSON
 * text. Every failure is a tool result with `isError: true` whose text starts with the stable
 * error code.
 *
 * @module
 */
import type { CallToolResult, McpServer, ServerContext } from "@modelcontextprotocol/server";
import { asEmpiricError } from "../errors/errors.ts";
import { invoke, type Operation, OPERATIONS } from "../ops/mod.ts";
import type { RunProgress } from "../ops/constants.ts";
import type { McpContext } from "./context.ts";
import { activeTelemetry } from "../telemetry/active.ts";
import type { McpServerSpanOptions } from "../telemetry/mcp.ts";
import { loadModule } from "../lazy/load.ts";

/** A successful result: the operation's object as structuredContent and as JSON text. */
export function toolResult(value: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A failed call: `isError: true`, text `code: message` (plus every further problem). */
export function toolError(error: unknown, log?: (line: string) => void): CallToolResult {
  const e = asEmpiricError(error);
  const lines = [`${e.code}: ${e.message}`];
  for (const p of e.problems.slice(1, 20)) {
    lines.push(`${p.code}: ${p.message}${p.pointer ? ` (at ${p.pointer})` : ""}`);
  }
  if (e.code === "internal_error") {
    lines.push("this is a bug in empiric; please report it with the call that caused it");
    log?.(`empiric mcp: internal error: ${String((error as Error)?.stack ?? error)}`);
  }
  return { content: [{ type: "text", text: lines.join("\n") }], isError: true };
}

const PHASES: Record<RunProgress["phase"], { from: number; span: number; label: string }> = {
  warmup: { from: 0, span: 5, label: "warm-up" },
  measure: { from: 5, span: 85, label: "measuring" },
  analyze: { from: 90, span: 9, label: "bootstrap" },
  done: { from: 100, span: 0, label: "signed" },
};

/**
 * MCP progress for a run, when the request carries a progressToken: `progress` is the percentage
 * done (0-100, `total` 100; warm-up 0-5, measuring 5-90, analysis 90-99, signed 100), sent only
 * when it grows, with a message such as `measuring: 37/200 items, 0 failed`.
 */
export function progressNotifier(
  progressToken: string | number | undefined,
  notify: (
    params: { progressToken: string | number; progress: number; total: number; message: string },
  ) => void,
): ((p: RunProgress) => void) | undefined {
  if (progressToken === undefined) return undefined;
  let last = -1;
  return (p) => {
    const phase = PHASES[p.phase];
    const frac = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
    const progress = Math.floor(phase.from + phase.span * frac);
    if (progress <= last) return;
    last = progress;
    const unit = p.phase === "analyze" ? "resamples" : "items";
    const message = p.phase === "done"
      ? "record signed"
      : `${phase.label}: ${p.done}/${p.total} ${unit}${
        p.phase === "measure" ? `, ${p.failures} failed` : ""
      }`;
    notify({ progressToken, progress, total: 100, message });
  };
}

/**
 * Log messages of a run (`notifications/message`, at the level the client set with
 * `logging/setLevel`): one `info` line when each phase starts and when the record is signed,
 * and a `warning` when the first item fails.
 */
export function phaseLogger(
  operation: string,
  log: (level: "info" | "warning", data: Record<string, unknown>) => void,
): (p: RunProgress) => void {
  let phase: string | undefined;
  let warned = false;
  return (p) => {
    if (p.phase !== phase) {
      phase = p.phase;
      log("info", {
        operation,
        phase: p.phase,
        message: p.phase === "done"
          ? "record signed"
          : `${PHASES[p.phase].label}: ${p.total} to do`,
      });
    }
    if (p.failures > 0 && !warned) {
      warned = true;
      log("warning", {
        operation,
        phase: p.phase,
        message: "an item failed",
        failures: p.failures,
      });
    }
  };
}

/** Tool annotations implied by an operation's access class. */
export function annotationsOf(op: Operation) {
  const read = op.access !== "write";
  return {
    title: op.title,
    readOnlyHint: read,
    destructiveHint: false,
    idempotentHint: read,
    openWorldHint: op.mcp?.tool?.openWorld ?? false,
  };
}

/** Register every operation that has an MCP tool binding. */
export function registerTools(server: McpServer, ctx: McpContext): void {
  for (const op of OPERATIONS) {
    const binding = op.mcp?.tool;
    if (!binding) continue;
    server.registerTool(op.name, {
      title: op.title,
      description: op.description,
      inputSchema: op.input,
      outputSchema: op.output,
      annotations: annotationsOf(op),
    }, (args: unknown, extra: ServerContext) =>
      traced(ctx, {
        method: "tools/call",
        toolName: op.name,
        meta: extra.mcpReq._meta,
        requestId: extra.mcpReq.id,
        sessionId: extra.sessionId,
      }, async () => {
        try {
          const notify = progressNotifier(extra.mcpReq._meta?.progressToken, (params) => {
            extra.mcpReq.notify({ method: "notifications/progress", params }).catch(() =>
              undefined
            );
          });
          const log = phaseLogger(op.name, (level, data) => {
            extra.mcpReq.log(level, data, `empiric.${op.name}`).catch(() => undefined);
          });
          const onProgress = (p: RunProgress) => {
            notify?.(p);
            log(p);
          };
          const out = await invoke(op, args, ctx.host, { signal: extra.mcpReq.signal, onProgress });
          if (op.access === "write") ctx.proofEvents.added();
          const result = toolResult(out as object);
          const errorText = binding.errorText?.(out);
          if (errorText === undefined) return result;
          return {
            ...result,
            content: [{ type: "text", text: errorText }, ...result.content],
            isError: true,
          };
        } catch (e) {
          return toolError(e, ctx.log);
        }
      }));
  }
}

/**
 * Run an MCP request handler in a SERVER span (continuing a `traceparent` in the request's
 * `_meta`, else the active context such as the HTTP request's span) when telemetry is on.
 */
export function traced<T>(
  ctx: McpContext,
  options: Omit<McpServerSpanOptions, "transport">,
  handler: () => Promise<T>,
): Promise<T> {
  if (!activeTelemetry()) return handler();
  // The span code (and the API and propagators behind it) loads only when telemetry is on.
  return loadModule<typeof import("../telemetry/mcp.ts")>("../telemetry/mcp.ts", import.meta.url)
    .then(({ withMcpServerSpan }) =>
      withMcpServerSpan(
        { ...options, transport: ctx.host.caller === "network" ? "http" : "stdio" },
        handler,
      )
    );
}
