/**
 * `list_scenarios` and `get_scenario_claim`: shared by `empiric scenarios`, the HTTP API and
 * the MCP tools.
 *
 * @module
 */
import { toPlainJson } from "../json/plain.ts";
import { configHash } from "../scenario/load.ts";
import {
  builtinScenarioNames,
  type ResolvedScenario,
  resolveScenario,
  type ScenarioLookup,
} from "../scenario/resolve.ts";
import { scenarioValue } from "../scenario/load.ts";
import type { OpsEnvironment } from "./environment.ts";
import { EmpiricError } from "../errors/errors.ts";

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

const SCENARIO_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Throw `not_found` unless `name` is a scenario name that exists (built-in or in `dir`). */
export async function requireScenarioName(
  env: OpsEnvironment,
  name: string,
  scenarioDir = "scenarios",
): Promise<void> {
  const exists = SCENARIO_NAME.test(name) && !name.includes("..") &&
    (builtinScenarioNames().includes(name) ||
      (await Promise.all(
        ["yaml", "yml", "json"].map((e) => env.exists(`${scenarioDir}/${name}.${e}`)),
      )).some(Boolean));
  if (!exists) {
    throw new EmpiricError(
      "not_found",
      `no scenario named ${JSON.stringify(name)} (built-ins: ${
        builtinScenarioNames().join(", ")
      }; see list_scenarios)`,
    );
  }
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

/** A lookup over the real files, searching `scenarioDir` (default `scenarios`). */
export function scenarioLookup(env: OpsEnvironment, scenarioDir = "scenarios"): ScenarioLookup {
  return {
    scenarioDir,
    readText: (p) => env.readText(p),
    files: { readFile: (p) => env.readFile(p), fetch: (u) => env.fetchBytes(u) },
  };
}

function summary(r: ResolvedScenario): ScenarioSummary {
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
    path: r.origin.path,
  };
}

/**
 * List scenarios: files in the scenario directory, then built-ins not shadowed by a file.
 * A file that fails to load is reported in `errors`, not thrown.
 */
export async function listScenarios(
  env: OpsEnvironment,
  scenarioDir = "scenarios",
): Promise<{ scenarios: ScenarioSummary[]; errors: { path: string; message: string }[] }> {
  const lookup = scenarioLookup(env, scenarioDir);
  const scenarios: ScenarioSummary[] = [];
  const errors: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const name of (await env.listDir(scenarioDir)).sort()) {
    const path = `${scenarioDir}/${name}`;
    try {
      const r = await resolveScenario(path, lookup);
      if (seen.has(r.scenario.name)) continue;
      seen.add(r.scenario.name);
      scenarios.push(summary(r));
    } catch (e) {
      errors.push({ path, message: (e as Error).message });
    }
  }
  for (const name of builtinScenarioNames()) {
    if (seen.has(name)) continue;
    scenarios.push(summary(await resolveScenario(`builtin:${name}`)));
  }
  return { scenarios, errors };
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
  if (exposure.namesOnly) await requireScenarioName(env, name, scenarioDir);
  const r = await resolveScenario(name, scenarioLookup(env, scenarioDir));
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
    path: r.origin.path,
  };
}
