/**
 * The parts of a record's `reproduction.command`: `empiric run <scenario> --substrate <substrate>`,
 * and for a comparative record a trailing ` --baseline-substrate <spec>` or ` --baseline <proof_id>`.
 * A `cmd:` substrate may contain any text, so the baseline suffix is recognized only when the
 * record's own `baseline` dataset names exactly that baseline (its `source` is `substrate <spec>`
 * or `proof <proof_id>`): the split is never a guess.
 *
 * @module
 */
import { isJsonObject, type JsonValue } from "../json/value.ts";

const COMMAND = /^empiric run (\S+) --substrate (.+)$/s;

/** What a run command names. */
export interface RunCommandParts {
  scenario: string;
  /** The candidate (`--substrate`). */
  substrate: string;
  /** The baseline option as given, or null for a plain run. */
  baseline: { option: "--baseline-substrate" | "--baseline"; value: string } | null;
}

/** The `source` of a record's `baseline` dataset, if it has one. */
export function baselineSourceOf(record: JsonValue | Record<string, unknown>): string | undefined {
  const rec = record as JsonValue;
  if (!isJsonObject(rec) || !isJsonObject(rec.data) || !Array.isArray(rec.data.datasets)) {
    return undefined;
  }
  const d = rec.data.datasets.find((x) => isJsonObject(x) && x.kind === "baseline");
  return isJsonObject(d) && typeof d.source === "string" ? d.source : undefined;
}

/**
 * Split a run command; `baselineSource` is the record's baseline dataset `source` (if any).
 * Returns undefined when the command does not have the documented form.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitRunCommand } from "./command.ts";
 * assert.deepEqual(splitRunCommand("empiric run s --substrate builtin:echo"), {
 *   scenario: "s",
 *   substrate: "builtin:echo",
 *   baseline: null,
 * });
 * const c = "empiric run s --substrate cmd:a --baseline-substrate cmd:b";
 * assert.equal(splitRunCommand(c, "substrate cmd:b")?.substrate, "cmd:a");
 * // Without the record's word for it, the suffix is part of the substrate.
 * assert.equal(splitRunCommand(c)?.substrate, "cmd:a --baseline-substrate cmd:b");
 * ```
 */
export function splitRunCommand(
  command: string,
  baselineSource?: string,
): RunCommandParts | undefined {
  const m = COMMAND.exec(command);
  if (!m) return undefined;
  let substrate = m[2];
  let baseline: RunCommandParts["baseline"] = null;
  if (baselineSource !== undefined) {
    const [what, ...rest] = baselineSource.split(" ");
    const value = rest.join(" ");
    const option = what === "substrate"
      ? "--baseline-substrate"
      : what === "proof"
      ? "--baseline"
      : undefined;
    const suffix = option ? ` ${option} ${value}` : undefined;
    if (option && suffix && value !== "" && substrate.endsWith(suffix)) {
      substrate = substrate.slice(0, -suffix.length);
      baseline = { option, value };
    }
  }
  return { scenario: m[1], substrate, baseline };
}

/** Split a record's run command, using its baseline dataset to find the baseline suffix. */
export function runCommandOf(
  record: JsonValue | Record<string, unknown>,
): RunCommandParts | undefined {
  const rec = record as JsonValue;
  if (!isJsonObject(rec) || !isJsonObject(rec.reproduction)) return undefined;
  const command = rec.reproduction.command;
  return typeof command === "string" ? splitRunCommand(command, baselineSourceOf(rec)) : undefined;
}
