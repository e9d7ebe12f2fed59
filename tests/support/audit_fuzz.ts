// Random scenarios and observation files for the cross-language audit tests: every statistic
// and interval method, both decision rules, both failure policies, censored latencies, ties,
// skewed and bounded data, bootstraps. Deterministic for a seed (MT19937 from the stats module).
import { seededRandom } from "../../src/stats/random.ts";
import { normalizeScenario } from "../../src/scenario/load.ts";
import type { Scenario } from "../../src/scenario/types.ts";
import type { Observation } from "../../src/run/observation.ts";
import type { JsonValue } from "../../src/json/value.ts";
import { analyze } from "../../src/run/analyze.ts";
import { pillarEntities } from "../../src/run/provenance.ts";
import { toPlainJson } from "../../src/json/plain.ts";

/** One fuzz case: a normalized scenario and its observations. */
export interface FuzzCase {
  scenario: Scenario;
  observations: Observation[];
}

type Pillar = { name: string; metric: string; statistic: string; p?: number; interval: string };

/** The fuzz cases of a seed. */
export function fuzzCases(seed: number, count: number, maxN = 300): FuzzCase[] {
  const u = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(u() * xs.length)];
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const out: FuzzCase[] = [];
  for (let c = 0; c < count; c++) {
    const n = Math.floor(u() * u() * maxN) + (u() < 0.1 ? 0 : 3);
    const failRate = pick([0, 0, 0.01, 0.05, 0.2]);
    const timeout = pick([50, 200, 1000]);
    const shape = pick(["normal", "lognormal", "uniform", "ties", "skewed"]);
    const latency = () => {
      const z = normal();
      const v = shape === "lognormal"
        ? Math.exp(2 + 0.7 * z)
        : shape === "uniform"
        ? 40 * u()
        : shape === "ties"
        ? Math.round(10 + 3 * z)
        : shape === "skewed"
        ? -20 * Math.log(1 - u())
        : 20 + 4 * z;
      return Math.max(0, v);
    };
    const reported = () => {
      const v = shape === "skewed" ? 100 * u() ** 4 : 50 + 15 * normal();
      return Math.min(100, Math.max(0, shape === "ties" ? Math.round(v / 10) * 10 : v));
    };
    const pOk = pick([1, 0.99, 0.95, 0.9, 0.6]);
    const observations: Observation[] = [];
    for (let i = 0; i < n; i++) {
      const ok = u() >= failRate;
      const lat = latency();
      if (ok) {
        observations.push({
          item: i,
          id: `#${i + 1}`,
          ok: true,
          attempts: u() < 0.05 ? 2 : 1,
          latency_ms: lat,
          censored: false,
          metrics: { lat, good: u() < pOk ? 1 : 0, score: reported() },
        });
      } else {
        observations.push({
          item: i,
          id: `#${i + 1}`,
          ok: false,
          attempts: 1,
          failure: { kind: "timeout", message: "no answer" },
          latency_ms: Math.max(lat, timeout),
          censored: true,
          metrics: { lat: null, good: 0, score: null },
        });
      }
    }
    const pillars: Pillar[] = [];
    const q = pick([0.5, 0.9, 0.95, 0.99]);
    pillars.push({
      name: "lat.q",
      metric: "lat",
      statistic: "quantile",
      p: q,
      interval: pick(["order_statistic", "order_statistic", "none"]),
    });
    pillars.push({
      name: "lat.median",
      metric: "lat",
      statistic: "median",
      interval: "order_statistic",
    });
    pillars.push({
      name: "good.rate",
      metric: "good",
      statistic: "proportion",
      interval: pick(["clopper_pearson", "wilson", "none"]),
    });
    const meanMethod = pick(["t", "bounded", "bootstrap_percentile", "bootstrap_bca", "none"]);
    pillars.push({ name: "score.mean", metric: "score", statistic: "mean", interval: meanMethod });
    if (u() < 0.3) {
      pillars.push({ name: "lat.mean", metric: "lat", statistic: "mean", interval: "t" });
    }
    const deciding = pick(pillars);
    const sample = observations.filter((o) => o.ok);
    const guess = (() => {
      if (deciding.statistic === "proportion") return pick([0.5, 0.8, 0.9, 0.95]);
      const xs = sample.map((o) => Number(o.metrics[deciding.metric] ?? 0)).sort((a, b) => a - b);
      if (xs.length === 0) return 10;
      const at = deciding.statistic === "mean"
        ? xs.reduce((a, b) => a + b, 0) / xs.length
        : xs[Math.floor((xs.length - 1) * (deciding.p ?? 0.5))];
      return Number((at * (0.8 + 0.4 * u())).toPrecision(4));
    })();
    const value: JsonValue = {
      name: `fuzz-${seed}-${c}`,
      claim: {
        statement: "fuzz",
        operationalization: "fuzz",
        threshold: {
          metric: deciding.name,
          comparator: pick(["<", "<=", ">", ">="]),
          value: guess,
          units: "x",
        },
        h0: "h0",
        h1: "h1",
      },
      datasets: [{ name: "items", path: "items.jsonl", kind: "corpus" }],
      probe: { timeout_ms: BigInt(timeout) },
      metrics: {
        lat: { kind: "latency_ms", worst: 5000 },
        good: { kind: "success" },
        score: { kind: "reported", output: "/score", range: [0, 100], worst: 100 },
      },
      analysis: {
        confidence: pick([0.9, 0.95, 0.99]),
        resamples: BigInt(pick([199, 500])),
        seed: BigInt(Math.floor(u() * 2 ** 32)),
        min_n: BigInt(pick([1, 10, 30, 100])),
        max_failure_rate: pick([0, 0.05, 0.1, 0.5]),
        decision: pick(["interval", "interval", "point"]),
        on_failure: pick(["inconclusive", "worst"]),
        pillars: pillars.map((p) => ({ ...p })) as unknown as JsonValue,
      },
    };
    out.push({ scenario: normalizeScenario(value, "fuzz", () => ""), observations });
  }
  return out;
}

