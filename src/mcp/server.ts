/**
 * The empiric MCP server: one factory that builds a fresh `McpServer` with the six tools and the
 * two resource templates. The SDK's serving entries call it per stdio connection (either protocol
 * era), per Streamable HTTP request (2026-07-28) or per 2025-era session, and the SSE transport
 * per SSE connection; all instances share one {@link McpContext}.
 *
 * @module
 */
import { McpServer, type McpServerFactory } from "@modelcontextprotocol/server";
import { PROOF_INDEX_URI } from "../ops/mod.ts";
import { registerPrompts } from "./prompts.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import type { McpContext } from "./context.ts";
import { registerResources } from "./resources.ts";
import { registerTools } from "./tools.ts";

/** The server's name and version as MCP reports them. */
export const SERVER_INFO = {
  name: "empiric",
  title: "empiric: signed empirical proofs of claims",
  version: EMPIRIC_VERSION,
} as const;

const INSTRUCTIONS =
  "empiric tests falsifiable claims about systems and keeps each result as a signed proof record. " +
  "Typical use: list_scenarios, get_scenario_claim to read the claim and its pre-registered plan, " +
  "run_scenario to test it (VALIDATED, REFUTED or INCONCLUSIVE), read_proof_index to find " +
  "earlier results, verify_proof to check a record's integrity and signature, " +
  "canonicalize_value for the canonical bytes records are hashed over. Records are also " +
  "resources: empiric://proofs/<proof_id> (the newest ones: empiric://proofs, which you may " +
  "subscribe to); scenarios: empiric://scenarios/<name>. Prompts: draft_claim, explain_proof.";

/**
 * Build one MCP server instance over the shared context: the registry's tools and resources,
 * the prompts, logging (`logging/setLevel`; run progress as log messages), completions, and
 * resource subscriptions (`resources/subscribe`; `notifications/resources/list_changed` and
 * `…/updated` for `empiric://proofs` when proofs are added).
 */
export function createEmpiricMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    capabilities: {
      logging: {},
      completions: {},
      prompts: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
    },
  });
  registerTools(server, ctx);
  registerResources(server, ctx);
  registerPrompts(server, ctx);
  const subscribed = new Set<string>();
  server.server.setRequestHandler("resources/subscribe", (req) => {
    subscribed.add(req.params.uri);
    return Promise.resolve({});
  });
  server.server.setRequestHandler("resources/unsubscribe", (req) => {
    subscribed.delete(req.params.uri);
    return Promise.resolve({});
  });
  const stop = ctx.proofEvents.listen(() => {
    if (!server.isConnected()) return;
    server.sendResourceListChanged();
    if (subscribed.has(PROOF_INDEX_URI)) {
      void server.server.sendResourceUpdated({ uri: PROOF_INDEX_URI }).catch(() => undefined);
    }
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    stop();
    previous?.();
  };
  return server;
}

/** The factory the SDK's serving entries call. */
export function empiricServerFactory(ctx: McpContext): McpServerFactory {
  return () => createEmpiricMcpServer(ctx);
}
