/**
 * Observations from elsewhere: results people already produce with hyperfine, pytest-benchmark,
 * k6 or plain JSON Lines, read into the outcomes of a run, so that a pre-registered claim judges
 * them exactly as it judges a run (docs/importers.md has each mapping).
 *
 * Each measured value becomes one item: its answer (what metric pointers read) and its elapsed
 * time (what `latency_ms` metrics take); a failed run or request is a failed item (intention to
 * treat: it counts, censored at no less than the scenario's `timeout_ms` for latency quantiles).
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue, toNumber } from "../json/value.ts";
import { isInt } from "../json/value.ts";
import type { CallOutcome } from "./observation.ts";

/** The formats `run --from` reads. */
export const IMPORT_FORMATS = ["hyperfine", "pytest-benchmark", "k6", "jsonl"] as const;

/** A format `run --from` reads. */
export type ImportFormat = typeof IMPORT_FORMATS[number];

/** What an import gives the run. */
export interface Imported {
  /** One outcome per measured value, in file order. */
  outcomes: CallOutcome[];
  /** The item each metric's `reference` pointer reads (the line, for JSON Lines). */
  items: JsonObject[];
  /** The substrate's name: the command, benchmark or metric measured. */
  substrateName: string;
}

const num = (v: JsonValue | undefined): number | undefined =>
  typeof v === "number" || (v !== undefined && isInt(v)) ? toNumber(v) : undefined;

function bad(format: string, name: string, message: string): UsageError {
  return new UsageError(`${name} (${format}): ${message}`);
}

function parseWhole(format: string, name: string, bytes: Uint8Array): JsonValue {
  try {
    return parseJson(bytes);
  } catch (e) {
    throw bad(format, name, `not JSON: ${(e as Error).message}`);
  }
}

function choose<T>(
  format: string,
  name: string,
  entries: T[],
  label: (e: T) => string[],
  what: string,
  select?: string,
): T {
  if (entries.length === 0) throw bad(format, name, `has no ${what}s`);
  if (select !== undefined) {
    const hit = entries.find((e) => label(e).includes(select));
    if (!hit) {
      throw bad(
        format,
        name,
        `has no ${what} ${JSON.stringify(select)}; it has ${
          entries.map((e) => JSON.stringify(label(e)[0])).join(", ")
        }`,
      );
    }
    return hit;
  }
  if (entries.length > 1) {
    throw bad(
      format,
      name,
      `has ${entries.length} ${what}s (${
        entries.map((e) => JSON.stringify(label(e)[0])).join(", ")
      }): pick one with --select`,
    );
  }
  return entries[0];
}

/** hyperfine `--export-json`: one item per run of the chosen command. */
function hyperfine(bytes: Uint8Array, name: string, select?: string): Imported {
  const doc = parseWhole("hyperfine", name, bytes);
  const results = isJsonObject(doc) && Array.isArray(doc.results) ? doc.results : undefined;
  if (!results) throw bad("hyperfine", name, "is not hyperfine JSON (no results array)");
  const r = choose(
    "hyperfine",
    name,
    results.filter(isJsonObject),
    (e) => [String(e.command), ...(typeof e.name === "string" ? [e.name] : [])],
    "command",
    select,
  );
  const times = Array.isArray(r.times) ? r.times : undefined;
  if (!times) {
    throw bad("hyperfine", name, "the result has no times (export with hyperfine 1.12 or later)");
  }
  const codes = Array.isArray(r.exit_codes) ? r.exit_codes : undefined;
  const outcomes: CallOutcome[] = times.map((t, i) => {
    const s = num(t);
    if (s === undefined || !(s >= 0)) {
      throw bad("hyperfine", name, `times[${i}] is not a non-negative number`);
    }
    const code = codes === undefined ? 0 : num(codes[i]);
    const ok = code === 0;
    return {
      index: i,
      id: `run-${i + 1}`,
      ok,
      result: { time_s: s, exit_code: code === undefined ? null : BigInt(code) },
      ...(ok ? {} : {
        failure: { kind: "error", message: `exit code ${code === undefined ? "unknown" : code}` },
      }),
      attempts: 1,
      elapsed_ms: s * 1000,
    };
  });
  return { outcomes, items: outcomes.map(() => ({})), substrateName: String(r.command) };
}

/** pytest-benchmark `--benchmark-json`: one item per round of the chosen benchmark. */
function pytestBenchmark(bytes: Uint8Array, name: string, select?: string): Imported {
  const doc = parseWhole("pytest-benchmark", name, bytes);
  const list = isJsonObject(doc) && Array.isArray(doc.benchmarks) ? doc.benchmarks : undefined;
  if (!list) throw bad("pytest-benchmark", name, "is not pytest-benchmark JSON (no benchmarks)");
  const b = choose(
    "pytest-benchmark",
    name,
    list.filter(isJsonObject),
    (e) => [String(e.fullname ?? e.name), String(e.name)],
    "benchmark",
    select,
  );
  const stats = isJsonObject(b.stats) ? b.stats : {};
  const data = Array.isArray(stats.data) ? stats.data : undefined;
  if (!data) {
    throw bad(
      "pytest-benchmark",
      name,
      "the benchmark has no per-round data (stats.data); write it with --benchmark-json (pytest-benchmark 3.0 or later) or --benchmark-save-data",
    );
  }
  const outcomes: CallOutcome[] = data.map((t, i) => {
    const s = num(t);
    if (s === undefined || !(s >= 0)) {
      throw bad("pytest-benchmark", name, `stats.data[${i}] is not a non-negative number`);
    }
    return {
      index: i,
      id: `round-${i + 1}`,
      ok: true,
      result: { time_s: s },
      attempts: 1,
      elapsed_ms: s * 1000,
    };
  });
  return {
    outcomes,
    items: outcomes.map(() => ({})),
    substrateName: String(b.fullname ?? b.name),
  };
}

