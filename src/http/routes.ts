/**
 * The routes of the HTTP API, described once with the shared operation schemas
 * (src/api/schemas.ts). The same objects validate requests (src/http/app.ts) and generate
 * `GET /openapi.json`, so the document cannot drift from what the server does.
 *
 * @module
 */
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import {
  CanonicalizeInput,
  CanonicalizeOutput,
  GetScenarioClaimInput,
  HealthOutput,
  ListScenariosOutput,
  ProofIndexOutput,
  ReadProofIndexInput,
  RunScenarioInput,
  RunScenarioOutput,
  ScenarioClaimOutput,
  VerifyProofInput,
  VerifyProofOutput,
  VersionOutput,
} from "../api/schemas.ts";
import { DOCS_ASSET_NAMES } from "./docs_assets_codec.ts";
import { DOCS_INIT_SCRIPT } from "./docs_page.ts";
import type { Access } from "./auth.ts";
import { PROBLEM_CONTENT_TYPE, ProblemDetailsSchema } from "./problem.ts";

/**
 * Names a client may use for scenarios over HTTP: a scenario's `name` (`[a-z0-9._-]`), never a
 * file path or a file name (the server must not read files a client picks).
 */
export const SCENARIO_NAME_PATTERN = /^(?!.*\.(?:ya?ml|json)$)[a-z0-9][a-z0-9._-]{0,127}$/;

const ScenarioName = GetScenarioClaimInput.shape.name.regex(
  SCENARIO_NAME_PATTERN,
  "must be a scenario name: [a-z0-9._-], at most 128 characters, not a file name",
);

/** `GET /scenarios/{name}` path parameters. */
export const ScenarioParams = z.object({
  name: ScenarioName.openapi({ param: { name: "name", in: "path" }, example: "echo-latency" }),
});

/** `GET /proofs/{proof_id}` path parameters. */
export const ProofParams = z.object({
  proof_id: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters").openapi({
    param: { name: "proof_id", in: "path" },
    description: "The record's identity.proof_id",
  }),
});

/** `GET /docs/assets/{asset}` path parameters. */
export const AssetParams = z.object({
  asset: z.string().openapi({
    param: { name: "asset", in: "path" },
    description: `One of ${[...DOCS_ASSET_NAMES, DOCS_INIT_SCRIPT].join(", ")}`,
    example: "swagger-ui.css",
  }),
});

/** Request bodies are objects with exactly the documented members (unknown members: 400). */
export const VerifyBody = VerifyProofInput.strict().openapi("VerifyProofInput");
/** `POST /canonicalize` body. */
export const CanonicalizeBody = CanonicalizeInput.strict().openapi("CanonicalizeInput");
/** `POST /runs` body: scenario names only (no paths). */
export const RunBody = RunScenarioInput.extend({
  scenario: ScenarioName.describe(
    "Scenario name: a built-in or a file in the server's scenario directory",
  ),
}).strict().openapi("RunScenarioInput");
/** `GET /proofs` query: no other parameters. */
export const ProofIndexQuery = ReadProofIndexInput.strict();

/** A problem response whose body also carries the `verify_proof` result. */
export const VerifyProblemSchema = ProblemDetailsSchema.extend(VerifyProofOutput.shape).openapi(
  "VerifyProblem",
);

/** The stored record, byte for byte (its JSON Schema: src/schema/proof-record.schema.json). */
const StoredRecord = z.record(z.string(), z.unknown()).openapi("ProofRecordFile", {
  description:
    "The record file exactly as stored (not re-serialized); see the record's JSON Schema in the repository, src/schema/proof-record.schema.json",
});

const OpenApiDocument = z.record(z.string(), z.unknown()).openapi("OpenApiDocument", {
  description: "This OpenAPI 3.1 document",
});

function json(schema: z.ZodType, description: string) {
  return { content: { "application/json": { schema } }, description };
}

function problem(description: string, schema: z.ZodType = ProblemDetailsSchema) {
  return { content: { [PROBLEM_CONTENT_TYPE]: { schema } }, description };
}

const jsonBody = <S extends z.ZodType>(schema: S) => ({
  content: { "application/json": { schema } },
  required: true,
});

