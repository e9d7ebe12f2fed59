/**
 * MCP resources: stored proof records as `empiric://proofs/<proof_id>` (the stored file's exact
 * text) and scenarios as `empiric://scenarios/<name>` (the normalized scenario of
 * `get_scenario_claim`), both `application/json`, so an agent can read them without a tool call.
 *
 * @module
 */
import {
  type McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { asEmpiricError } from "../errors/errors.ts";
import { getScenarioClaim, listScenarios } from "../ops/scenarios.ts";
import type { McpContext } from "./context.ts";

/** URI of a stored proof record. */
export function proofUri(proofId: string): string {
  return `empiric://proofs/${proofId}`;
}

/** URI of a scenario. */
export function scenarioUri(name: string): string {
  return `empiric://scenarios/${encodeURIComponent(name)}`;
}

/** How many proof records `resources/list` names (newest first); `read_proof_index` pages through all. */
export const PROOF_RESOURCE_LIST_LIMIT = 1000;

const JSON_TYPE = "application/json";

function variable(v: string | string[] | undefined): string {
  return decodeURIComponent(Array.isArray(v) ? v.join("/") : v ?? "");
}

/** Register the proof and scenario resources on one server instance. */
export function registerResources(server: McpServer, ctx: McpContext): void {
  server.registerResource(
    "proof",
    new ResourceTemplate("empiric://proofs/{proof_id}", {
      list: async () => {
        const store = await ctx.store();
        return {
          resources: store.list({ limit: PROOF_RESOURCE_LIST_LIMIT }).map((e) => ({
            uri: proofUri(e.proof_id),
            name: e.proof_id,
            title: `${e.outcome} ${e.scenario} on ${e.substrate}`,
            description:
              `${e.metric} = ${e.observed_value}; created ${e.created_at}; stored at ${e.path}`,
            mimeType: JSON_TYPE,
          })),
        };
      },
    }),
    {
      title: "Proof record",
      description:
        "A signed Empirical Proof Record from the server's store, exactly as stored (pass the text to verify_proof to check it)",
      mimeType: JSON_TYPE,
    },
    async (uri, vars) => {
      const id = variable(vars.proof_id);
      const text = await (await ctx.store()).getText(id);
      if (text === undefined) {
        throw new ResourceNotFoundError(
          uri.href,
          `not_found: no proof record ${JSON.stringify(id)} in ${ctx.storeDir}`,
        );
      }
      return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text }] };
    },
  );

  server.registerResource(
    "scenario",
    new ResourceTemplate("empiric://scenarios/{name}", {
      list: async () => {
        const { scenarios } = await listScenarios(ctx.env, ctx.scenarioDir, ctx.exposure);
        return {
          resources: scenarios.map((s) => ({
            uri: scenarioUri(s.name),
            name: s.name,
            title: s.title,
            description: s.statement,
            mimeType: JSON_TYPE,
          })),
        };
      },
    }),
    {
      title: "Scenario",
      description:
        "A scenario's normalized claim, datasets, probe, metrics, analysis plan and config_hash (as get_scenario_claim returns it)",
      mimeType: JSON_TYPE,
    },
    async (uri, vars) => {
      const name = variable(vars.name);
      let claim;
      try {
        claim = await getScenarioClaim(ctx.env, name, ctx.scenarioDir, ctx.exposure);
      } catch (e) {
        const err = asEmpiricError(e);
        if (
          err.code === "not_found" || /^no (scenario named|such scenario file)/.test(err.message)
        ) {
          throw new ResourceNotFoundError(uri.href, `${err.code}: ${err.message}`);
        }
        throw new Error(`${err.code}: ${err.message}`, { cause: e });
      }
      return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(claim) }] };
    },
  );
}
