// Deterministic benchmark records (~6 KB and ~1 MB), built from a seeded PRNG and signed.
import type { JsonObject, JsonValue } from "../src/json/mod.ts";
import { signRecord } from "../src/record/mod.ts";
import type { UnsignedRecord } from "../src/record/mod.ts";

/** mulberry32: a small seeded PRNG (deterministic benchmark data). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BENCH_KEY = new TextEncoder().encode("empiric-benchmark-key-0123456789abcdef");

/** An unsigned record with `pillars` evidence entries and a PROV graph of matching size. */
export function benchRecord(pillars: number, seed = 1): UnsignedRecord {
  const rnd = mulberry32(seed);
  const hex = () =>
    Array.from({ length: 64 }, () => "0123456789abcdef"[Math.floor(rnd() * 16)]).join("");
  const evidence = [];
  const entity: JsonObject = {};
  for (let i = 0; i < pillars; i++) {
    const v = Math.round(rnd() * 1e6) / 1e3;
    evidence.push({
      pillar: `latency.p${50 + (i % 50)}.run${i}`,
      statistic_name: "quantile",
      statistic_value: v,
      library: "simple-statistics",
      library_version: "7.8.8",
      ci_low: v * 0.93,
      ci_high: v * 1.07,
      cross_check: `jstat 1.9.6 = ${v}; agrees within 1e-09 — “ok” ✓`,
    });
    entity[`ex:sample/${i}`] = {
      "prov:type": "empiric:Sample",
      "empiric:n": BigInt(i * 17),
      "empiric:w": rnd(),
    };
  }
  const threshold = {
    metric: "latency_p95_ms",
    comparator: "<=" as const,
    value: 50.0,
    units: "ms",
  };
  return {
    identity: {
      schema_version: "1.0",
      empiric_version: "0.1.0",
      empiric_git_commit: hex().slice(0, 40),
      created_at: "2026-11-22T00:00:00Z",
    },
    claim: {
      statement: "p95 latency is at most 50 ms on the corpus",
      operationalization: "wall clock per item, type-7 quantile",
      threshold,
      h0: "p95 > 50 ms",
      h1: "p95 <= 50 ms",
    },
    pre_registration: {
      config_hash: hex(),
      data_hash: hex(),
      analysis_plan: "quantile 0.95, bootstrap percentile 95%, 2000 resamples, seed 1",
    },
    data: {
      substrate_name: "echo",
      substrate_git_commit: hex().slice(0, 40),
      datasets: [{
        name: "requests",
        content_hash: hex(),
        n_records: 200n,
        source: "fixtures/corpora/requests.jsonl",
        kind: "corpus",
      }],
    },
    evidence,
    verdict: {
      outcome: "VALIDATED",
      observed_value: 41.25,
      threshold: { ...threshold },
      reasoning: "p95 41.25 ms (95% CI 38.0 to 44.5, n=200) <= 50.0 ms",
    },
    reproduction: {
      command: "empiric run latency-p95 --substrate builtin:echo",
      environment: { deno: "2.9.6", os: "linux" },
      lineage_chain: [],
    },
    provenance: { prefix: { ex: "urn:empiric:" }, entity },
  };
}

/** Signed record value and its pretty file text. */
export async function signedBenchRecord(pillars: number): Promise<JsonValue> {
  return await signRecord(benchRecord(pillars), BENCH_KEY) as unknown as JsonValue;
}
