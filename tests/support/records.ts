// Signed records for store tests, made fast: one real run, then copies re-signed with another
// created_at, scenario or substrate, and (for bundle tests) an observations dataset whose
// content_hash seals given observation bytes.
import { sha256Hex } from "../../src/crypto/hash.ts";
import { canonicalize } from "../../src/json/canonical.ts";
import { parseJson } from "../../src/json/parse.ts";
import { prettyJson } from "../../src/json/pretty.ts";
import type { JsonObject, JsonValue } from "../../src/json/value.ts";
import { signRecord } from "../../src/record/sign.ts";
import type { ProofRecord } from "../../src/record/types.ts";
import { TEST_SIGN_KEY, testEnv } from "./env.ts";
import { runScenarioForTest } from "./ops.ts";

let base: Promise<JsonObject> | undefined;

/** One real record (arithmetic-accuracy on builtin:calculator), as a typed JSON value. */
export function baseRecord(): Promise<JsonObject> {
  base ??= (async () => {
    const r = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
      env: await testEnv({ SOURCE_DATE_EPOCH: "1790000000" }),
      key: TEST_SIGN_KEY,
    });
    return parseJson(prettyJson(r.output.record as unknown as JsonValue)) as JsonObject;
  })();
  return base;
}

/** What to vary in a {@link makeRecord} copy. */
export interface RecordSpec {
  /** Seconds after 2026-01-01T00:00:00Z (default 0). */
  second?: number;
  /** created_at text as given (overrides `second`). */
  createdAt?: string;
  scenario?: string;
  substrate?: string;
  outcome?: "VALIDATED" | "REFUTED" | "INCONCLUSIVE";
  /** Observation bytes the record's observations dataset seals. */
  observations?: Uint8Array;
  /** A normalized scenario value whose canonical hash becomes config_hash. */
  scenarioValue?: JsonValue;
}

/** A signed record built from the base record. */
export async function makeRecord(
  spec: RecordSpec = {},
  key: Uint8Array<ArrayBuffer> = TEST_SIGN_KEY,
): Promise<ProofRecord> {
  const rec = structuredClone(await baseRecord()) as Record<string, JsonValue>;
  delete rec.signature;
  const identity = { ...(rec.identity as JsonObject) };
  delete identity.proof_id;
  identity.created_at = spec.createdAt ??
    new Date(Date.UTC(2026, 0, 1) + (spec.second ?? 0) * 1000).toISOString().replace(
      ".000Z",
      "Z",
    );
  rec.identity = identity;
  const repro = { ...(rec.reproduction as JsonObject) };
  const m = /^empiric run (\S+) --substrate (.+)$/.exec(String(repro.command))!;
  repro.command = `empiric run ${spec.scenario ?? m[1]} --substrate ${spec.substrate ?? m[2]}`;
  rec.reproduction = repro;
  if (spec.outcome) rec.verdict = { ...(rec.verdict as JsonObject), outcome: spec.outcome };
  // The base run's own observations are not carried along: a copy seals only what it is given.
  const data0 = { ...(rec.data as JsonObject) };
  data0.datasets = (data0.datasets as JsonObject[]).filter((d) => d.kind !== "observations");
  rec.data = data0;
  if (spec.observations) {
    const data = { ...(rec.data as JsonObject) };
    data.datasets = [
      ...(data.datasets as JsonValue[]),
      {
        name: "observations",
        content_hash: await sha256Hex(new Uint8Array(spec.observations)),
        n_records: BigInt(1) as unknown as JsonValue,
        source: "observations.jsonl",
        kind: "observations",
      },
    ];
    rec.data = data;
  }
  if (spec.scenarioValue !== undefined) {
    rec.pre_registration = {
      ...(rec.pre_registration as JsonObject),
      config_hash: await sha256Hex(new TextEncoder().encode(canonicalize(spec.scenarioValue))),
    };
  }
  return await signRecord(rec as never, key);
}

/** The record as file bytes (pretty JSON, floats kept as floats). */
export function recordBytes(record: ProofRecord): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(prettyJson(record as unknown as JsonValue));
}

/** `n` records, one second apart (newest last). */
export async function manyRecords(n: number, spec: RecordSpec = {}): Promise<ProofRecord[]> {
  const out: ProofRecord[] = [];
  for (let i = 0; i < n; i++) out.push(await makeRecord({ ...spec, second: i }));
  return out;
}
