/**
 * The scenario catalog: which scenarios exist and how a name given by a caller becomes one.
 *
 * A scenario is known by the name it declares (`name:` in its file), whatever its file is
 * called; files in the scenario directory come first, then the built-ins they do not shadow.
 * Two access modes:
 *
 * - `listed` (network clients): only a name the catalog lists resolves. The name is matched
 *   against the declared names of the regular files found in the scenario directory; nothing
 *   else is ever opened: no path, no symlink, no device, nothing larger than
 *   {@link MAX_SCENARIO_BYTES}.
 * - `paths` (the local user, with their own rights): also a file path, and a file name stem in
 *   the scenario directory (`scenarios/<stem>.yaml`), as earlier releases resolved it.
 *
 * @module
 */
import { EmpiricError, ScenarioError } from "../errors/errors.ts";
import type { ScenarioFiles } from "./load.ts";
import {
  BUILTIN_PREFIX,
  builtinScenarioNames,
  loadBuiltinScenario,
  parseResolved,
  type ResolvedScenario,
} from "./resolve.ts";

/** Largest scenario file read (bytes); larger files are refused with `scenario_invalid`. */
export const MAX_SCENARIO_BYTES = 1 << 20;

/** File access of the catalog (the operations' environment provides it). */
export interface CatalogFiles {
  /** Names of the regular files (not symlinks) `*.yaml|*.yml|*.json` in a directory. */
  listDir(dir: string): Promise<string[]>;
  /**
   * Read a regular file that is not a symlink, at most `maxBytes` long (`undefined` when it
   * does not exist or is not a regular file).
   */
  readRegularText(path: string, maxBytes: number): Promise<string | undefined>;
  /** Read any file the local user names (follows symlinks); `undefined` when missing. */
  readText(path: string): Promise<string | undefined>;
  /** Dataset access for the scenarios found. */
  files: ScenarioFiles;
}

/** How names are resolved: listed names only, or also paths and file stems. */
export type CatalogMode = "listed" | "paths";

/** One file of the scenario directory that failed to load. */
export interface CatalogError {
  /** The file, as `<dir>/<file>`. */
  path: string;
  message: string;
}

/** Everything the catalog lists. */
export interface CatalogListing {
  /** Scenarios in listing order: directory files (by file name), then built-ins. */
  scenarios: ResolvedScenario[];
  /** Files that failed to load, and names declared by more than one file. */
  errors: CatalogError[];
}

/** Names a caller can give: a scenario's declared name (`[a-z0-9._-]`, not a file name). */
export const SCENARIO_NAME = /^(?!.*\.(?:ya?ml|json)$)[a-z0-9][a-z0-9._-]{0,127}$/;

const SCENARIO_FILE = /\.(ya?ml|json)$/;

function fileStem(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1).replace(SCENARIO_FILE, "");
}

function notFound(name: string): EmpiricError {
  return new EmpiricError(
    "not_found",
    `no scenario named ${JSON.stringify(name)} (built-ins: ${
      builtinScenarioNames().join(", ")
    }; list_scenarios or \`empiric scenarios list\` shows every scenario)`,
  );
}

/**
 * The scenarios of one directory plus the built-ins, as seen by one kind of caller.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ScenarioCatalog } from "./catalog.ts";
 * const none = () => Promise.resolve(undefined);
 * const catalog = new ScenarioCatalog("scenarios", "listed", {
 *   listDir: () => Promise.resolve([]),
 *   readRegularText: none,
 *   readText: none,
 *   files: { readFile: () => Promise.reject(new Error("no files")) },
 * });
 * assert.equal((await catalog.resolve("echo-latency")).scenario.name, "echo-latency");
 * await assert.rejects(catalog.resolve("/etc/passwd"), { code: "not_found" });
 * ```
 */
export class ScenarioCatalog {
  readonly dir: string;
  readonly mode: CatalogMode;
  #fs: CatalogFiles;

