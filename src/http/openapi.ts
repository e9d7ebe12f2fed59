/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the operation registry (each
 * operation's HTTP binding and its zod schemas, converted with zod's own JSON Schema writer)
 * plus the few routes that only HTTP has (this document and the documentation page). The same
 * declarations drive the routes (app.ts), so the document cannot drift from what the server
 * does.
 *
 * @module
 */
import { z } from "zod";
import { ERROR_TABLE, type ErrorCode } from "../errors/codes.ts";
import { type Access, type Operation, successStatuses } from "../ops/operation.ts";
import { OPERATIONS } from "../ops/registry.ts";
import { COMPONENTS, ProblemSchema } from "../ops/schemas.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { DOCS_ASSET_NAMES } from "./docs_assets_codec.ts";
import { DOCS_INIT_SCRIPT } from "./docs_page.ts";
import { PROBLEM_CONTENT_TYPE } from "./problem.ts";

/** Schema of a problem body (OpenAPI component `ProblemDetails`). */
export const ProblemDetailsSchema = z.object({
  type: z.string().describe("Stable URI of the problem kind: https://empiric.dev/problems/<code>"),
  title: z.string().describe("Short summary of the problem kind (same for every occurrence)"),
  status: z.number().int().describe("The HTTP status code"),
  detail: z.string().describe("What went wrong in this request"),
  instance: z.string().describe("The request path"),
  code: z.enum(Object.keys(ERROR_TABLE) as [ErrorCode, ...ErrorCode[]]).describe(
    "Stable error code (docs/http.md, Errors)",
  ),
  request_id: z.string().describe("The request's id, also in the X-Request-Id header and the log"),
  problems: z.array(ProblemSchema).describe(
    "Every problem found, with JSON pointers and positions",
  ),
}).register(COMPONENTS, { id: "ProblemDetails" });

/** A route only the HTTP API has (not an operation). */
export interface HttpOnlyRoute {
  method: "GET";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  access: Access;
  /** Content types of the 200 answer. */
  content: Record<string, { schema: Record<string, unknown> }>;
  parameters?: Record<string, unknown>[];
  errors: readonly number[];
}

/** `GET /openapi.json`, `GET /docs`, `GET /docs/assets/{asset}`. */
export const HTTP_ONLY_ROUTES: readonly HttpOnlyRoute[] = [
  {
    method: "GET",
    path: "/openapi.json",
    operationId: "openapi",
    summary: "This OpenAPI document",
    access: "public",
    content: { "application/json": { schema: { type: "object", description: "OpenAPI 3.1" } } },
    errors: [],
  },
  {
    method: "GET",
    path: "/docs",
    operationId: "docs",
    summary: "Interactive documentation",
    description:
      "Swagger UI for this document; its scripts and styles are served by the server itself (works offline).",
    access: "public",
    content: { "text/html": { schema: { type: "string" } } },
    errors: [],
  },
  {
    method: "GET",
    path: "/docs/assets/{asset}",
    operationId: "docs_asset",
    summary: "A script or style sheet of the documentation page",
    access: "public",
    content: {
      "text/javascript": { schema: { type: "string" } },
      "text/css": { schema: { type: "string" } },
    },
    parameters: [{
      name: "asset",
      in: "path",
      required: true,
      description: `One of ${[...DOCS_ASSET_NAMES, DOCS_INIT_SCRIPT].join(", ")}`,
      schema: { type: "string" },
    }],
    errors: [404],
  },
];

/** What the status codes mean on every route that can answer them. */
const STATUS_TEXT: Record<number, string> = {
  400: "The request is malformed: not JSON, an unknown member, a bad parameter",
  401: "The bearer token is missing or wrong (see WWW-Authenticate)",
  403:
    "Refused: a loopback server saw a non-loopback Host header, the server is read-only, or a client-named cmd: substrate is not allowed",
  404: "No such resource",
  408: "The body did not fully arrive in time (default 30 s)",
  413: "The body is larger than the server's limit (default 1 MiB)",
  415: "The body is not Content-Type: application/json",
  422: "The input is well-formed but unusable (an invalid record, scenario file or dataset)",
  500: "An input/output failure or a bug on the server",
  502: "The substrate could not be reached or started",
};

