/**
 * MCP resources, generated from the operation registry: every operation with an MCP resource
 * binding becomes a resource (stored proof records as `empiric://proofs/<proof_id>`, the stored
 * file's exact text; the newest entries of the index as `empiric://proofs`; scenarios as
 * `empiric://scenarios/<name>`, the object of `get_scenario_claim`; a stored record's Markdown
 * report as `empiric://proofs/<proof_id>/report`), `application/json` unless the binding says,
 * read, listed and completed through `invoke` with this server's caller class, so an agent can
 * read them without a tool call and under the same rules as the tools.
 *
 * @module
 */
import {
  type McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { asEmpiricError } from "../errors/errors.ts";
import { invoke, type Operation, operation, OPERATIONS } from "../ops/mod.ts";
import type { McpContext } from "./context.ts";
import { traced } from "./tools.ts";

export { proofUri, scenarioUri } from "../ops/mod.ts";

const JSON_TYPE = "application/json";

/** A URI template variable, decoded once; undefined when its encoding is malformed. */
function decodeVariable(v: string | string[] | undefined): string | undefined {
  try {
    return decodeURIComponent(Array.isArray(v) ? v.join("/") : v ?? "");
  } catch {
    return undefined;
  }
}

/** The read callback of one operation's resource. */
function reader(op: Operation, ctx: McpContext) {
  const r = op.mcp!.resource!;
  return async (uri: URL, vars: Record<string, string | string[]>) => {
    const decoded: Record<string, string> = {};
    for (const [k, v] of Object.entries(vars)) {
      const d = decodeVariable(v);
      if (d === undefined) {
        throw new ResourceNotFoundError(uri.href, `not_found: malformed ${k} in ${uri.href}`);
      }
      decoded[k] = d;
    }
    let text: string;
    try {
      text = await traced(
        ctx,
        { method: "resources/read", resourceUri: uri.href },
        async () => r.text(await invoke(op, r.input(decoded), ctx.host)),
      );
    } catch (e) {
      const err = asEmpiricError(e);
      if (err.code === "not_found" || err.code === "usage_error") {
        throw new ResourceNotFoundError(uri.href, `${err.code}: ${err.message}`);
      }
      if (err.code === "internal_error") {
        ctx.log(`empiric mcp: internal error: ${String((e as Error)?.stack ?? e)}`);
      }
      throw new Error(`${err.code}: ${err.message}`, { cause: e });
    }
    return { contents: [{ uri: uri.href, mimeType: r.mimeType ?? JSON_TYPE, text }] };
  };
}

/** Register every operation that has an MCP resource binding. */
export function registerResources(server: McpServer, ctx: McpContext): void {
  for (const op of OPERATIONS) {
    const r = op.mcp?.resource;
    if (!r) continue;
    const read = reader(op, ctx);
    const metadata = {
      title: r.title,
      description: r.description,
      mimeType: r.mimeType ?? JSON_TYPE,
    };
    if (r.fixed) {
      server.registerResource(r.name, r.template, metadata, (uri) => read(uri, {}));
      continue;
    }
    const list = r.list;
    const listOp = list ? operation(list.operation) : undefined;
    const complete: Record<string, (value: string) => Promise<string[]>> = {};
    for (const [variable, c] of Object.entries(r.complete ?? {})) {
      const source = operation(c.operation);
      if (!source) continue;
      complete[variable] = async (value) => {
        const out = await invoke(source, c.input, ctx.host).catch(() => undefined);
        if (out === undefined) return [];
        return c.values(out).filter((v) => v.startsWith(value ?? "")).slice(0, 100);
      };
    }
    server.registerResource(
      r.name,
      new ResourceTemplate(r.template, {
        list: listOp && list
          ? async () => ({
            resources: list.entries(await invoke(listOp, list.input, ctx.host)).map((e) => ({
              ...e,
              mimeType: r.mimeType ?? JSON_TYPE,
            })),
          })
          : undefined,
        complete,
      }),
      metadata,
      read,
    );
  }
}
