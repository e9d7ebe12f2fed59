/**
 * Find a scenario by name or path: a file path, `scenarios/<name>.{yaml,yml,json}` under the
 * working directory, or a built-in.
 *
 * @module
 */
import { ScenarioError } from "../errors/errors.ts";
import { BUILTIN_FILES } from "./builtin_assets.ts";
import { normalizeScenario, parseScenarioText, type ScenarioFiles } from "./load.ts";
import type { Scenario, ScenarioOrigin } from "./types.ts";

/** Prefix of the virtual paths of built-in files. */
export const BUILTIN_PREFIX = "builtin:";

/** The embedded files as a {@link ScenarioFiles}. */
export const builtinFiles: ScenarioFiles = {
  readFile: (path) => {
    const rel = path.startsWith(BUILTIN_PREFIX) ? path.slice(BUILTIN_PREFIX.length) : path;
    const text = BUILTIN_FILES[rel];
    if (text === undefined) return Promise.reject(new Error(`no built-in file ${rel}`));
    return Promise.resolve(new TextEncoder().encode(text));
  },
};

/**
 * Names of the built-in scenarios.
 *
 * @example
 * ```ts
 * import { builtinScenarioNames } from "./resolve.ts";
 * console.assert(builtinScenarioNames().includes("arithmetic-accuracy"));
 * ```
 */
export function builtinScenarioNames(): string[] {
  return Object.keys(BUILTIN_FILES)
    .filter((p) => p.startsWith("scenarios/"))
    .map((p) => p.slice("scenarios/".length).replace(/\.(ya?ml|json)$/, ""))
    .sort();
}

/** A scenario with where it came from and how to read its datasets. */
export interface ResolvedScenario {
  scenario: Scenario;
  origin: ScenarioOrigin;
  files: ScenarioFiles;
  /** Raw text of the scenario file. */
  text: string;
}

/** File-system access for resolving user scenarios. */
export interface ScenarioLookup {
  /** Read a file, or undefined if it does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** Real file access for datasets. */
  files: ScenarioFiles;
  /** Directory searched for `<name>.yaml` (default `scenarios`). */
  scenarioDir?: string;
}

/** Load a built-in scenario by name. */
export function loadBuiltinScenario(name: string): ResolvedScenario {
  for (const ext of ["yaml", "yml", "json"]) {
    const path = `scenarios/${name}.${ext}`;
    const text = BUILTIN_FILES[path];
    if (text !== undefined) {
      const { value, locate } = parseScenarioText(text, path);
      return {
        scenario: normalizeScenario(value, `${BUILTIN_PREFIX}${path}`, locate),
        origin: { kind: "builtin", path: `${BUILTIN_PREFIX}${path}` },
        files: builtinFiles,
        text,
      };
    }
  }
  throw new ScenarioError(
    "scenario_invalid",
    `no scenario named ${
      JSON.stringify(name)
    }: not a file, not in ./scenarios/, not built in (built-ins: ${
      builtinScenarioNames().join(", ")
    })`,
  );
}

/**
 * Resolve a scenario argument: an existing file path, `<scenarioDir>/<name>.yaml|yml|json`, or
 * a built-in name (optionally written `builtin:<name>`).
 */
export async function resolveScenario(
  arg: string,
  lookup?: ScenarioLookup,
): Promise<ResolvedScenario> {
  if (arg.startsWith(BUILTIN_PREFIX)) return loadBuiltinScenario(arg.slice(BUILTIN_PREFIX.length));
  if (lookup) {
    const dir = lookup.scenarioDir ?? "scenarios";
    const candidates = /\.(ya?ml|json)$/.test(arg) || arg.includes("/")
      ? [arg]
      : [`${dir}/${arg}.yaml`, `${dir}/${arg}.yml`, `${dir}/${arg}.json`];
    for (const path of candidates) {
      const text = await lookup.readText(path);
      if (text === undefined) continue;
      const { value, locate } = parseScenarioText(text, path);
      return {
        scenario: normalizeScenario(value, path, locate),
        origin: { kind: "file", path },
        files: lookup.files,
        text,
      };
    }
    if (
      candidates.length === 1 && candidates[0] === arg &&
      (arg.includes("/") || /\.(ya?ml|json)$/.test(arg))
    ) {
      throw new ScenarioError("scenario_invalid", `no such scenario file: ${arg}`);
    }
  }
  return loadBuiltinScenario(arg);
}
