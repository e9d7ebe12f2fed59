/**
 * Load and validate scenario files (YAML or JSON) and their datasets. Problems are reported
 * with the JSON pointer and, for YAML, the line and column in the file.
 *
 * @module
 */
import { isSeq, LineCounter, parseDocument } from "yaml";
import { type Problem, ScenarioError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/value.ts";
import { canonicalize } from "../json/canonical.ts";
import { getPointer } from "../json/pointer.ts";
import { sha256Hex } from "../crypto/hash.ts";
import { compileTypedValidator, type TypedValidator } from "../schema/validate.ts";
import scenarioSchema from "./scenario.schema.json" with { type: "json" };
import type { LoadedDataset, PillarSpec, Scenario } from "./types.ts";
import { COMPARISON_METHODS_FOR, comparisonMethodProblem } from "../stats/compare_methods.ts";

/** The scenario JSON Schema (draft 2020-12). */
export const SCENARIO_SCHEMA: typeof scenarioSchema = scenarioSchema;

let validator: TypedValidator | undefined;

function pointerPath(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * Parse scenario text (YAML 1.2 core schema, or JSON) into a typed value: ints are `bigint`,
 * floats `number`; duplicate keys and custom tags are rejected.
 */
export function parseScenarioText(
  text: string,
  path: string,
): { value: JsonValue; locate: (pointer: string) => string } {
  if (path.endsWith(".json")) {
    try {
      return { value: parseJson(text), locate: () => "" };
    } catch (e) {
      throw new ScenarioError("scenario_invalid", `${path}: ${(e as Error).message}`, { cause: e });
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    intAsBigInt: true,
    uniqueKeys: true,
    lineCounter,
    schema: "core",
    prettyErrors: false,
  });
  const errors = [...doc.errors, ...doc.warnings];
  if (errors.length > 0) {
    const seen = new Set<string>();
    const problems: Problem[] = [];
    for (const e of errors) {
      const lp = lineCounter.linePos(e.pos[0]);
      const message = `${path}:${lp.line}:${lp.col}: ${e.message.split("\n")[0]}`;
      if (seen.has(message)) continue;
      seen.add(message);
      problems.push({
        code: "scenario_invalid",
        message,
        position: { offset: e.pos[0], line: lp.line, column: lp.col },
      });
    }
    throw new ScenarioError("scenario_invalid", problems.map((p) => p.message).join("\n"), {
      problems,
    });
  }
  const locate = (pointer: string): string => {
    const segs = pointerPath(pointer);
    // walk to the deepest existing node
    for (let n = segs.length; n >= 0; n--) {
      const node = doc.getIn(
        segs.slice(0, n).map((s) =>
          /^\d+$/.test(s) && isSeqAt(doc, segs.slice(0, n - 1)) ? Number(s) : s
        ),
        true,
      ) as
        | { range?: [number, number, number] }
        | undefined;
      if (node && typeof node === "object" && node.range) {
        const lp = lineCounter.linePos(node.range[0]);
        return `:${lp.line}:${lp.col}`;
      }
    }
    return "";
  };
  return { value: toTyped(doc.toJS({ maxAliasCount: 100 })), locate };
}

function isSeqAt(doc: ReturnType<typeof parseDocument>, path: string[]): boolean {
  const node = path.length === 0
    ? doc.contents
    : doc.getIn(path.map((s) => (/^\d+$/.test(s) ? Number(s) : s)), true);
  return isSeq(node);
}

function toTyped(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (
    typeof v === "bigint" || typeof v === "string" || typeof v === "boolean" ||
    typeof v === "number"
  ) return v;
  if (Array.isArray(v)) return v.map(toTyped);
  if (v instanceof Date) return v.toISOString();
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toTyped(x);
  return out;
}

const num = (v: unknown, d: number): number => (v === undefined ? d : Number(v));

/**
 * Validate a parsed scenario value and apply defaults.
 *
 * @example
 * ```ts ignore
 * const scenario = normalizeScenario(value, "s.yaml", () => "");
 * ```
 */
export function normalizeScenario(
  value: JsonValue,
  path: string,
  locate: (pointer: string) => string,
): Scenario {
  validator ??= compileTypedValidator(scenarioSchema, "scenario_invalid");
  const problems = validator(value).map((p) => ({
    ...p,
    message: `${path}${locate(p.pointer ?? "")}: ${p.message}`,
  }));
  if (problems.length > 0) {
    throw new ScenarioError("scenario_invalid", problems.map((p) => p.message).join("\n"), {
      problems,
    });
  }
  // deno-lint-ignore no-explicit-any
  const v = value as Record<string, any>; // shape checked by the schema above
  const a = v.analysis ?? {};
  const p = v.probe ?? {};
  const scenario: Scenario = {
    name: v.name,
    title: v.title ?? v.name,
    description: v.description ?? "",
    ...(v.default_substrate ? { default_substrate: v.default_substrate } : {}),
    claim: {
      statement: v.claim.statement,
      operationalization: v.claim.operationalization,
      threshold: { ...v.claim.threshold },
      h0: v.claim.h0,
      h1: v.claim.h1,
    },
    datasets: v.datasets.map((d: Record<string, unknown>) => ({ ...d })),
    probe: {
      send: p.send ?? "",
      timeout_ms: num(p.timeout_ms, 10_000),
      retries: num(p.retries, 0),
      concurrency: num(p.concurrency, 1),
      warmup_items: num(p.warmup_items, 0),
      ...(p.arrival_rate === undefined ? {} : { arrival_rate: Number(p.arrival_rate) }),
    },
    metrics: Object.fromEntries(
      Object.entries(v.metrics as Record<string, Record<string, unknown>>).map((
        [k, m],
      ) => [k, { ...m }]),
    ) as unknown as Scenario["metrics"],
    analysis: {
      confidence: num(a.confidence, 0.95),
      resamples: num(a.resamples, 2000),
      seed: num(a.seed, 0),
      min_n: num(a.min_n, 30),
      max_failure_rate: num(a.max_failure_rate, 0.05),
      decision: a.decision ?? "interval",
      on_failure: a.on_failure ?? "inconclusive",
      ...(a.comparison ? { comparison: { kind: a.comparison.kind } } : {}),
      pillars: (a.pillars as Record<string, unknown>[]).map((x) => ({
        ...x,
        ...(x.p === undefined ? {} : { p: Number(x.p) }),
        interval: (x.interval as PillarSpec["interval"]) ??
          defaultInterval(x.statistic as PillarSpec["statistic"], a.comparison !== undefined),
      })) as PillarSpec[],
    },
  };
  const semantic = checkSemantics(scenario).map((s) => ({
    code: "scenario_invalid" as const,
    message: `${path}${locate(s.pointer)}: ${s.pointer} ${s.message}`,
    pointer: s.pointer,
  }));
  if (semantic.length > 0) {
    throw new ScenarioError("scenario_invalid", semantic.map((p) => p.message).join("\n"), {
      problems: semantic,
    });
  }
  return scenario;
}

/**
 * The default interval per statistic: the method that holds its level (docs/statistics.md); for
 * comparative claims the first of `COMPARISON_METHODS_FOR`.
 */
function defaultInterval(s: PillarSpec["statistic"], comparison: boolean): PillarSpec["interval"] {
  if (comparison) return COMPARISON_METHODS_FOR[s][0];
  return s === "proportion" ? "clopper_pearson" : s === "mean" ? "t" : "order_statistic";
}

/** Cross-field rules the JSON Schema cannot express. */
export function checkSemantics(s: Scenario): { pointer: string; message: string }[] {
  const out: { pointer: string; message: string }[] = [];
  const names = new Set<string>();
  const comparison = s.analysis.comparison;
  s.analysis.pillars.forEach((p, i) => {
    const at = `/analysis/pillars/${i}`;
    if (comparison) {
      const statistic = p.statistic === "quantile"
        ? { kind: "quantile" as const, p: p.p ?? 0.5 }
        : { kind: p.statistic };
      const problem = comparisonMethodProblem(statistic, comparison.kind, p.interval);
      if (problem) out.push({ pointer: `${at}/interval`, message: problem });
    } else if (p.interval === "mcnemar") {
      out.push({
        pointer: `${at}/interval`,
        message:
          "mcnemar compares a candidate with a baseline: it needs analysis.comparison (kind difference)",
      });
    }
    if (names.has(p.name)) {
      out.push({ pointer: `${at}/name`, message: `pillar ${p.name} is declared twice` });
    }
    names.add(p.name);
    const m = s.metrics[p.metric];
    if (!m) {
      out.push({
        pointer: `${at}/metric`,
        message: `names metric "${p.metric}", which is not declared under /metrics`,
      });
      return;
    }
    if (p.statistic === "quantile" && p.p === undefined) {
      out.push({ pointer: `${at}/p`, message: "is required for statistic quantile" });
    }
    if (p.statistic !== "quantile" && p.p !== undefined) {
      out.push({ pointer: `${at}/p`, message: "applies only to statistic quantile" });
    }
    if (p.statistic === "proportion" && m.kind !== "success" && m.kind !== "exact_match") {
      out.push({
        pointer: `${at}/statistic`,
        message:
          `proportion needs a 0/1 metric (success or exact_match); "${p.metric}" is ${m.kind}`,
      });
    }
    if (
      (p.interval === "wilson" || p.interval === "clopper_pearson" || p.interval === "mcnemar") &&
      p.statistic !== "proportion"
    ) {
      out.push({
        pointer: `${at}/interval`,
        message: `${p.interval} applies only to statistic proportion`,
      });
    }
    if ((p.interval === "t" || p.interval === "bounded") && p.statistic !== "mean") {
      out.push({
        pointer: `${at}/interval`,
        message: `${p.interval} applies only to statistic mean`,
      });
    }
    if (
      p.interval === "order_statistic" && p.statistic !== "quantile" && p.statistic !== "median"
    ) {
      out.push({
        pointer: `${at}/interval`,
        message: "order_statistic applies only to statistics quantile and median",
      });
    }
    if (p.interval === "bounded" && m.range === undefined) {
      out.push({
        pointer: `${at}/interval`,
        message:
          `bounded needs a range [lo, hi] on metric ${p.metric} (every value must lie in it)`,
      });
    }
    const numeric = m.kind === "abs_error" || m.kind === "reported" ||
      (m.kind === "latency_ms" && p.statistic === "mean");
    if (s.analysis.on_failure === "worst" && numeric && m.worst === undefined) {
      out.push({
        pointer: `/metrics/${p.metric}`,
        message:
          `needs a worst value: on_failure is worst, and pillar ${p.name} cannot otherwise count failed items`,
      });
    }
  });
  for (const [name, m] of Object.entries(s.metrics)) {
    const at = `/metrics/${name}`;
    if (
      (m.kind === "exact_match" || m.kind === "abs_error") &&
      (m.output === undefined || m.reference === undefined)
    ) {
      out.push({ pointer: at, message: `${m.kind} needs both output and reference pointers` });
    }
    if (m.kind === "reported" && m.output === undefined) {
      out.push({ pointer: at, message: "reported needs an output pointer" });
    }
    if (m.range !== undefined && !(m.range[0] < m.range[1])) {
      out.push({ pointer: `${at}/range`, message: "must be [lo, hi] with lo < hi" });
    }
  }
  const t = s.claim.threshold;
  if (t.comparator === "within") {
    if (!comparison) {
      out.push({
        pointer: "/claim/threshold/comparator",
        message:
          "within (|difference| <= value) compares a candidate with a baseline: it needs analysis.comparison",
      });
    }
    if (!(Number(t.value) >= 0)) {
      out.push({
        pointer: "/claim/threshold/value",
        message: "must be at least 0 for within (the largest |difference| or |ratio − 1| allowed)",
      });
    }
  }
  if (!names.has(s.claim.threshold.metric)) {
    out.push({
      pointer: "/claim/threshold/metric",
      message: `must name one of the pillars (${
        [...names].join(", ")
      }); the verdict is decided on that pillar`,
    });
  }
  s.datasets.forEach((d, i) => {
    if (d.name === "observations") {
      out.push({
        pointer: `/datasets/${i}/name`,
        message:
          "observations is reserved: it names the record's own observations file (docs/record.md)",
      });
    }
    if ((d.path === undefined) === (d.url === undefined)) {
      out.push({ pointer: `/datasets/${i}`, message: "needs exactly one of path or url" });
    }
    if (d.kind === "reference" && !d.join) {
      out.push({
        pointer: `/datasets/${i}/join`,
        message: "is required for a reference dataset (the item field that joins it to the corpus)",
      });
    }
  });
  return out;
}

const INT_FIELDS = new Set([
  "timeout_ms",
  "retries",
  "concurrency",
  "warmup_items",
  "resamples",
  "seed",
  "min_n",
]);

/**
 * The scenario as a typed value for hashing: integer settings are ints, the rest as given. Fields
 * added after the first scenario format (`analysis.on_failure`) are left out at their default, so
 * a file written for the older format keeps its config_hash unless a default it relied on changed.
 */
export function scenarioValue(s: Scenario): JsonValue {
  if (s.analysis.on_failure === "inconclusive") {
    const { on_failure: _default, ...analysis } = s.analysis;
    s = { ...s, analysis: analysis as Scenario["analysis"] };
  }
  const conv = (v: unknown, key = ""): JsonValue => {
    if (typeof v === "number" && INT_FIELDS.has(key)) return BigInt(v);
    if (Array.isArray(v)) return v.map((x) => conv(x));
    if (v !== null && typeof v === "object" && !(typeof v === "bigint")) {
      const o: JsonObject = {};
      for (const [k, x] of Object.entries(v as object)) if (x !== undefined) o[k] = conv(x, k);
      return o;
    }
    return v as JsonValue;
  };
  return conv(s);
}

/**
 * config_hash: SHA-256 of the canonical form of the normalized scenario (defaults applied), so
 * two files that differ only in omitted defaults or layout have the same hash.
 */
export async function configHash(s: Scenario): Promise<string> {
  return await sha256Hex(new TextEncoder().encode(canonicalize(scenarioValue(s))));
}

/**
 * Parse a dataset's bytes: JSON Lines (one object per line) or a JSON array of objects.
 */
export function parseDatasetItems(bytes: Uint8Array, name: string, path: string): JsonObject[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (e) {
    throw new ScenarioError("dataset_invalid", `dataset ${name} (${path}) is not UTF-8 text`, {
      cause: e,
    });
  }
  const items: JsonObject[] = [];
  if (path.endsWith(".json")) {
    let v: JsonValue;
    try {
      v = parseJson(text);
    } catch (e) {
      throw new ScenarioError(
        "dataset_invalid",
        `dataset ${name} (${path}): ${(e as Error).message}`,
        { cause: e },
      );
    }
    if (!Array.isArray(v) || !v.every(isJsonObject)) {
      throw new ScenarioError(
        "dataset_invalid",
        `dataset ${name} (${path}) must be a JSON array of objects`,
      );
    }
    return v as JsonObject[];
  }
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let v: JsonValue;
    try {
      v = parseJson(line);
    } catch (e) {
      throw new ScenarioError(
        "dataset_invalid",
        `dataset ${name} (${path}) line ${i + 1}: ${(e as Error).message}`,
        { cause: e },
      );
    }
    if (!isJsonObject(v)) {
      throw new ScenarioError(
        "dataset_invalid",
        `dataset ${name} (${path}) line ${i + 1}: each line must be a JSON object`,
      );
    }
    items.push(v);
  }
  return items;
}

/** Read access to the files a scenario refers to (real files, or the embedded built-ins). */
export interface ScenarioFiles {
  /** Read a file; paths are as resolved by {@link resolveRelative}. */
  readFile(path: string): Promise<Uint8Array>;
  /** Fetch a URL dataset. */
  fetch?: (url: string) => Promise<Uint8Array>;
}

/** Resolve a path relative to the directory of another file (POSIX-style separators). */
export function resolveRelative(base: string, rel: string): string {
  if (rel.startsWith("/") || /^[A-Za-z]:[\\/]/.test(rel)) return rel;
  const parts = base.split("/");
  parts.pop();
  for (const seg of rel.split("/")) {
    if (seg === "..") {
      if (parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
      else parts.push("..");
    } else if (seg !== "." && seg !== "") parts.push(seg);
  }
  return parts.join("/") || ".";
}

/** Load every dataset of a scenario: bytes, content hash, items. */
export async function loadDatasets(
  s: Scenario,
  scenarioPath: string,
  files: ScenarioFiles,
): Promise<LoadedDataset[]> {
  const out: LoadedDataset[] = [];
  for (const spec of s.datasets) {
    let bytes: Uint8Array;
    let where: string;
    if (spec.url) {
      where = spec.url;
      if (!files.fetch) {
        throw new ScenarioError(
          "dataset_invalid",
          `dataset ${spec.name}: cannot fetch ${spec.url} here`,
        );
      }
      try {
        bytes = await files.fetch(spec.url);
      } catch (e) {
        throw new ScenarioError(
          "dataset_invalid",
          `dataset ${spec.name}: cannot fetch ${spec.url}: ${(e as Error).message}`,
          { cause: e },
        );
      }
    } else {
      where = resolveRelative(scenarioPath, spec.path!);
      try {
        bytes = await files.readFile(where);
      } catch (e) {
        throw new ScenarioError(
          "dataset_invalid",
          `dataset ${spec.name}: cannot read ${where}: ${(e as Error).message}`,
          { cause: e },
        );
      }
    }
    const items = parseDatasetItems(bytes, spec.name, where);
    if (spec.kind === "corpus" || spec.kind === "synthetic") {
      requireProbeInput(items, s.probe.send, spec.name, where);
    }
    out.push({
      spec,
      bytes,
      content_hash: await sha256Hex(bytes as Uint8Array<ArrayBuffer>),
      items,
      source: spec.source ?? spec.url ??
        (scenarioPath.startsWith("builtin:") ? `builtin:${where}` : where),
    });
  }
  return out;
}

/**
 * Every corpus item must hold the probe's input (`probe.send`): an item without it is a
 * dataset error before anything runs, not a failure measured against the substrate.
 */
function requireProbeInput(
  items: readonly JsonObject[],
  pointer: string,
  name: string,
  where: string,
): void {
  // A pointer into the joined reference data can only be checked after the join.
  if (pointer.startsWith("/$reference")) return;
  const missing: string[] = [];
  items.forEach((item, i) => {
    if (getPointer(item, pointer) === undefined) {
      const id = typeof item.id === "string" || typeof item.id === "bigint"
        ? ` (id ${item.id})`
        : "";
      missing.push(`item ${i + 1}${id}`);
    }
  });
  if (missing.length === 0) return;
  const shown = missing.slice(0, 5).join(", ") +
    (missing.length > 5 ? `, … (${missing.length} in all)` : "");
  throw new ScenarioError(
    "dataset_invalid",
    `dataset ${name} (${where}): ${shown} ${
      missing.length === 1 ? "has" : "have"
    } no ${pointer}, the probe's input (probe.send); fix the corpus or probe.send`,
  );
}

/**
 * data_hash: SHA-256 of the canonical list of `{name, content_hash}` of every dataset, in
 * declaration order.
 */
export async function dataHash(datasets: readonly LoadedDataset[]): Promise<string> {
  const list = datasets.map((d) => ({ name: d.spec.name, content_hash: d.content_hash }));
  return await sha256Hex(new TextEncoder().encode(canonicalize(list)));
}
