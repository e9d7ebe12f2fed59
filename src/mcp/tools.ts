/**
 * The six MCP tools of the SPEC (`list_scenarios`, `get_scenario_claim`, `verify_proof`,
 * `canonicalize_value`, `read_proof_index`, `run_scenario`). Each calls the shared operation in
 * `src/ops/` and returns its result unchanged as `structuredContent` (the same object the HTTP
 * API returns), mirrored as JSON text. Input and output schemas are the shared ones of
 * `src/api/schemas.ts`. Every failure is a tool result with `isError: true` whose text starts
 * with the stable error code.
 *
 * @module
 */
import type { CallToolResult, McpServer, ServerContext } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  CanonicalizeInput,
  CanonicalizeOutput,
  GetScenarioClaimInput,
  ListScenariosOutput,
  ProofIndexOutput,
  ReadProofIndexInput,
  RunScenarioInput,
  RunScenarioOutput,
  ScenarioClaimOutput,
  VerifyProofInput,
  VerifyProofOutput,
} from "../api/schemas.ts";
import { asEmpiricError } from "../errors/errors.ts";
import { canonicalizeValue } from "../ops/canonicalize_value.ts";
import { readProofIndex } from "../ops/proof_index.ts";
import { runScenarioOp, runScenarioView } from "../ops/run_scenario.ts";
import { getScenarioClaim, listScenarios } from "../ops/scenarios.ts";
import { verifyProofImpl, type VerifyProofResult } from "../ops/verify_proof.ts";
import type { RunProgress } from "../run/execute.ts";
import type { McpContext } from "./context.ts";

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

async function guarded(
  ctx: McpContext,
  f: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await f();
  } catch (e) {
    return toolError(e, ctx.log);
  }
}

/**
 * The result of `verify_proof`: the object of `verifyProofImpl` as structuredContent. A record
 * that does not verify is reported with `isError: true` (first text block: what failed), still
 * carrying the same object.
 */
