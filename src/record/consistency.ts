/**
 * Verdict consistency: does the recorded outcome follow from the deciding evidence, the
 * threshold and the recorded decision rule? Checked by every verifier, with or without a key
 * (docs/record.md, "Verdict consistency"), from the record alone: the deciding pillar's
 * `empiric:Pillar` entity in the provenance graph carries the rule and every number it decides
 * on, so no statistics are run.
 *
 * A record without pillar entities (made before they existed) cannot be checked: the result is
 * `skipped`, never a failure.
 *
 * @module
 */
import type { Problem } from "../errors/errors.ts";
import { canonicalize, jsonPointer } from "../json/canonical.ts";
import { isInt, isJsonObject, type JsonObject, type JsonValue, toNumber } from "../json/value.ts";

/** The result of {@link checkVerdictConsistency}. */
export interface ConsistencyResult {
  status: "pass" | "fail" | "skipped";
  /** Why the check was skipped (no pillar entities). */
  note?: string;
  /** The outcome the rule gives, when it could be computed. */
  outcome?: "VALIDATED" | "REFUTED" | "INCONCLUSIVE";
  problems: Problem[];
}

const OUTCOMES = ["VALIDATED", "REFUTED", "INCONCLUSIVE"] as const;
const COMPARATORS = ["<", "<=", ">", ">=", "within"];

function isPillar(entity: JsonValue): entity is JsonObject {
  if (!isJsonObject(entity)) return false;
  const t = entity["prov:type"];
  return t === "empiric:Pillar" || (isJsonObject(t) && t["$"] === "empiric:Pillar");
}

const isNumber = (v: JsonValue | undefined): v is number | bigint =>
  typeof v === "number" || (v !== undefined && isInt(v));

/** `x <comparator> t`. */
function satisfies(x: number, comparator: string, t: number): boolean {
  return comparator === "<"
    ? x < t
    : comparator === "<="
    ? x <= t
    : comparator === ">"
    ? x > t
    : x >= t;
}

/** The baseline side of a comparative claim, as the deciding pillar records it. */
export interface RuleBaseline {
  /** Items measured on the baseline (`empiric:baseline_n`). */
  n: number;
  /** Failed baseline items (`empiric:baseline_failed_items`). */
  failed: number;
  /** Censored values of the deciding pillar, candidate + baseline (a point rule cannot decide). */
  censored: number;
}

/**
 * The outcome the recorded rule gives from the deciding pillar's attributes, in the order of
 * docs/statistics.md ("The verdict"): nothing measured, too many failures, too few items (on
 * either side of a comparative claim), a pillar that cannot decide (`empiric:undecidable`; under
 * the interval rule also a refused or absent interval; under the point rule a comparison with
 * censored values), then the comparison of [deciding_low, deciding_high] with the threshold
 * (`within`: the whole of it inside [center − t, center + t] validates, all of it outside
 * refutes).
 *
 * @example
 * ```ts
 * import { ruleOutcome } from "./consistency.ts";
 * import assert from "node:assert/strict";
 * const base = { n: 200, failed: 0, min_n: 100, max_failure_rate: 0.0, rule: "interval",
 *   method: "clopper_pearson", comparator: ">=", threshold: 0.95, low: 0.96, high: 1.0 };
 * assert.equal(ruleOutcome(base), "VALIDATED");
 * assert.equal(ruleOutcome({ ...base, low: 0.9, high: 0.94 }), "REFUTED");
 * assert.equal(ruleOutcome({ ...base, failed: 1 }), "INCONCLUSIVE");
 * // A comparative equivalence claim: |ratio − 1| <= 0.05, decided on both sides.
 * const within = { ...base, method: "bootstrap_percentile", comparator: "within",
 *   threshold: 0.05, center: 1, low: 0.97, high: 1.04,
 *   baseline: { n: 200, failed: 0, censored: 0 } };
 * assert.equal(ruleOutcome(within), "VALIDATED");
 * assert.equal(ruleOutcome({ ...within, low: 1.06, high: 1.2 }), "REFUTED");
 * assert.equal(ruleOutcome({ ...within, baseline: { n: 50, failed: 0, censored: 0 } }), "INCONCLUSIVE");
 * ```
 */
