/**
 * `health` and `version`: the service's own state, for load balancers and clients.
 *
 * @module
 */
import { z } from "zod";
import { COMPONENTS } from "./schemas.ts";
import { SCHEMA_VERSION } from "../record/types.ts";
import { defineOperation } from "./operation.ts";

/** `health` output. */
export const HealthOutput = z.object({
  status: z.literal("ok"),
  uptime_s: z.number().describe("Seconds since the server started"),
}).register(COMPONENTS, { id: "Health" });

/** `version` output. */
export const VersionOutput = z.object({
  empiric_version: z.string(),
  empiric_git_commit: z.string(),
  schema_version: z.string(),
  deno: z.string(),
}).register(COMPONENTS, { id: "Version" });

/** The `health` operation (always open, no token). */
export const healthOp = defineOperation({
  name: "health",
  title: "Liveness",
  description: "Always open (no token), for load balancers and supervisors.",
  access: "public",
  exposure: [],
  input: z.strictObject({}),
  output: HealthOutput,
  http: {
    method: "GET",
    path: "/health",
    tags: ["service"],
    response: "The server is up",
    errors: [],
  },
  run: (_input, ctx) =>
    Promise.resolve({
      status: "ok" as const,
      uptime_s: Math.round(ctx.env.monotonic() - ctx.startedAt) / 1000,
    }),
});

/** The `version` operation. */
export const versionOp = defineOperation({
  name: "version",
  title: "Version",
  description: "empiric's version and commit, the record schema version and the Deno version.",
  access: "read",
  exposure: [],
  input: z.strictObject({}),
  output: VersionOutput,
  http: { method: "GET", path: "/version", tags: ["service"], response: "Versions", errors: [] },
  run: (_input, ctx) => {
    const rt = ctx.env.runtime();
    return Promise.resolve({
      empiric_version: rt.empiricVersion,
      empiric_git_commit: rt.empiricCommit,
      schema_version: SCHEMA_VERSION,
      deno: rt.host.deno,
    });
  },
});
