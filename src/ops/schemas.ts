/**
 * Schema pieces several operations share (plain zod), and {@link COMPONENTS}: the registry
 * naming the schemas that become OpenAPI components. Names live in their own registry, not in
 * zod's global one, so that the MCP SDK (which writes tool schemas from the global registry)
 * keeps every tool schema inline.
 *
 * @module
 */
import { z } from "zod";

/** Schemas that are OpenAPI components, by id (`schema.register(COMPONENTS, { id })`). */
export const COMPONENTS = z.registry<{ id: string; description?: string }>();

/** A proof id: 64 lowercase hex characters. */
export const ProofId = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");

/** One problem found, with its stable code and location. */
export const ProblemSchema = z.object({
  code: z.string().describe("Stable error code (docs/cli.md, Error codes)"),
  message: z.string(),
  pointer: z.string().optional().describe("RFC 6901 JSON pointer of the offending value"),
  position: z.object({ offset: z.number().int(), line: z.number().int(), column: z.number().int() })
    .optional()
    .describe("Position in the source text"),
}).register(COMPONENTS, { id: "Problem" });

/** A claim's threshold. */
export const ThresholdSchema = z.object({
  metric: z.string(),
  comparator: z.string(),
  value: z.number(),
  units: z.string(),
}).register(COMPONENTS, { id: "Threshold" });

/** The three verdict outcomes. */
export const OutcomeSchema = z.enum(["VALIDATED", "REFUTED", "INCONCLUSIVE"]);

/** A scenario name as a caller gives it. */
export const ScenarioNameSchema = z.string().min(1).max(4096);
