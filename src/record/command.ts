/**
 * The record's reproduction command, `empiric run <scenario> --substrate <substrate>`, for a
 * comparative record followed by `--baseline-substrate <spec>` or `--baseline <proof_id>`: written
 * with each argument quoted for a POSIX shell, so that it can be pasted into one and run, and
 * read back into its arguments (also from records written before quoting, whose substrate is the
 * raw rest of the line). The scenario's declared name, for indexes and lineage, comes from
 * the provenance graph's scenario entity, since the command may name the scenario by its path.
 *
 * @module
 */

/** Characters a POSIX shell leaves alone in an unquoted word. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quote one argument for a POSIX shell: as it is when it needs nothing, else in single quotes
 * (a `'` inside written `'\''`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellQuote } from "./command.ts";
 * assert.equal(shellQuote("builtin:echo"), "builtin:echo");
 * assert.equal(shellQuote("cmd:python3 serve.py"), "'cmd:python3 serve.py'");
 * assert.equal(shellQuote("it's"), "'it'\\''s'");
 * assert.equal(shellQuote(""), "''");
 * ```
 */
export function shellQuote(arg: string): string {
  return PLAIN.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The baseline option of a comparative run, as given on the command line. */
export interface BaselineOption {
  option: "--baseline-substrate" | "--baseline";
  value: string;
}

/**
 * The reproduction command of a run (with its baseline option for a comparative run).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reproductionCommand } from "./command.ts";
 * assert.equal(
 *   reproductionCommand("scenarios/t.yaml", "cmd:python3 s.py"),
 *   "empiric run scenarios/t.yaml --substrate 'cmd:python3 s.py'",
 * );
 * assert.equal(
 *   reproductionCommand("t", "cmd:./new", { option: "--baseline-substrate", value: "cmd:./old" }),
 *   "empiric run t --substrate cmd:./new --baseline-substrate cmd:./old",
 * );
 * ```
 */
export function reproductionCommand(
  scenario: string,
  substrate: string,
  baseline?: BaselineOption | null,
): string {
  const main = `empiric run ${shellQuote(scenario)} --substrate ${shellQuote(substrate)}`;
  return baseline ? `${main} ${baseline.option} ${shellQuote(baseline.value)}` : main;
}

/**
 * Split a POSIX shell word list (single and double quotes, backslash escapes; no expansions),
 * or undefined when the quoting does not close.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellWords } from "./command.ts";
 * assert.deepEqual(shellWords(`a 'b c' "d\\"e" f\\ g`), ["a", "b c", 'd"e', "f g"]);
 * assert.equal(shellWords("'open"), undefined);
 * ```
 */
export function shellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= "";
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length && '"\\$`\n'.includes(text[j + 1])) j++;
        word += text[j];
      }
      if (j >= text.length) return undefined;
      i = j;
    } else if (c === "\\") {
      if (i + 1 >= text.length) return undefined;
      word = (word ?? "") + text[++i];
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The arguments of a reproduction command. */
export interface ReproductionParts {
  scenario: string;
  /** The candidate for a comparative run. */
  substrate: string;
  /** Present for a comparative run. */
  baseline?: BaselineOption;
}

/**
 * Read `empiric run <scenario> --substrate <substrate>` back into its arguments, unquoted; a
 * record written before quoting has its substrate as the raw rest of the line. Undefined when
 * the text is not such a command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseReproductionCommand } from "./command.ts";
 * assert.deepEqual(
 *   parseReproductionCommand("empiric run latency --substrate 'cmd:python3 s.py'"),
 *   { scenario: "latency", substrate: "cmd:python3 s.py" },
 * );
 * assert.deepEqual(
 *   parseReproductionCommand("empiric run latency --substrate cmd:python3 s.py"),
 *   { scenario: "latency", substrate: "cmd:python3 s.py" },
 * );
 * assert.deepEqual(
 *   parseReproductionCommand("empiric run t --substrate cmd:./new --baseline 0af3"),
 *   { scenario: "t", substrate: "cmd:./new", baseline: { option: "--baseline", value: "0af3" } },
 * );
 * assert.equal(parseReproductionCommand("make test"), undefined);
 * ```
 */
export function parseReproductionCommand(command: string): ReproductionParts | undefined {
  const words = shellWords(command);
  if (
    words && (words.length === 5 || words.length === 7) && words[0] === "empiric" &&
    words[1] === "run" && words[3] === "--substrate"
  ) {
    if (words.length === 5) return { scenario: words[2], substrate: words[4] };
    const option = words[5];
    if (option === "--baseline-substrate" || option === "--baseline") {
      return {
        scenario: words[2],
        substrate: words[4],
        baseline: { option, value: words[6] },
      };
    }
  }
  // Before quoting: `empiric run NAME --substrate REST OF LINE`.
  const m = /^empiric run (\S+) --substrate (.+)$/s.exec(command);
  return m ? { scenario: m[1], substrate: m[2] } : undefined;
}

/**
 * The scenario's declared name: the command's scenario argument when it is a name; when it is
 * a path (it holds a `/` or ends in `.yaml`, `.yml` or `.json`), the label of the provenance
 * graph's scenario entity (`empiric:scenario/<name>`). Undefined when neither says.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { declaredScenarioName } from "./command.ts";
 * const record = {
 *   reproduction: { command: "empiric run scenarios/t.yaml --substrate builtin:echo" },
 *   provenance: { entity: { "empiric:scenario/tickets": { "prov:label": "tickets" } } },
 * };
 * assert.equal(declaredScenarioName(record), "tickets");
 * assert.equal(
 *   declaredScenarioName({ reproduction: { command: "empiric run echo --substrate builtin:echo" } }),
 *   "echo",
 * );
 * ```
 */
export function declaredScenarioName(record: unknown): string | undefined {
  const r = record as {
    reproduction?: { command?: unknown };
    provenance?: { entity?: Record<string, unknown> };
  } | null;
  const command = r?.reproduction?.command;
  const argument = typeof command === "string"
    ? parseReproductionCommand(command)?.scenario
    : undefined;
  if (argument !== undefined && !isPath(argument)) return argument;
  const entities = r?.provenance?.entity;
  if (entities && typeof entities === "object") {
    for (const id of Object.keys(entities)) {
      if (id.startsWith("empiric:scenario/")) return id.slice("empiric:scenario/".length);
    }
  }
  return argument;
}

/** Whether a scenario argument names a file rather than a scenario. */
function isPath(argument: string): boolean {
  return argument.includes("/") || /\.(ya?ml|json)$/i.test(argument);
}