export function verifyToolResult(r: VerifyProofResult): CallToolResult {
  const result = toolResult(r);
  if (r.verified) return result;
  const first = r.problems[0];
  const more = r.problems.length > 1 ? ` (${r.problems.length} problems; see problems)` : "";
  const head = `not verified: ${r.reason ?? "unknown"}: ${
    first?.message ?? "the record does not verify"
  }${more}`;
  return { ...result, content: [{ type: "text", text: head }, ...result.content], isError: true };
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

const readOnly = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** Register the six tools on one server instance. */
export function registerTools(server: McpServer, ctx: McpContext): void {
  server.registerTool("list_scenarios", {
    title: "List scenarios",
    description:
      "List the scenarios this server can run: the built-in ones and the YAML/JSON scenario files in " +
      `its scenario directory (${ctx.scenarioDir}). Each entry gives the name to pass to ` +
      "get_scenario_claim or run_scenario, a title, the claim's statement and threshold " +
      "(metric, comparator, value, units), the default substrate, and where it came from. " +
      "Scenario files that fail to load are listed under errors with the reason. No arguments.",
    inputSchema: z.strictObject({}),
    outputSchema: ListScenariosOutput,
    annotations: { title: "List scenarios", ...readOnly },
  }, () => guarded(ctx, async () => toolResult(await listScenarios(ctx.env, ctx.scenarioDir))));

  server.registerTool("get_scenario_claim", {
    title: "Read a scenario's claim",
    description:
      "Read one scenario's pre-registered claim before running it: the statement, how it is " +
      "operationalized, the threshold, H0 and H1, the datasets, the probe, the per-item metrics, " +
      "the analysis plan (statistics, intervals, confidence, seed, minimum n, decision rule) and " +
      "config_hash (SHA-256 of the normalized scenario, as recorded in proofs). `name` is a name " +
      "from list_scenarios. The same object is the resource empiric://scenarios/<name>.",
    inputSchema: GetScenarioClaimInput.strict(),
    outputSchema: ScenarioClaimOutput,
    annotations: { title: "Read a scenario's claim", ...readOnly },
  }, ({ name }) =>
    guarded(
      ctx,
      async () => toolResult(await getScenarioClaim(ctx.env, name, ctx.scenarioDir, ctx.exposure)),
    ));

  server.registerTool("verify_proof", {
    title: "Verify a proof record",
    description:
      "Verify an Empirical Proof Record given as its whole JSON text in proof_json (as stored; " +
      "need not be canonical). Checks, in order: the JSON parses (duplicate keys rejected), the " +
      "record's JSON Schema, that identity.proof_id matches the SHA-256 of the body, and the " +
      "HMAC-SHA256 signature under this server's key" +
      (ctx.key.source === "demo" ? " (here: the public demo key)" : "") +
      ". Returns verified (every check passed), valid, the record's proof_id and verdict, each " +
      "check as pass/fail/skipped, reason (the first failure's code) and every problem with its " +
      "stable code and location. A record that does not verify comes back with isError: true and " +
      "the same object. To verify a stored record, read the resource empiric://proofs/<proof_id> " +
      "and pass its text.",
    inputSchema: VerifyProofInput.strict(),
    outputSchema: VerifyProofOutput,
    annotations: { title: "Verify a proof record", ...readOnly },
  }, ({ proof_json }) =>
    guarded(
      ctx,
      async () => verifyToolResult(await verifyProofImpl(proof_json, { key: ctx.key.bytes })),
    ));

  server.registerTool("canonicalize_value", {
    title: "Canonicalize a JSON value",
    description:
      "Return the canonical JSON form of a value (the bytes records are hashed and signed over: " +
      "what Python's json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=True) " +
      "writes), its length in bytes and its SHA-256. Pass the value as JSON text in value_json, " +
      "not as a parsed value, so that ints and floats stay distinct (1 and 1.0 canonicalize " +
      "differently). Duplicate keys, NaN/Infinity, lone surrogates and ints outside the signed " +
      "64-bit range are errors.",
    inputSchema: CanonicalizeInput.strict(),
    outputSchema: CanonicalizeOutput,
    annotations: { title: "Canonicalize a JSON value", ...readOnly },
  }, ({ value_json }) => guarded(ctx, async () => toolResult(await canonicalizeValue(value_json))));

  server.registerTool("read_proof_index", {
    title: "Read the proof index",
    description:
      `List the proof records in this server's store (${ctx.storeDir}), newest first: proof_id, ` +
      "scenario, substrate, outcome (VALIDATED, REFUTED or INCONCLUSIVE), deciding metric, " +
      "observed value, created_at and file path, with the total count. Filter by scenario, " +
      "substrate or outcome; page with limit (1-1000, default 50) and offset. Read a whole record " +
      "as the resource empiric://proofs/<proof_id>.",
    inputSchema: ReadProofIndexInput.strict(),
    outputSchema: ProofIndexOutput,
    annotations: { title: "Read the proof index", ...readOnly },
  }, (args) => guarded(ctx, async () => toolResult(readProofIndex(await ctx.store(), args))));

  server.registerTool("run_scenario", {
    title: "Run a scenario",
    description:
      "Test a scenario's claim: send every corpus item to the substrate (the system under test), " +
      "compute the pre-registered statistics, decide the verdict, then sign the proof record and " +
      `store it in ${ctx.storeDir}. Returns outcome (VALIDATED, REFUTED or INCONCLUSIVE), the ` +
      "observed value, the reasoning, proof_id, the stored path, the number of measured items and " +
      "the failed calls. substrate: builtin:echo, builtin:calculator, builtin:keyword-sentiment, " +
      "cmd:<command line> (a JSON Lines process started on the server's machine" +
      (ctx.allowCmdSubstrates ? "" : "; disabled on this server") +
      ") or an http(s):// URL; default: the scenario's default_substrate. after: earlier " +
      "proof_ids this run follows. Built-in scenarios take seconds; send a progressToken to get " +
      "progress notifications, and cancel the request to stop a run (nothing is stored). Each " +
      "run writes a new record.",
    inputSchema: RunScenarioInput.strict(),
    outputSchema: RunScenarioOutput,
    annotations: {
      title: "Run a scenario",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  }, (args, extra: ServerContext) =>
    guarded(ctx, async () => {
      const token = extra.mcpReq._meta?.progressToken;
      const onProgress = progressNotifier(token, (params) => {
        extra.mcpReq.notify({ method: "notifications/progress", params }).catch(() => undefined);
      });
      const store = await ctx.store();
      const r = await runScenarioOp(
        {
          scenario: args.scenario,
          substrate: args.substrate,
          substrateName: args.substrate_name,
          substrateCommit: args.substrate_commit,
          after: args.after,
        },
        {
          env: ctx.env,
          key: ctx.key.bytes,
          store,
          scenarioDir: ctx.scenarioDir,
          onProgress,
          signal: extra.mcpReq.signal,
          exposure: ctx.exposure,
        },
      );
      return toolResult(runScenarioView(r));
    }));
}
