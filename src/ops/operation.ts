/**
 * What an operation is: one declaration of its name, documentation, zod input and output
 * schemas, access class, exposure rules, surface bindings and implementation. The HTTP routes
 * and OpenAPI document, the MCP tools and resources, and the CLI's `--json` output are all
 * generated from these declarations (src/ops/registry.ts lists them), and every surface calls
 * an operation only through {@link invoke}, which applies the rules. No surface re-applies a
 * rule by hand.
 *
 * @module
 */
import type { z } from "zod";
import type { ErrorCode } from "../errors/codes.ts";
import type { OpContext } from "./context.ts";

/**
 * Access class: `public` (health, documentation), `read` (never changes anything) or `write`
 * (stores something). A read-only server refuses `write`; a token may guard `read` and
 * `write` (docs/http.md, Authentication).
 */
export type Access = "public" | "read" | "write";

/**
 * Exposure rules an operation relies on, enforced by {@link invoke} for network callers:
 * - `scenario-listed`: the input member named by `scenarioField` must be a scenario name the
 *   server lists (never a path; nothing outside the scenario directory is opened);
 * - `substrate-checked`: the input member named by `substrateField` must be a well-formed
 *   substrate, and a `cmd:` substrate only where the server allows clients to start processes;
 * - `no-server-paths`: paths in the output are shown relative to the store or scenario
 *   directory, never absolute; members named by `proofRefFields` name a stored proof by its
 *   proof_id only, never a file on the server.
 */
export type ExposureRule = "scenario-listed" | "substrate-checked" | "no-server-paths";

/** How an operation appears in the HTTP API. */
export interface HttpBinding<O> {
  method: "GET" | "POST";
  /** Path with `{member}` placeholders filled from input members (`/scenarios/{name}`). */
  path: string;
  /**
   * On a route several operations share (one method and path), this operation answers the
   * bodies that have this member; the operation without a discriminator answers the others.
   */
  discriminator?: string;
  /** OpenAPI tags. */
  tags: readonly string[];
  /**
   * Status of a successful answer: a number (default 200), or chosen by the output among the
   * statuses it lists, each with its description (for OpenAPI), e.g. 201 when something new
   * was stored and 200 when it was already there.
   */
  status?: number | StatusChoice<O>;
  /** Headers of a successful answer (e.g. `Location`). */
  headers?: (out: O) => Record<string, string>;
  /** Answer with this exact text (application/json) instead of the output's JSON. */
  rawBody?: (out: O) => string;
  /** The media type of a raw body (default `application/json`). */
  rawMediaType?: string;
  /** Schema documented for a raw body (OpenAPI only). */
  rawBodySchema?: z.ZodType;
  /**
   * Content type of a raw body that is not JSON (e.g. `text/html; charset=utf-8`). An HTML
   * answer is a page: it gets the page headers (its own Content-Security-Policy, no referrer, no
   * framing) instead of the API's.
   */
  rawContentType?: (out: O) => string;
  /** Content types a non-JSON raw body can have (documented in OpenAPI as strings). */
  rawContentTypes?: readonly string[];
  /** A returned result the HTTP API reports as a problem (it still carries the output). */
  problem?: (out: O) => ErrorCode | undefined;
  /** Error statuses this operation can answer besides the ones every route has. */
  errors: readonly number[];
  /** Description of the successful response. */
  response: string;
}

/** A successful status chosen by the output (see {@link HttpBinding.status}). */
export interface StatusChoice<O> {
  /** The status of this output (one of `statuses`). */
  select: (out: O) => number;
  /** Every status `select` can give, with its description. */
  statuses: Readonly<Record<number, string>>;
}

/**
 * The status of a successful answer with this output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { successStatus } from "./operation.ts";
 * const b = { status: { select: (o: { created: boolean }) => (o.created ? 201 : 200), statuses: { 200: "there", 201: "new" } } };
 * assert.equal(successStatus(b, { created: true }), 201);
 * assert.equal(successStatus(b, { created: false }), 200);
 * assert.equal(successStatus({}, {}), 200);
 * ```
 */
export function successStatus<O>(binding: { status?: number | StatusChoice<O> }, out: O): number {
  const s = binding.status;
  return s === undefined ? 200 : typeof s === "number" ? s : s.select(out);
}

/** Every successful status of a binding with its description (for OpenAPI). */
export function successStatuses<O>(
  binding: { status?: number | StatusChoice<O>; response: string },
): Record<number, string> {
  const s = binding.status;
  if (s === undefined || typeof s === "number") return { [s ?? 200]: binding.response };
  return { ...s.statuses };
}

/** How an operation appears as an MCP tool. */
export interface McpToolBinding<O> {
  /** A returned result reported with `isError: true`; the text goes first in `content`. */
  errorText?: (out: O) => string | undefined;
  /** Tool annotations beyond those implied by the access class. */
  openWorld?: boolean;
}

/** How an operation appears as an MCP resource template. */
export interface McpResourceBinding<I, O> {
  /** Resource name. */
  name: string;
  title: string;
  description: string;
  /** URI template (`empiric://proofs/{proof_id}`); its variables become input members. */
  template: string;
  /** The template has no variables: one fixed resource, listed in `resources/list`. */
  fixed?: boolean;
  /** Completions of the template's variables: values from another operation's output. */
  complete?: Record<string, {
    operation: string;
    input: Record<string, unknown>;
    values: (out: unknown) => string[];
  }>;
  /** Build the input from the URI's decoded variables. */
  input: (vars: Record<string, string>) => I;
  /** The resource text. */
  text: (out: O) => string;
  /** Its MIME type (default application/json). */
  mimeType?: string;
  /** Listing: another operation's name, its input, and how its output lists resources. */
  list?: {
    operation: string;
    input: Record<string, unknown>;
    entries: (
      out: unknown,
    ) => { uri: string; name: string; title?: string; description?: string }[];
  };
}

/** One operation, declared once. */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** Stable name: the MCP tool name, the OpenAPI operationId. */
  name: string;
  /** Short title. */
  title: string;
  /** What it does, for every surface's documentation (MCP tool description, OpenAPI). */
  description: string;
  access: Access;
  exposure: readonly ExposureRule[];
  /** Input member holding a scenario name (`scenario-listed`). */
  scenarioField?: string;
  /** Input members holding a substrate specification (`substrate-checked`). */
  substrateField?: string | readonly string[];
  /**
   * Input members naming a stored proof (a proof_id; local callers may also give a file path).
   * Under `no-server-paths` a network caller's value must be a proof_id.
   */
  proofRefFields?: readonly string[];
  /** The input: an object schema; unknown members are refused. */
  input: I;
  output: O;
  http?: HttpBinding<z.infer<O>>;
  mcp?: {
    tool?: McpToolBinding<z.infer<O>>;
    resource?: McpResourceBinding<z.infer<I>, z.infer<O>>;
  };
  /** The implementation. Called only through {@link invoke}. */
  run(input: z.infer<I>, ctx: OpContext): Promise<z.infer<O>>;
}

/** Declare an operation (infers the input and output types from the schemas). */
export function defineOperation<I extends z.ZodObject, O extends z.ZodType>(
  op: Operation<I, O>,
): Operation<I, O> {
  return op;
}