/** What the TypeScript analysis gives for a case, as plain JSON (for comparison). */
export function typescriptAnalysis(c: FuzzCase) {
  const a = analyze(c.scenario, c.observations);
  const entities = pillarEntities("fuzz", c.scenario, a);
  return {
    outcome: a.outcome,
    observed_value: a.observed_value,
    pillars: a.pillars.map((p) => ({
      evidence: p.evidence,
      attrs: toPlainJson(entities[`empiric:run/fuzz/pillar/${p.spec.name}`]) as Record<
        string,
        unknown
      >,
    })),
  };
}

/** One comparative fuzz case: a candidate's and a baseline's observations, paired or not. */
export interface ComparativeFuzzCase extends FuzzCase {
  baseline: Observation[];
  paired: boolean;
}

/**
 * Comparative fuzz cases (`analysis.comparison`): ratio and difference, paired (same items, the
 * candidate a noisy multiple of the baseline item by item) and unpaired (other items, another n),
 * every comparison method (order statistics, Clopper-Pearson, t, bounded, McNemar, the paired and
 * unpaired bootstrap of means, medians and central quantiles, none), `within` and the one-sided
 * comparators, and the refusals: small sides, censored latencies, constant or binary sides,
 * skewed means, negative values and zero baselines in ratios, unpaired McNemar, failed items
 * under `on_failure: inconclusive` (sides of different lengths when paired).
 */