export function ruleOutcome(a: {
  n: number;
  failed: number;
  min_n: number;
  max_failure_rate: number;
  rule: string;
  method: string;
  refused?: boolean;
  undecidable?: boolean;
  comparator: string;
  threshold: number;
  low: number;
  high: number;
  /** `within`: the center of the band (1 for a ratio, 0 for a difference). */
  center?: number;
  /** Comparative claims: the baseline side. */
  baseline?: RuleBaseline;
}): "VALIDATED" | "REFUTED" | "INCONCLUSIVE" {
  if (a.n === 0) return "INCONCLUSIVE";
  const b = a.baseline;
  if (b && b.n === 0) return "INCONCLUSIVE";
  if (b && b.failed / b.n > a.max_failure_rate) return "INCONCLUSIVE";
  if (b && b.n < a.min_n) return "INCONCLUSIVE";
  if (a.failed / a.n > a.max_failure_rate) return "INCONCLUSIVE";
  if (a.n < a.min_n) return "INCONCLUSIVE";
  if (a.rule === "interval" && (a.refused || a.method === "none")) return "INCONCLUSIVE";
  if (a.undecidable) return "INCONCLUSIVE";
  if (b && a.rule === "point" && b.censored > 0) return "INCONCLUSIVE";
  if (a.comparator === "within") {
    const c = a.center ?? 0;
    if (a.low >= c - a.threshold && a.high <= c + a.threshold) return "VALIDATED";
    if (a.low > c + a.threshold || a.high < c - a.threshold) return "REFUTED";
    return "INCONCLUSIVE";
  }
  const upper = a.comparator === "<" || a.comparator === "<=";
  if (satisfies(upper ? a.high : a.low, a.comparator, a.threshold)) return "VALIDATED";
  if (!satisfies(upper ? a.low : a.high, a.comparator, a.threshold)) return "REFUTED";
  return "INCONCLUSIVE";
}

/**
 * Check that a record's verdict follows from its deciding evidence, threshold and rule. Never
 * throws; the record need not have passed the schema (missing parts are problems).
 *
 * @example
 * ```ts
 * import { checkVerdictConsistency } from "./consistency.ts";
 * import assert from "node:assert/strict";
 * assert.equal(checkVerdictConsistency({ provenance: {} }).status, "skipped");
 * ```
 */
