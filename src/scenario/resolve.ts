/**
 * The built-in scenarios (embedded in the binary) and the parsing of a scenario file into a
 * resolved scenario. Which names resolve to which file is the catalog's concern (catalog.ts).
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
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
 * import assert from "node:assert/strict";
 * import { builtinScenarioNames } from "./resolve.ts";
 * assert.ok(builtinScenarioNames().includes("arithmetic-accuracy"));
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

/** Parse and normalize a scenario file's text into a {@link ResolvedScenario}. */
export function parseResolved(text: string, path: string, files: ScenarioFiles): ResolvedScenario {
  const { value, locate } = parseScenarioText(text, path);
  return {
    scenario: normalizeScenario(value, path, locate),
    origin: { kind: "file", path },
    files,
    text,
  };
}

/** Load a built-in scenario by name (`not_found` when there is none). */
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
  throw new EmpiricError(
    "not_found",
    `no built-in scenario named ${JSON.stringify(name)} (built-ins: ${
      builtinScenarioNames().join(", ")
    })`,
  );
}