/** k6 `--out json=FILE` (JSON Lines of points): one item per point of the chosen metric. */
function k6(bytes: Uint8Array, name: string, select?: string): Imported {
  const text = new TextDecoder().decode(bytes);
  const metric = select ?? "http_req_duration";
  const outcomes: CallOutcome[] = [];
  let whole: JsonValue | undefined;
  try {
    whole = parseJson(bytes);
  } catch {
    whole = undefined; // JSON Lines, as expected
  }
  if (isJsonObject(whole) && isJsonObject(whole.metrics) && whole.type === undefined) {
    throw bad(
      "k6",
      name,
      "is a k6 summary (--summary-export or handleSummary): it holds aggregates only, and a claim is judged on every request; write the requests with k6 run --out json=FILE",
    );
  }
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    let v: JsonValue;
    try {
      v = parseJson(lines[i]);
    } catch (e) {
      throw bad("k6", name, `line ${i + 1} is not JSON: ${(e as Error).message}`);
    }
    if (!isJsonObject(v) || v.type !== "Point" || v.metric !== metric) continue;
    const data = isJsonObject(v.data) ? v.data : {};
    const value = num(data.value);
    if (value === undefined || !(value >= 0)) {
      throw bad("k6", name, `line ${i + 1}: the point's data.value is not a non-negative number`);
    }
    const tags = isJsonObject(data.tags) ? data.tags : {};
    const ok = tags.expected_response !== "false";
    const n = outcomes.length;
    outcomes.push({
      index: n,
      id: `${metric}-${n + 1}`,
      ok,
      result: { value, tags },
      ...(ok ? {} : {
        failure: {
          kind: "http_error",
          message: `unexpected response${typeof tags.status === "string" ? ` ${tags.status}` : ""}`,
        },
      }),
      attempts: 1,
      elapsed_ms: value,
    });
  }
  if (outcomes.length === 0) {
    throw bad("k6", name, `has no points of metric ${metric} (--select picks another metric)`);
  }
  return { outcomes, items: outcomes.map(() => ({})), substrateName: `k6 ${metric}` };
}

/** Plain JSON Lines: each line one item's answer, with optional id, ok, failure, latency_ms. */
function jsonl(bytes: Uint8Array, name: string): Imported {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const outcomes: CallOutcome[] = [];
  const items: JsonObject[] = [];
  lines.forEach((line, i) => {
    let v: JsonValue;
    try {
      v = parseJson(line);
    } catch (e) {
      throw bad("jsonl", name, `line ${i + 1} is not JSON: ${(e as Error).message}`);
    }
    if (!isJsonObject(v)) throw bad("jsonl", name, `line ${i + 1} is not an object`);
    if (v.ok !== undefined && typeof v.ok !== "boolean") {
      throw bad("jsonl", name, `line ${i + 1}: ok must be true or false`);
    }
    const latency = v.latency_ms === undefined ? 0 : num(v.latency_ms);
    if (latency === undefined || !(latency >= 0)) {
      throw bad("jsonl", name, `line ${i + 1}: latency_ms must be a non-negative number`);
    }
    const ok = v.ok !== false;
    const reason = typeof v.failure === "string"
      ? v.failure
      : isJsonObject(v.failure) && typeof v.failure.message === "string"
      ? v.failure.message
      : "failed";
    outcomes.push({
      index: i,
      id: typeof v.id === "string" ? v.id : `#${i + 1}`,
      ok,
      result: v,
      ...(ok ? {} : { failure: { kind: "error", message: reason } }),
      attempts: 1,
      elapsed_ms: latency,
    });
    items.push(v);
  });
  return { outcomes, items, substrateName: name };
}

/**
 * Read a results file of one of the {@link IMPORT_FORMATS}. `select` picks the command
 * (hyperfine), benchmark (pytest-benchmark) or metric (k6) when the file has several.
 * Throws `usage_error` naming the file and what is wrong.
 *
 * @example
 * ```ts
 * import { importResults } from "./import.ts";
 * import assert from "node:assert/strict";
 * const json = '{"results":[{"command":"sleep 0.5","times":[0.5,0.25],"exit_codes":[0,1]}]}';
 * const r = importResults("hyperfine", new TextEncoder().encode(json), "bench.json");
 * assert.equal(r.substrateName, "sleep 0.5");
 * assert.deepEqual(r.outcomes.map((o) => [o.ok, o.elapsed_ms]), [[true, 500], [false, 250]]);
 * ```
 */
export function importResults(
  format: ImportFormat,
  bytes: Uint8Array,
  name: string,
  select?: string,
): Imported {
  switch (format) {
    case "hyperfine":
      return hyperfine(bytes, name, select);
    case "pytest-benchmark":
      return pytestBenchmark(bytes, name, select);
    case "k6":
      return k6(bytes, name, select);
    case "jsonl":
      if (select !== undefined) throw new UsageError("--select does not apply to --from jsonl");
      return jsonl(bytes, name);
  }
}
