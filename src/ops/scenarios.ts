/**
 * `list_scenarios` and `get_scenario_claim`: shared by `empiric scenarios`, the HTTP API and
 * the MCP tools.
 *
 * @module
 */
import { toPlainJson } from "../json/plain.ts";
import { configHash } from "../scenario/load.ts";
import type { ResolvedScenario } from "../scenario/resolve.ts";
import { ScenarioCatalog } from "../scenario/catalog.ts";
import { scenarioValue } from "../scenario/load.ts";
import type { OpsEnvironment } from "./environment.ts";

/**
 * What a network-facing surface (HTTP API, MCP over HTTP) lets its clients name. The CLI and
 * stdio MCP run with the user's own rights and use the defaults (everything allowed).
 */
export interface Exposure {
  /** Scenarios by name only (built-in or in the scenario directory), never by file path. */
  namesOnly?: boolean;
  /** Let clients name `cmd:` substrates (which start processes on the server). */
  allowClientCmd?: boolean;
}

/** The scenario catalog as the caller may see it: listed names only over the network. */
export function scenarioCatalog(
  env: OpsEnvironment,
  scenarioDir = "scenarios",
  exposure: Exposure = {},
): ScenarioCatalog {
  return new ScenarioCatalog(scenarioDir, exposure.namesOnly ? "listed" : "paths", {
    listDir: (p) => env.listDir(p),
    readRegularText: (p, max) => env.readRegularText(p, max),
    readText: (p) => env.readText(p),
    files: { readFile: (p) => env.readFile(p), fetch: (u) => env.fetchBytes(u) },
  });
}

/** Where a scenario came from, as shown to the caller (no server paths over the network). */
function shownPath(r: ResolvedScenario, catalog: ScenarioCatalog): string {
  if (catalog.mode === "paths" || r.origin.kind === "builtin") return r.origin.path;
  return r.origin.path.slice(r.origin.path.lastIndexOf("/") + 1);
}

/** One entry of `list_scenarios`. */
export interface ScenarioSummary {
  name: string;
  title: string;
  statement: string;
  threshold: { metric: string; comparator: string; value: number; units: string };
  default_substrate: string | null;
  origin: "builtin" | "file";
  path: string;
}

function summary(r: ResolvedScenario, catalog: ScenarioCatalog): ScenarioSummary {
  const t = r.scenario.claim.threshold;
  return {
    name: r.scenario.name,
    title: r.scenario.title,
    statement: r.scenario.claim.statement,
    threshold: {
      metric: t.metric,
      comparator: t.comparator,
      value: Number(t.value),
      units: t.units,
    },
    default_substrate: r.scenario.default_substrate ?? null,
    origin: r.origin.kind,
    path: shownPath(r, catalog),
  };
}

/**
 * List scenarios: files in the scenario directory, then built-ins not shadowed by a file.
 * A file that fails to load is reported in `errors`, not thrown.
 */
export async function listScenarios(
  env: OpsEnvironment,
  scenarioDir = "scenarios",
  exposure: Exposure = {},
): Promise<{ scenarios: ScenarioSummary[]; errors: { path: string; message: string }[] }> {
  const catalog = scenarioCatalog(env, scenarioDir, exposure);
  const { scenarios, errors } = await catalog.list();
  return {
    scenarios: scenarios.map((r) => summary(r, catalog)),
    errors: errors.map((e) => ({
      path: catalog.mode === "paths" ? e.path : e.path.slice(e.path.lastIndexOf("/") + 1),
      message: e.message,
    })),
  };
}

/** The result of `get_scenario_claim`. */
export interface ScenarioClaim {
  name: string;
  title: string;
  claim: unknown;
  datasets: unknown;
  analysis: unknown;
  probe: unknown;
  metrics: unknown;
  default_substrate: string | null;
  config_hash: string;
  origin: "builtin" | "file";
  path: string;
}

/** A scenario's claim five-tuple, with its plan and config_hash. */
export async function getScenarioClaim(
  env: OpsEnvironment,
  name: string,
  scenarioDir = "scenarios",
  exposure: Exposure = {},
): Promise<ScenarioClaim> {
  const catalog = scenarioCatalog(env, scenarioDir, exposure);
  const r = await catalog.resolve(name);
  const v = toPlainJson(scenarioValue(r.scenario)) as Record<string, unknown>;
  return {
    name: r.scenario.name,
    title: r.scenario.title,
    claim: v.claim,
    datasets: v.datasets,
    analysis: v.analysis,
    probe: v.probe,
    metrics: v.metrics,
    default_substrate: r.scenario.default_substrate ?? null,
    config_hash: await configHash(r.scenario),
    origin: r.origin.kind,
    path: shownPath(r, catalog),
  };
}