export function checkVerdictConsistency(record: JsonObject): ConsistencyResult {
  const prov = isJsonObject(record.provenance) ? record.provenance : {};
  const entities = isJsonObject(prov.entity) ? prov.entity : {};
  const pillars = Object.entries(entities).filter(([, e]) => isPillar(e)) as [
    string,
    JsonObject,
  ][];
  if (pillars.length === 0) {
    return {
      status: "skipped",
      note:
        "the record has no empiric:Pillar entities in its provenance (it was made before they were recorded), so its verdict cannot be checked against its evidence",
      problems: [],
    };
  }
  const problems: Problem[] = [];
  const fail = (message: string, pointer: string): ConsistencyResult => ({
    status: "fail",
    problems: [...problems, { code: "verdict_inconsistent", message, pointer }],
  });
  const deciding = pillars.filter(([, e]) => e["empiric:deciding"] === true);
  if (deciding.length !== 1) {
    return fail(
      `the provenance has ${deciding.length} deciding pillar entities (empiric:deciding true); a verdict is decided on exactly one`,
      "/provenance/entity",
    );
  }
  const [id, e] = deciding[0];
  const at = (attr: string) => jsonPointer(["provenance", "entity", id, attr]);
  const claim = isJsonObject(record.claim) ? record.claim : {};
  const threshold = isJsonObject(claim.threshold) ? claim.threshold : {};
  const verdict = isJsonObject(record.verdict) ? record.verdict : {};

  // The rule's members, with their types.
  const num = (attr: string): number | undefined => {
    const v = e[attr];
    return isNumber(v) ? toNumber(v) : undefined;
  };
  const int = (attr: string): number | undefined => {
    const v = e[attr];
    return v !== undefined && isInt(v) ? toNumber(v) : undefined;
  };
  const str = (attr: string): string | undefined =>
    typeof e[attr] === "string" ? e[attr] as string : undefined;
  const fields = {
    pillar: str("empiric:pillar"),
    method: str("empiric:method"),
    rule: str("empiric:decision_rule"),
    comparator: str("empiric:comparator"),
    outcome: str("empiric:outcome"),
    threshold: num("empiric:threshold"),
    n: int("empiric:n"),
    failed: int("empiric:failed_items"),
    min_n: int("empiric:min_n"),
    max_failure_rate: num("empiric:max_failure_rate"),
    estimate: num("empiric:estimate"),
    ci_low: num("empiric:ci_low"),
    ci_high: num("empiric:ci_high"),
    low: num("empiric:deciding_low"),
    high: num("empiric:deciding_high"),
  };
  const kind: Record<keyof typeof fields, [string, string]> = {
    pillar: ["pillar", "a string"],
    method: ["method", "a string"],
    rule: ["decision_rule", "a string"],
    comparator: ["comparator", "a string"],
    outcome: ["outcome", "a string"],
    threshold: ["threshold", "a number"],
    n: ["n", "an int"],
    failed: ["failed_items", "an int"],
    min_n: ["min_n", "an int"],
    max_failure_rate: ["max_failure_rate", "a number"],
    estimate: ["estimate", "a number"],
    ci_low: ["ci_low", "a number"],
    ci_high: ["ci_high", "a number"],
    low: ["deciding_low", "a number"],
    high: ["deciding_high", "a number"],
  };
  for (const [k, v] of Object.entries(fields) as [keyof typeof fields, unknown][]) {
    if (v === undefined) {
      const [name, what] = kind[k];
      return fail(
        `the deciding pillar entity ${id} lacks empiric:${name} (or it is not ${what}), so its verdict cannot be checked`,
        at(`empiric:${name}`),
      );
    }
  }
  const f = fields as { [K in keyof typeof fields]-?: NonNullable<typeof fields[K]> };
  if (f.rule !== "interval" && f.rule !== "point") {
    return fail(`unknown decision rule ${JSON.stringify(f.rule)}`, at("empiric:decision_rule"));
  }
  if (!COMPARATORS.includes(f.comparator)) {
    return fail(`unknown comparator ${JSON.stringify(f.comparator)}`, at("empiric:comparator"));
  }
  const optionalString = (attr: string) => e[attr] !== undefined && typeof e[attr] !== "string";
  for (const attr of ["empiric:refused", "empiric:undecidable"]) {
    if (optionalString(attr)) return fail(`${attr} must be a string`, at(attr));
  }
  const estimateHigh = e["empiric:estimate_high"];
  if (estimateHigh !== undefined && !isNumber(estimateHigh)) {
    return fail("empiric:estimate_high must be a number", at("empiric:estimate_high"));
  }
  // A comparative claim (empiric:comparison) is decided on both sides.
  let baseline: RuleBaseline | undefined;
  let center: number | undefined;
  if (e["empiric:comparison"] !== undefined) {
    const kind = e["empiric:comparison"];
    if (kind !== "ratio" && kind !== "difference") {
      return fail(
        `unknown comparison ${JSON.stringify(kind)} (ratio or difference)`,
        at("empiric:comparison"),
      );
    }
    const ints: Record<string, number> = {};
    for (
      const attr of [
        "empiric:baseline_n",
        "empiric:baseline_failed_items",
        "empiric:censored",
        "empiric:baseline_censored",
      ]
    ) {
      const v = int(attr);
      if (v === undefined) {
        return fail(
          `the deciding pillar entity ${id} compares with a baseline but lacks ${attr} (or it is not an int), so its verdict cannot be checked`,
          at(attr),
        );
      }
      ints[attr] = v;
    }
    baseline = {
      n: ints["empiric:baseline_n"],
      failed: ints["empiric:baseline_failed_items"],
      censored: ints["empiric:censored"] + ints["empiric:baseline_censored"],
    };
    if (f.comparator === "within") {
      center = num("empiric:within_center");
      const want = kind === "ratio" ? 1 : 0;
      if (center !== want) {
        return fail(
          `the deciding pillar entity ${id} decides a ${kind} within a band, so empiric:within_center must be ${want}, not ${
            String(e["empiric:within_center"])
          }`,
          at("empiric:within_center"),
        );
      }
    }
  } else if (f.comparator === "within" && e["empiric:undecidable"] === undefined) {
    // Without empiric:comparison the analysis did not compare (it failed: undecidable).
    return fail(
      "the comparator within compares a candidate with a baseline, but the deciding pillar entity has no empiric:comparison",
      at("empiric:comparator"),
    );
  }

  // The deciding pillar is the one the claim names, with the claim's comparator and threshold.
  const add = (message: string, pointer: string) =>
    problems.push({ code: "verdict_inconsistent", message, pointer });
  if (f.pillar !== threshold.metric) {
    add(
      `the deciding pillar is ${f.pillar}, but the claim's threshold names ${
        String(threshold.metric)
      }`,
      at("empiric:pillar"),
    );
  }
  if (f.comparator !== threshold.comparator) {
    add(
      `the deciding pillar's comparator ${f.comparator} is not the claim's ${
        String(threshold.comparator)
      }`,
      "/claim/threshold/comparator",
    );
  }
  if (!isNumber(threshold.value) || toNumber(threshold.value) !== f.threshold) {
    add(
      `the claim's threshold value ${
        String(threshold.value)
      } is not the ${f.threshold} the deciding pillar was decided against`,
      "/claim/threshold/value",
    );
  }
  let same = false;
  try {
    same = canonicalize(claim.threshold ?? null) === canonicalize(verdict.threshold ?? null);
  } catch {
    same = false;
  }
  if (!same) add("the verdict's threshold is not the claim's", "/verdict/threshold");

  // The numbers the rule compared are the recorded evidence.
  const evidence = Array.isArray(record.evidence) ? record.evidence : [];
  const index = evidence.findIndex((x) => isJsonObject(x) && x.pillar === f.pillar);
  if (index < 0) {
    add(`no evidence entry for the deciding pillar ${f.pillar}`, "/evidence");
  } else {
    const ev = evidence[index] as JsonObject;
    const pairs: [string, string, number][] = [
      ["statistic_value", "empiric:estimate", f.estimate],
      ["ci_low", "empiric:ci_low", f.ci_low],
      ["ci_high", "empiric:ci_high", f.ci_high],
    ];
    for (const [field, attr, value] of pairs) {
      const v = ev[field];
      if (!isNumber(v) || toNumber(v) !== value) {
        add(
          `evidence ${f.pillar} has ${field} ${
            String(v)
          }, but the deciding pillar's ${attr} is ${value}`,
          jsonPointer(["evidence", index, field]),
        );
      }
    }
  }
  const observed = verdict.observed_value;
  if (!isNumber(observed) || toNumber(observed) !== f.estimate) {
    add(
      `the verdict's observed_value ${
        String(observed)
      } is not the deciding pillar's estimate ${f.estimate}`,
      "/verdict/observed_value",
    );
  }
  const high = estimateHigh === undefined ? f.estimate : toNumber(estimateHigh);
  const [expLow, expHigh] = f.rule === "interval" ? [f.ci_low, f.ci_high] : [f.estimate, high];
  if (f.low !== expLow || f.high !== expHigh) {
    add(
      `under the ${f.rule} rule the deciding bounds are [${expLow}, ${expHigh}], but the entity records [${f.low}, ${f.high}]`,
      at("empiric:deciding_low"),
    );
  }

  // The rule itself.
  const outcome = ruleOutcome({
    n: f.n,
    failed: f.failed,
    min_n: f.min_n,
    max_failure_rate: f.max_failure_rate,
    rule: f.rule,
    method: f.method,
    refused: e["empiric:refused"] !== undefined,
    undecidable: e["empiric:undecidable"] !== undefined,
    comparator: f.comparator,
    threshold: f.threshold,
    low: f.low,
    high: f.high,
    center,
    baseline,
  });
  if (!OUTCOMES.includes(verdict.outcome as typeof OUTCOMES[number])) {
    add(`unknown outcome ${JSON.stringify(verdict.outcome)}`, "/verdict/outcome");
  } else if (verdict.outcome !== outcome) {
    add(
      `the verdict is ${verdict.outcome}, but the recorded ${f.rule} rule gives ${outcome} (${f.pillar} in [${f.low}, ${f.high}] ${f.comparator} ${f.threshold}, n=${f.n}, ${f.failed} failed${
        baseline ? `, baseline n=${baseline.n}, ${baseline.failed} failed` : ""
      }, min_n ${f.min_n}, max_failure_rate ${f.max_failure_rate})`,
      "/verdict/outcome",
    );
  }
  if (f.outcome !== verdict.outcome) {
    add(
      `the deciding pillar records outcome ${f.outcome}, the verdict ${String(verdict.outcome)}`,
      at("empiric:outcome"),
    );
  }
  return { status: problems.length === 0 ? "pass" : "fail", outcome, problems };
}
