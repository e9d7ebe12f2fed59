/**
 * `push_proofs` (local: `empiric push RECORD… --to URL`): send record files, with the bundle
 * parts found beside them, to a server's `POST /proofs`, which verifies and stores them.
 *
 * @module
 */
import { z } from "zod";
import { ERROR_TABLE, type ErrorCode } from "../errors/codes.ts";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { defineOperation } from "./operation.ts";
import { COMPONENTS } from "./schemas.ts";

/** `push_proofs` input. */
export const PushProofsInput = z.strictObject({
  files: z.array(z.string().min(1)).min(1).describe("Record files"),
  to: z.string().describe("The server's base URL (http:// or https://)"),
  token: z.string().optional().describe("Bearer token of the server"),
  parts: z.boolean().optional().describe(
    "Also send <record>.observations.jsonl and <record>.scenario.json when present (default true)",
  ),
});

/** One pushed file. */
const Pushed = z.object({
  file: z.string(),
  proof_id: z.string().nullable(),
  status: z.number().int().nullable().describe("HTTP status, or null when no answer came"),
  created: z.boolean().nullable().describe("true: stored now; false: already there; null: refused"),
  location: z.string().nullable().describe("URL of the stored record"),
  parts: z.array(z.string()).describe("Bundle parts sent"),
  code: z.string().nullable().describe("Error code when refused"),
  message: z.string().nullable(),
});

/** `push_proofs` output. */
export const PushProofsOutput = z.object({
  to: z.string(),
  results: z.array(Pushed),
}).register(COMPONENTS, { id: "PushProofsOutput" });

/** The result of `push_proofs`. */
export type PushProofsResult = z.infer<typeof PushProofsOutput>;

/** The bundle part files beside a record file (`x.json` → `x.observations.jsonl`, …). */
export function partFilesOf(
  file: string,
): { observations: string; scenario: string; baseline: string } {
  const stem = file.replace(/\.json$/i, "");
  return {
    observations: `${stem}.observations.jsonl`,
    scenario: `${stem}.scenario.json`,
    baseline: `${stem}.baseline.observations.jsonl`,
  };
}

const PUSH_TIMEOUT_MS = 120_000;

/** The `push_proofs` operation. */
export const pushProofsOp = defineOperation({
  name: "push_proofs",
  title: "Push record files to a server",
  description:
    "Send each record file (with <record>.observations.jsonl, <record>.scenario.json and a comparative record's <record>.baseline.observations.jsonl when they are beside it) to the server's POST /proofs, which verifies it under its key and stores it. Reports, per file, whether it was stored now, already there, or refused and why.",
  access: "read",
  exposure: [],
  input: PushProofsInput,
  output: PushProofsOutput,
  run: async (input, ctx) => {
    if (ctx.caller !== "local") {
      throw new EmpiricError("forbidden", "push_proofs is for local callers only");
    }
    let base: URL;
    try {
      base = new URL(input.to.endsWith("/") ? input.to : input.to + "/");
    } catch {
      throw new UsageError(`--to must be an http:// or https:// URL, got ${input.to}`);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new UsageError(`--to must be an http:// or https:// URL, got ${input.to}`);
    }
    const endpoint = new URL("proofs", base);
    const results: PushProofsResult["results"] = [];
    for (const file of input.files) {
      ctx.signal?.throwIfAborted();
      const text = await ctx.env.readText(file);
      if (text === undefined) throw new EmpiricError("not_found", `no such file: ${file}`);
      const body: Record<string, string> = { proof_json: text };
      const sent: string[] = [];
      if (input.parts !== false) {
        for (const [name, path] of Object.entries(partFilesOf(file))) {
          const part = await ctx.env.readText(path);
          if (part !== undefined) {
            body[name] = part;
            sent.push(name);
          }
        }
      }
      const idMatch = /"proof_id"\s*:\s*"([0-9a-f]{64})"/.exec(text);
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(input.token ? { authorization: `Bearer ${input.token}` } : {}),
          },
          body: JSON.stringify(body),
          signal: ctx.signal
            ? AbortSignal.any([ctx.signal, AbortSignal.timeout(PUSH_TIMEOUT_MS)])
            : AbortSignal.timeout(PUSH_TIMEOUT_MS),
        });
      } catch (e) {
        ctx.signal?.throwIfAborted();
        throw new EmpiricError(
          "io_error",
          `cannot reach ${endpoint.href}: ${(e as Error).message}`,
          { cause: e },
        );
      }
      const answer = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(answer);
      } catch {
        // not JSON: reported below with the status
      }
      if (res.status === 200 || res.status === 201) {
        const location = res.headers.get("location");
        results.push({
          file,
          proof_id: typeof json.proof_id === "string" ? json.proof_id : idMatch?.[1] ?? null,
          status: res.status,
          created: json.created === true,
          location: location ? new URL(location, base).href : null,
          parts: sent,
          code: null,
          message: null,
        });
      } else {
        const code = typeof json.code === "string" && json.code in ERROR_TABLE
          ? json.code as ErrorCode
          : "io_error";
        results.push({
          file,
          proof_id: idMatch?.[1] ?? null,
          status: res.status,
          created: null,
          location: null,
          parts: sent,
          code,
          message: typeof json.detail === "string"
            ? json.detail
            : `the server answered ${res.status} ${res.statusText}`,
        });
      }
    }
    return { to: endpoint.href, results };
  },
});
