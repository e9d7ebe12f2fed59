/**
 * MCP prompts: `draft_claim` ("draft a falsifiable claim for this system") and `explain_proof`
 * ("explain this proof"), with completions of their arguments (substrates this server lets its
 * clients name, stored proof ids). Their data comes through the operations layer, under the
 * same rules as the tools.
 *
 * @module
 */
import { completable, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  getProofOp,
  invoke,
  listScenariosOp,
  proofUri,
  readProofIndexOp,
  substrateSuggestions,
} from "../ops/mod.ts";
import type { McpContext } from "./context.ts";

const SCENARIO_GUIDE = [
  "A scenario file (YAML) has:",
  "- name, title, default_substrate (optional);",
  "- claim: statement (falsifiable, one sentence), operationalization (how it is measured),",
  "  threshold {metric: <pillar name>, comparator: one of < <= > >=, value, units}, h0, h1;",
  "- datasets: [{name, path (JSON Lines, one item per line) or url, kind: corpus | reference}];",
  "- probe: {send: <item field, or empty for the whole item>, timeout_ms, retries, concurrency,",
  "  warmup_items};",
  "- metrics: {<name>: {kind: latency_ms | success | exact_match | abs_error | reported, output,",
  "  reference}};",
  "- analysis: {pillars: [{name, metric, statistic: mean | median | quantile (with p) |",
  "  proportion, interval}], confidence, resamples, seed, min_n, decision: interval | point,",
  "  max_failure_rate}.",
  "The threshold, the analysis plan and the datasets are fixed before the run (their hashes are",
  "recorded as pre-registration); choose them so that the claim can fail.",
].join("\n");

/** Register the prompts on one server instance. */
export function registerPrompts(server: McpServer, ctx: McpContext): void {
  server.registerPrompt("draft_claim", {
    title: "Draft a falsifiable claim for this system",
    description:
      "Draft an empiric scenario: a falsifiable claim about a system, how it is measured, the " +
      "pre-registered threshold and analysis plan, ready to run with run_scenario.",
    argsSchema: z.object({
      system: z.string().describe("The system under test: what it does, how it is called"),
      concern: z.string().optional().describe(
        "What you want to know about it (latency, accuracy, error rate, ...)",
      ),
      substrate: completable(
        z.string().describe("How empiric reaches it (a substrate specification)"),
        (value) => substrateSuggestions(ctx.host, value ?? ""),
      ).optional(),
    }),
  }, async ({ system, concern, substrate }) => {
    const { scenarios } = await invoke(listScenariosOp, {}, ctx.host);
    const examples = scenarios.slice(0, 5).map((s) =>
      `- ${s.name}: ${s.statement} (${s.threshold.metric} ${s.threshold.comparator} ${s.threshold.value} ${s.threshold.units})`
    ).join("\n");
    const text = [
      `Draft a falsifiable claim about this system, as an empiric scenario:\n\n${system}\n`,
      concern ? `What matters: ${concern}.\n` : "",
      substrate
        ? `empiric reaches it as the substrate ${substrate}.\n`
        : `Substrates this server accepts: ${substrateSuggestions(ctx.host).join(", ")}.\n`,
      SCENARIO_GUIDE,
      `\nScenarios this server already knows (read one with get_scenario_claim for a complete example):\n${examples}`,
      "\nWrite the claim five-tuple first (statement, operationalization, threshold, H0, H1), " +
      "then the scenario file. Say what result would refute the claim.",
    ].join("\n");
    return { messages: [{ role: "user", content: { type: "text", text } }] };
  });

  server.registerPrompt("explain_proof", {
    title: "Explain this proof",
    description:
      "Explain a stored proof record to someone who did not run it: the claim, the pre-registered " +
      "plan, the evidence and its intervals against the threshold, the verdict, and whether the " +
      "record verifies.",
    argsSchema: z.object({
      proof_id: completable(
        z.string().describe("The record's proof_id (see read_proof_index)"),
        async (value) => {
          const page = await invoke(readProofIndexOp, { limit: 1000 }, ctx.host).catch(() =>
            undefined
          );
          return (page?.entries ?? []).map((e) => e.proof_id).filter((id) =>
            id.startsWith(value ?? "")
          ).slice(0, 100);
        },
      ),
    }),
  }, async ({ proof_id }) => {
    const { record_json } = await invoke(getProofOp, { proof_id }, ctx.host);
    const text =
      "Explain the proof record attached below to a reader who did not run it. Cover: the claim " +
      "in plain words and what would have refuted it; the pre-registration (config_hash, " +
      "data_hash, analysis plan) and why it matters; the datasets; each evidence entry with its " +
      "interval, the method and library that computed it, and where the interval lies against " +
      "the threshold; the verdict and its reasoning; how to reproduce it; and whether the record " +
      "verifies (call verify_proof with its text and report the result, including whether the " +
      "demo key signed it). Do not claim more than the evidence shows.";
    return {
      messages: [
        { role: "user", content: { type: "text", text } },
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: proofUri(proof_id), mimeType: "application/json", text: record_json },
          },
        },
      ],
    };
  });
}