const E = {
  400: problem("The request is malformed: not JSON, an unknown member, a bad parameter"),
  401: problem("The bearer token is missing or wrong (see WWW-Authenticate)"),
  403: problem(
    "Refused: a loopback server without a token saw a non-loopback Host header, the server is read-only, or a client-named cmd: substrate is not allowed",
  ),
  404: problem("No such resource"),
  408: problem("The body did not fully arrive in time (default 30 s)"),
  413: problem("The body is larger than the server's limit (default 1 MiB)"),
  415: problem("The body is not Content-Type: application/json"),
  422: problem("The input is well-formed but unusable (e.g. an invalid scenario file)"),
  500: problem("A bug or an input/output failure on the server"),
};

/** Every route: its OpenAPI description and its access class. */
export const ROUTES = {
  verify: {
    access: "read" as Access,
    route: createRoute({
      method: "post",
      path: "/verify",
      operationId: "verify_proof",
      tags: ["proofs"],
      summary: "Verify a proof record",
      description:
        "Parses the record with the typed parser, validates it against the JSON Schema, recomputes proof_id and checks the HMAC signature under the server's key. Returns the same object as the verify_proof tool and `empiric schema validate --json`. A record that parses and has the right structure gets 200 even when proof_id or the signature do not check out (`verified: false`, `reason`); a record that is not JSON gets 400 and one that fails the schema 422, both as problem+json that also carry the verify_proof members.",
      request: { body: jsonBody(VerifyBody) },
      responses: {
        200: json(VerifyProofOutput, "The verification result (verified true or false)"),
        400: problem(
          "The request body or the record text is not JSON (record failures also carry the verify_proof members)",
          z.union([VerifyProblemSchema, ProblemDetailsSchema]),
        ),
        401: E[401],
        403: E[403],
        408: E[408],
        413: E[413],
        415: E[415],
        422: problem(
          "The record parses but fails the schema (with the verify_proof members)",
          VerifyProblemSchema,
        ),
        500: E[500],
      },
    }),
  },
  listScenarios: {
    access: "read" as Access,
    route: createRoute({
      method: "get",
      path: "/scenarios",
      operationId: "list_scenarios",
      tags: ["scenarios"],
      summary: "List scenarios",
      description:
        "Scenario files in the server's scenario directory, then the built-ins they do not shadow. Files that fail to load are listed in `errors`.",
      responses: {
        200: json(ListScenariosOutput, "The scenarios"),
        401: E[401],
        403: E[403],
        500: E[500],
      },
    }),
  },
  getScenario: {
    access: "read" as Access,
    route: createRoute({
      method: "get",
      path: "/scenarios/{name}",
      operationId: "get_scenario_claim",
      tags: ["scenarios"],
      summary: "Get a scenario's claim",
      description:
        "The claim five-tuple with the datasets, probe, metrics, pre-registered analysis plan and config_hash.",
      request: { params: ScenarioParams },
      responses: {
        200: json(ScenarioClaimOutput, "The scenario's claim"),
        400: E[400],
        401: E[401],
        403: E[403],
        404: E[404],
        422: E[422],
        500: E[500],
      },
    }),
  },
  canonicalize: {
    access: "read" as Access,
    route: createRoute({
      method: "post",
      path: "/canonicalize",
      operationId: "canonicalize_value",
      tags: ["wire format"],
      summary: "Canonicalize a JSON value",
      description:
        "The canonical form (wire-format rules R1-R11) of a JSON text, its length and SHA-256. The value is sent as text so that ints and floats stay distinct (`1` is not `1.0`).",
      request: { body: jsonBody(CanonicalizeBody) },
      responses: {
        200: json(CanonicalizeOutput, "The canonical form"),
        400: E[400],
        401: E[401],
        403: E[403],
        408: E[408],
        413: E[413],
        415: E[415],
        500: E[500],
      },
    }),
  },
  listProofs: {
    access: "read" as Access,
    route: createRoute({
      method: "get",
      path: "/proofs",
      operationId: "read_proof_index",
      tags: ["proofs"],
      summary: "Read the proof index",
      description: "Stored proofs, newest first, with filters and paging.",
      request: { query: ProofIndexQuery },
      responses: {
        200: json(ProofIndexOutput, "One page of the index"),
        400: E[400],
        401: E[401],
        403: E[403],
        500: E[500],
      },
    }),
  },
  getProof: {
    access: "read" as Access,
    route: createRoute({
      method: "get",
      path: "/proofs/{proof_id}",
      operationId: "get_proof",
      tags: ["proofs"],
      summary: "Get one stored record",
      description:
        "The record file exactly as stored, byte for byte, so that its signature can be checked by any port.",
      request: { params: ProofParams },
      responses: {
        200: json(StoredRecord, "The record file"),
        400: E[400],
        401: E[401],
        403: E[403],
        404: E[404],
        500: E[500],
      },
    }),
  },
  run: {
    access: "write" as Access,
    route: createRoute({
      method: "post",
      path: "/runs",
      operationId: "run_scenario",
      tags: ["runs"],
      summary: "Run a scenario",
      description:
        "Runs a scenario against a substrate, signs the record with the server's key and stores it. Answers when the run is over: 201 with Location: /proofs/{proof_id}. Needs the bearer token when the server has one. Clients may name builtin: and http(s):// substrates; cmd: substrates only when the server allows them (--allow-cmd-substrates).",
      request: { body: jsonBody(RunBody) },
      responses: {
        201: {
          ...json(RunScenarioOutput, "The run's result; the record is stored"),
          headers: z.object({
            Location: z.string().openapi({ description: "/proofs/{proof_id}" }),
          }),
        },
        400: E[400],
        401: E[401],
        403: E[403],
        404: problem("No scenario of that name"),
        408: E[408],
        413: E[413],
        415: E[415],
        422: problem("The scenario file or a dataset is invalid"),
        500: E[500],
        502: problem("The substrate could not be reached or started"),
      },
    }),
  },
  health: {
    access: "public" as Access,
    route: createRoute({
      method: "get",
      path: "/health",
      operationId: "health",
      tags: ["service"],
      summary: "Liveness",
      description: "Always open (no token), for load balancers and supervisors.",
      responses: { 200: json(HealthOutput, "The server is up"), 403: E[403] },
    }),
  },
  version: {
    access: "read" as Access,
    route: createRoute({
      method: "get",
      path: "/version",
      operationId: "version",
      tags: ["service"],
      summary: "Version",
      description: "empiric's version and commit, the record schema version and the Deno version.",
      responses: {
        200: json(VersionOutput, "Versions"),
        401: E[401],
        403: E[403],
      },
    }),
  },
  openapi: {
    access: "public" as Access,
    route: createRoute({
      method: "get",
      path: "/openapi.json",
      operationId: "openapi",
      tags: ["service"],
      summary: "This OpenAPI document",
      responses: { 200: json(OpenApiDocument, "OpenAPI 3.1"), 403: E[403] },
    }),
  },
  docs: {
    access: "public" as Access,
    route: createRoute({
      method: "get",
      path: "/docs",
      operationId: "docs",
      tags: ["service"],
      summary: "Interactive documentation",
      description:
        "Swagger UI for this document; its scripts and styles are served by the server itself (works offline).",
      responses: {
        200: {
          content: { "text/html": { schema: z.string() } },
          description: "The documentation page",
        },
        403: E[403],
      },
    }),
  },
  docsAsset: {
    access: "public" as Access,
    route: createRoute({
      method: "get",
      path: "/docs/assets/{asset}",
      operationId: "docs_asset",
      tags: ["service"],
      summary: "A script or style sheet of the documentation page",
      request: { params: AssetParams },
      responses: {
        200: {
          content: {
            "text/javascript": { schema: z.string() },
            "text/css": { schema: z.string() },
          },
          description: "The file (gzip-encoded when the client accepts it)",
        },
        403: E[403],
        404: E[404],
      },
    }),
  },
} as const satisfies Record<string, { access: Access; route: RouteConfig }>;

/** Name of a route in {@link ROUTES}. */
export type RouteName = keyof typeof ROUTES;