/** Path template of a binding in OpenAPI form (the registry already uses `{name}`). */
function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

type JsonSchema = Record<string, unknown>;

function componentRef(id: string): JsonSchema {
  return { $ref: `#/components/schemas/${id}` };
}

function idOf(schema: z.ZodType): string | undefined {
  return COMPONENTS.get(schema)?.id;
}

/**
 * Describe, on a route's entry, the operation that answers bodies with `member`: its request
 * and response schemas join the route's as `oneOf` alternatives.
 */
function mergeAlternative(entry: Record<string, unknown>, op: Operation, member: string): void {
  const inputRef = componentRef(idOf(op.input)!);
  const outputRef = componentRef(idOf(op.output)!);
  entry.description = `${entry.description}\n\nA body with \`${member}\` is the \`${op.name}\` ` +
    `operation (also the MCP tool of that name): ${op.description}`;
  const body = (entry.requestBody as { content: Record<string, { schema: JsonSchema }> })
    .content["application/json"];
  body.schema = { oneOf: [...((body.schema.oneOf as JsonSchema[]) ?? [body.schema]), inputRef] };
  const ok =
    (entry.responses as Record<string, { content?: Record<string, { schema: JsonSchema }> }>)[
      "200"
    ];
  const media = ok.content!["application/json"];
  media.schema = {
    oneOf: [...((media.schema.oneOf as JsonSchema[]) ?? [media.schema]), outputRef],
  };
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiOptions {
  /** Whether an access class needs the bearer token on this server. */
  requiresToken(access: Access): boolean;
}

/**
 * Build the document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildOpenApiDocument } from "./openapi.ts";
 * const doc = buildOpenApiDocument({ requiresToken: () => false });
 * assert.equal(doc.openapi, "3.1.0");
 * assert.ok("/verify" in (doc.paths as Record<string, unknown>));
 * ```
 */
export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  // Every named schema (registered in COMPONENTS) is a component: request bodies written as inputs,
  // everything else as outputs, by zod's own JSON Schema writer.
  const uri = (id: string) => `#/components/schemas/${id}`;
  const clean = (s: JsonSchema): JsonSchema => {
    const { $schema: _s, $id: _i, ...rest } = s;
    return rest;
  };
  const convert = (io: "input" | "output") =>
    z.toJSONSchema(COMPONENTS, { uri, io, unrepresentable: "any", target: "draft-2020-12" })
      .schemas as Record<string, JsonSchema>;
  const asInput = convert("input");
  const asOutput = convert("output");
  const inputIds = new Set(
    OPERATIONS.filter((op) => op.http?.method === "POST").map((op) => idOf(op.input)!),
  );
  const used = new Set<string>(["ProblemDetails", "Problem"]);
  for (const op of OPERATIONS) {
    if (!op.http) continue;
    if (!op.http.rawContentTypes) used.add(idOf(op.http.rawBodySchema ?? op.output)!);
    if (op.http.problem) used.add(idOf(op.output)!);
  }
  for (const id of inputIds) used.add(id);
  // Components referenced from the ones used.
  const schemas: Record<string, JsonSchema> = {};
  const pending = [...used];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id in schemas) continue;
    const s = inputIds.has(id) ? asInput[id] : asOutput[id];
    if (!s) continue;
    schemas[id] = clean(s);
    for (const m of JSON.stringify(s).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      pending.push(m[1]);
    }
  }

  const problem = (description: string, schema: JsonSchema = componentRef("ProblemDetails")) => ({
    description,
    content: { [PROBLEM_CONTENT_TYPE]: { schema } },
  });
  const security = (access: Access) =>
    options.requiresToken(access) ? { security: [{ bearerAuth: [] }] } : {};
  const errorResponses = (statuses: readonly number[], access: Access, post: boolean) => {
    const all = new Set<number>([...statuses, 403, 500]);
    if (options.requiresToken(access) || access === "write") all.add(401);
    if (post) { for (const s of [400, 408, 413, 415]) all.add(s); }
    const out: Record<string, unknown> = {};
    for (const s of [...all].sort()) out[String(s)] = problem(STATUS_TEXT[s] ?? "Error");
    return out;
  };

  const paths: Record<string, Record<string, unknown>> = {};
  // Operations sharing a route with a body discriminator come after the route's default one.
  const ordered = [...OPERATIONS as readonly Operation[]].sort((a, b) =>
    Number(!!a.http?.discriminator) - Number(!!b.http?.discriminator)
  );
  for (const op of ordered) {
    const b = op.http;
    if (!b) continue;
    const shared = b.discriminator
      ? paths[b.path]?.[b.method.toLowerCase()] as Record<string, unknown> | undefined
      : undefined;
    if (shared) {
      mergeAlternative(shared, op, b.discriminator!);
      continue;
    }
    const inPath = pathParams(b.path);
    const input = z.toJSONSchema(op.input, { io: "input", unrepresentable: "any" }) as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    const props = input.properties ?? {};
    const required = new Set(input.required ?? []);
    const parameters = [
      ...inPath.map((name) => ({
        name,
        in: "path",
        required: true,
        schema: clean(props[name] ?? { type: "string" }),
        ...(props[name]?.description ? { description: props[name].description } : {}),
      })),
      ...(b.method === "GET"
        ? Object.entries(props).filter(([name]) => !inPath.includes(name)).map(([name, s]) => ({
          name,
          in: "query",
          required: required.has(name),
          schema: clean(s),
          ...(s.description ? { description: s.description } : {}),
        }))
        : []),
    ];
    const success = b.rawBody && b.rawContentTypes
      ? {
        content: Object.fromEntries(
          b.rawContentTypes.map((t) => [t.split(";")[0], { schema: { type: "string" } }]),
        ),
      }
      : b.rawBody
      ? { content: { "application/json": { schema: componentRef(idOf(b.rawBodySchema!)!) } } }
      : { content: { "application/json": { schema: componentRef(idOf(op.output)!) } } };
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(successStatuses(b))) {
      responses[status] = {
        description,
        ...success,
        ...(b.headers
          ? {
            headers: { Location: { schema: { type: "string" }, description: "The resource" } },
          }
          : {}),
      };
    }
    Object.assign(responses, errorResponses(b.errors, op.access, b.method === "POST"));
    if (b.problem) {
      // A result reported as a problem also carries the operation's output members.
      const withOutput = {
        allOf: [componentRef("ProblemDetails"), componentRef(idOf(op.output)!)],
      };
      for (const s of b.errors) responses[String(s)] = problem(STATUS_TEXT[s], withOutput);
    }
    const exposure = op.exposure.length
      ? `\n\nNetwork clients: ${
        op.exposure.map((r) =>
          r === "scenario-listed"
            ? "scenarios by a listed name only"
            : r === "substrate-checked"
            ? "cmd: substrates only when the server allows them"
            : "paths relative to the store or scenario directory"
        ).join("; ")
      }.`
      : "";
    const inputId = idOf(op.input) ?? `${op.name}_input`;
    (paths[b.path] ??= {})[b.method.toLowerCase()] = {
      operationId: op.name,
      tags: [...b.tags],
      summary: op.title,
      description: op.description + exposure,
      ...(parameters.length ? { parameters } : {}),
      ...(b.method === "POST"
        ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: componentRef(inputId) } },
          },
        }
        : {}),
      responses,
      ...security(op.access),
    };
  }
  for (const r of HTTP_ONLY_ROUTES) {
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      operationId: r.operationId,
      tags: ["service"],
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      ...(r.parameters ? { parameters: r.parameters } : {}),
      responses: {
        200: { description: r.summary, content: r.content },
        ...errorResponses(r.errors, r.access, false),
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "empiric HTTP API",
      version: EMPIRIC_VERSION,
      description:
        "Test falsifiable claims and verify signed Empirical Proof Records. Every endpoint calls the same implementation as the empiric CLI and the MCP tools and returns the same shapes. Errors are RFC 9457 problem+json with stable type URIs `https://empiric.dev/problems/{code}`.",
    },
    tags: [
      { name: "proofs", description: "Verify and read proof records" },
      { name: "scenarios", description: "Scenarios and their claims" },
      { name: "runs", description: "Run scenarios (writes)" },
      { name: "wire format", description: "The canonical form" },
      { name: "service", description: "Health, version, this document" },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "The server's token (--token or EMPIRIC_HTTP_TOKEN). Needed for writes when the server has a token, and for every data endpoint with --auth all.",
        },
      },
    },
  };
}