  constructor(dir: string, mode: CatalogMode, fs: CatalogFiles) {
    this.dir = dir;
    this.mode = mode;
    this.#fs = fs;
  }

  /** List the directory's scenarios (by declared name) and the built-ins they do not shadow. */
  async list(): Promise<CatalogListing> {
    const { byName, errors } = await this.#scan();
    const scenarios = [...byName.values()].map((v) => v[0]);
    const seen = new Set(byName.keys());
    for (const name of builtinScenarioNames()) {
      if (!seen.has(name)) scenarios.push(loadBuiltinScenario(name));
    }
    return { scenarios, errors };
  }

  /**
   * Resolve a caller's name. `listed`: a declared name the catalog lists, else `not_found`
   * (nothing outside the directory's regular files is read). `paths`: also `builtin:<name>`,
   * a file path, or a file stem in the directory.
   */
  async resolve(arg: string): Promise<ResolvedScenario> {
    if (this.mode === "listed") {
      if (!SCENARIO_NAME.test(arg)) throw notFound(arg);
      return await this.#byDeclaredName(arg, true);
    }
    if (arg.startsWith(BUILTIN_PREFIX)) {
      return loadBuiltinScenario(arg.slice(BUILTIN_PREFIX.length));
    }
    if (arg.includes("/") || arg.includes("\\") || SCENARIO_FILE.test(arg)) {
      const text = await this.#fs.readText(arg);
      if (text === undefined) throw new EmpiricError("not_found", `no such scenario file: ${arg}`);
      return parseResolved(text, arg, this.#fs.files);
    }
    return await this.#byDeclaredName(arg, false);
  }

  async #byDeclaredName(name: string, listedOnly: boolean): Promise<ResolvedScenario> {
    const { byName, errors } = await this.#scan();
    const found = byName.get(name);
    if (found && found.length > 1) {
      throw new ScenarioError(
        "scenario_invalid",
        `scenario name ${JSON.stringify(name)} is declared by ${found.length} files: ${
          found.map((r) => r.origin.path).join(", ")
        }; rename one of them`,
      );
    }
    if (found) return found[0];
    if (!listedOnly) {
      // Earlier releases found `<dir>/<stem>.yaml` by its file name: keep that for local users.
      for (const ext of ["yaml", "yml", "json"]) {
        const path = `${this.dir}/${name}.${ext}`;
        const text = await this.#fs.readRegularText(path, MAX_SCENARIO_BYTES);
        if (text !== undefined) return parseResolved(text, path, this.#fs.files);
      }
    }
    // A file of the directory named after the scenario that does not load: say why (the
    // listing reports the same error).
    const broken = errors.find((e) => fileStem(e.path) === name);
    if (broken) throw new ScenarioError("scenario_invalid", broken.message);
    if (builtinScenarioNames().includes(name)) return loadBuiltinScenario(name);
    throw notFound(name);
  }

  async #scan(): Promise<{ byName: Map<string, ResolvedScenario[]>; errors: CatalogError[] }> {
    const byName = new Map<string, ResolvedScenario[]>();
    const errors: CatalogError[] = [];
    for (const file of (await this.#fs.listDir(this.dir)).sort()) {
      const path = `${this.dir}/${file}`;
      try {
        const text = await this.#fs.readRegularText(path, MAX_SCENARIO_BYTES);
        if (text === undefined) continue;
        const r = parseResolved(text, path, this.#fs.files);
        const list = byName.get(r.scenario.name);
        if (list) list.push(r);
        else byName.set(r.scenario.name, [r]);
      } catch (e) {
        errors.push({ path, message: (e as Error).message });
      }
    }
    for (const [name, list] of byName) {
      if (list.length > 1) {
        errors.push({
          path: list[1].origin.path,
          message: `scenario name ${JSON.stringify(name)} is also declared by ${
            list[0].origin.path
          }: names must be unique in a scenario directory`,
        });
      }
    }
    return { byName, errors };
  }
}