export function comparativeFuzzCases(seed: number, count: number): ComparativeFuzzCase[] {
  const u = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(u() * xs.length)];
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const out: ComparativeFuzzCase[] = [];
  for (let c = 0; c < count; c++) {
    const paired = u() < 0.6;
    const kind = pick(["ratio", "difference"] as const);
    const small = u() < 0.15;
    const n = small ? 3 + Math.floor(u() * 90) : 100 + Math.floor(u() * 120);
    const nb = paired ? n : small ? 3 + Math.floor(u() * 90) : 100 + Math.floor(u() * 120);
    const timeout = pick([50, 200, 1000]);
    const shape = pick(["normal", "lognormal", "uniform", "ties", "skewed", "zeros", "constant"]);
    const factor = pick([0.8, 0.95, 1, 1, 1.05, 1.3]);
    const noise = pick([0, 0.02, 0.1, 0.3]);
    const latency = (z: number) => {
      const v = shape === "lognormal"
        ? Math.exp(2 + 0.7 * z)
        : shape === "uniform"
        ? 40 * u()
        : shape === "ties"
        ? Math.round(10 + 3 * z)
        : shape === "skewed"
        ? -20 * Math.log(1 - u())
        : shape === "zeros"
        ? (u() < 0.47 ? 0 : 5 + 10 * u())
        : shape === "constant"
        ? 12
        : 20 + 4 * z;
      return Math.max(0, v);
    };
    const score = (z: number) => {
      const v = shape === "skewed" ? 100 * u() ** 4 : 50 + 15 * z;
      return Math.min(100, Math.max(0, shape === "ties" ? Math.round(v / 10) * 10 : v));
    };
    const signed = pick([0, 0, 1]);
    // Three decimals keep the fixture small (and make ties).
    const round = (x: number) => Math.round(x * 1000) / 1000;
    const side = (
      size: number,
      prefix: string,
      candidate: boolean,
      paired: Observation[] | undefined,
    ): Observation[] => {
      const failRate = pick([0, 0, 0, 0, 0, 0.01, 0.05, 0.2]);
      const pOk = candidate ? pick([1, 0.95, 0.9, 0.6]) : pick([1, 0.95, 0.9, 0.6, 0]);
      const obs: Observation[] = [];
      for (let i = 0; i < size; i++) {
        const z = normal();
        const base = paired?.[i];
        const scale = (x: number | null | undefined, fresh: number) =>
          base !== undefined && x !== null && x !== undefined
            ? Math.max(0, x * factor * (1 + noise * normal()))
            : fresh;
        const lat = round(scale(base?.ok ? base.metrics.lat : undefined, latency(z)));
        const sc = round(
          Math.min(100, scale(base?.ok ? base.metrics.score : undefined, score(z))),
        );
        const good = base !== undefined && u() < 0.8 ? base.metrics.good : u() < pOk ? 1 : 0;
        const delta = round(
          signed * (normal() + (candidate ? 0.2 : 0)) + (1 - signed) * (5 + u()),
        );
        if (u() >= failRate) {
          obs.push({
            item: i,
            id: `${prefix}${i + 1}`,
            ok: true,
            attempts: u() < 0.05 ? 2 : 1,
            latency_ms: lat,
            censored: false,
            metrics: { lat, good, score: sc, delta },
          });
        } else {
          obs.push({
            item: i,
            id: `${prefix}${i + 1}`,
            ok: false,
            attempts: 1,
            failure: { kind: "timeout", message: "no answer" },
            latency_ms: Math.max(lat, timeout),
            censored: true,
            metrics: { lat: null, good: 0, score: null, delta: null },
          });
        }
      }
      return obs;
    };
    const baseline = side(nb, paired ? "#" : "b#", false, undefined);
    const observations = side(n, "#", true, paired ? baseline : undefined);
    const pillars: Pillar[] = [];
    const q = pick([0.25, 0.5, 0.75, 0.9, 0.95]);
    const central = q >= 0.25 && q <= 0.75;
    pillars.push({
      name: "lat.q",
      metric: "lat",
      statistic: "quantile",
      p: q,
      interval: pick(
        central ? ["order_statistic", "bootstrap_percentile", "none"] : [
          "order_statistic",
          "none",
        ],
      ),
    });
    pillars.push({
      name: "lat.median",
      metric: "lat",
      statistic: "median",
      interval: pick(["bootstrap_percentile", "bootstrap_percentile", "order_statistic", "none"]),
    });
    pillars.push({
      name: "good.rate",
      metric: "good",
      statistic: "proportion",
      interval: pick(
        kind === "difference"
          ? ["clopper_pearson", "mcnemar", "mcnemar", "none"]
          : ["clopper_pearson", "none"],
      ),
    });
    pillars.push({
      name: "score.mean",
      metric: "score",
      statistic: "mean",
      interval: pick(["bootstrap_percentile", "bootstrap_percentile", "t", "bounded", "none"]),
    });
    if (u() < 0.4) {
      pillars.push({
        name: "delta.mean",
        metric: "delta",
        statistic: "mean",
        interval: pick(["bootstrap_percentile", "t"]),
      });
    }
    const deciding = pick(pillars);
    const estimate = (obs: Observation[]) => {
      const xs = obs.filter((o) => o.ok).map((o) => Number(o.metrics[deciding.metric] ?? 0))
        .sort((a, b) => a - b);
      if (xs.length === 0) return 1;
      return deciding.statistic === "mean" || deciding.statistic === "proportion"
        ? xs.reduce((a, b) => a + b, 0) / xs.length
        : xs[Math.floor((xs.length - 1) * (deciding.p ?? 0.5))];
    };
    const ec = estimate(observations), eb = estimate(baseline);
    const est = kind === "ratio" ? (eb > 0 ? ec / eb : 1) : ec - eb;
    const comparator = pick(["<", "<=", ">", ">=", "within", "within"] as const);
    const center = kind === "ratio" ? 1 : 0;
    const value = comparator === "within"
      ? Number((Math.abs(est - center) * (0.5 + 2 * u()) + 0.01 * u()).toPrecision(3))
      : Number((est + (u() - 0.5) * 0.2 * Math.max(Math.abs(est), 0.05)).toPrecision(4));
    const scenario: JsonValue = {
      name: `compare-fuzz-${seed}-${c}`,
      claim: {
        statement: "fuzz",
        operationalization: "fuzz",
        threshold: { metric: deciding.name, comparator, value, units: kind },
        h0: "h0",
        h1: "h1",
      },
      datasets: [{ name: "items", path: "items.jsonl", kind: "corpus" }],
      probe: { timeout_ms: BigInt(timeout) },
      metrics: {
        lat: { kind: "latency_ms", worst: 5000 },
        good: { kind: "success" },
        score: { kind: "reported", output: "/score", range: [0, 100], worst: 100 },
        delta: { kind: "reported", output: "/delta", worst: 0 },
      },
      analysis: {
        confidence: pick([0.9, 0.95, 0.99]),
        resamples: BigInt(pick([199, 500])),
        seed: BigInt(Math.floor(u() * 2 ** 32)),
        min_n: BigInt(pick([1, 10, 30, 100])),
        max_failure_rate: pick([0, 0.1, 0.5]),
        decision: pick(["interval", "interval", "point"]),
        on_failure: pick(["inconclusive", "worst", "worst"]),
        comparison: { kind },
        pillars: pillars.map((p) => ({ ...p })) as unknown as JsonValue,
      },
    };
    out.push({
      scenario: normalizeScenario(scenario, "fuzz", () => ""),
      observations,
      baseline,
      paired,
    });
  }
  return out;
}

/** What the TypeScript analysis gives for a comparative case, as plain JSON. */
export function typescriptComparativeAnalysis(c: ComparativeFuzzCase) {
  const a = analyze(c.scenario, c.observations, undefined, {
    observations: c.baseline,
    paired: c.paired,
  });
  const entities = pillarEntities("fuzz", c.scenario, a);
  return {
    outcome: a.outcome,
    observed_value: a.observed_value,
    pillars: a.pillars.map((p) => ({
      evidence: p.evidence,
      attrs: toPlainJson(entities[`empiric:run/fuzz/pillar/${p.spec.name}`]) as Record<
        string,
        unknown
      >,
    })),
  };
}

/** Texts the Python audit does not recompute (made for people). */
export const TEXT_ATTRIBUTES = new Set([
  "prov:type",
  "prov:label",
  "empiric:failure_policy",
  "empiric:estimate_library",
  "empiric:estimate_library_version",
  "empiric:interval_library",
  "empiric:interval_library_version",
  "empiric:distribution_library",
  "empiric:distribution_library_version",
  "empiric:rng",
  "empiric:cross_check_agrees",
  "empiric:baseline_failure_policy",
]);

/** Compare a Python analysis with the TypeScript one; returns the differences. */
export function compareAnalyses(
  ts: ReturnType<typeof typescriptAnalysis>,
  py: {
    outcome: string;
    observed_value: number;
    pillars: { evidence: Record<string, unknown>; attrs: Record<string, unknown> }[];
  },
  tolerance = 1e-12,
): string[] {
  const diffs: string[] = [];
  const close = (a: unknown, b: unknown) => {
    if (typeof a === "number" && typeof b === "number") {
      return a === b || Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
    }
    return a === b;
  };
  if (ts.outcome !== py.outcome) diffs.push(`outcome ${ts.outcome} vs ${py.outcome}`);
  if (!close(ts.observed_value, py.observed_value)) {
    diffs.push(`observed_value ${ts.observed_value} vs ${py.observed_value}`);
  }
  ts.pillars.forEach((p, i) => {
    const q = py.pillars[i];
    for (const k of ["statistic_name", "statistic_value", "ci_low", "ci_high"] as const) {
      if (!close(p.evidence[k], q.evidence[k])) {
        diffs.push(`${p.evidence.pillar} ${k}: ${p.evidence[k]} vs ${q.evidence[k]}`);
      }
    }
    const keys = new Set([...Object.keys(p.attrs), ...Object.keys(q.attrs)]);
    for (const k of keys) {
      if (TEXT_ATTRIBUTES.has(k)) continue;
      const want = q.attrs[k];
      const have = p.attrs[k];
      if (k === "empiric:refused" || k === "empiric:undecidable") {
        if ((have !== undefined) !== (want === true)) {
          diffs.push(`${p.evidence.pillar} ${k}: ${have} vs ${want}`);
        }
        continue;
      }
      if (want === null || want === undefined) {
        if (have !== undefined) diffs.push(`${p.evidence.pillar} ${k}: ${have} vs absent`);
        continue;
      }
      if (!close(have, want)) diffs.push(`${p.evidence.pillar} ${k}: ${have} vs ${want}`);
    }
  });
  return diffs;
}
