// Report fixtures (fixtures/reports/, made by its generate.ts with the real run engine): records
// with their observations, loaded as the report builders take them, and copied into stores.
import type { ProofStore } from "../../src/store/types.ts";
import { openStore } from "../../src/store/store.ts";
import { parseJson } from "../../src/json/parse.ts";
import { toPlainJson } from "../../src/json/plain.ts";
import {
  buildReport,
  type PlainRecord,
  type Report,
  type Verification,
} from "../../src/report/model.ts";
import { parseObservations } from "../../src/report/observations.ts";
import type { Observation } from "../../src/run/observation.ts";

export const REPORTS = new URL("../../fixtures/reports/", import.meta.url).pathname;

/** The fixtures, each one record with its observations. */
export const FIXTURES = [
  "arithmetic-validated",
  "sentiment-refuted",
  "arithmetic-failures",
  "latency-earlier",
  "latency-later",
] as const;

export type FixtureName = typeof FIXTURES[number];

export interface Fixture {
  name: FixtureName;
  text: string;
  record: PlainRecord;
  observations: Observation[];
  observationsText: string;
}

export async function loadFixture(name: FixtureName): Promise<Fixture> {
  const text = await Deno.readTextFile(`${REPORTS}${name}.json`);
  const observationsText = await Deno.readTextFile(`${REPORTS}${name}.observations.jsonl`);
  return {
    name,
    text,
    record: toPlainJson(parseJson(text)) as unknown as PlainRecord,
    observations: parseObservations(observationsText),
    observationsText,
  };
}

export const VERIFIED: Verification = {
  state: "verified",
  structure: true,
  summary: "HMAC-SHA256 checked with the test key.",
};

/** The report of a fixture, with its observations and (for latency-later) its predecessor. */
export async function fixtureReport(name: FixtureName): Promise<Report> {
  const f = await loadFixture(name);
  const lineage = name === "latency-later" ? [(await loadFixture("latency-earlier")).record] : [];
  return buildReport({
    record: f.record,
    observations: {
      items: f.observations,
      source: { kind: "file", path: `${name}.observations.jsonl` },
    },
    lineage,
    verification: VERIFIED,
  });
}

/** Put fixtures (record and observations) into a store (or the store at a location), as a run would. */
export async function copyIntoStore(
  where: ProofStore | string,
  names: readonly FixtureName[],
): Promise<string[]> {
  if (typeof where === "string") {
    const store = await openStore(where);
    try {
      return await copyIntoStore(store, names);
    } finally {
      await store.close();
    }
  }
  const store = where;
  const ids: string[] = [];
  const encoder = new TextEncoder();
  for (const name of names) {
    const f = await loadFixture(name);
    await store.putBytes(encoder.encode(f.text), {
      observations: encoder.encode(f.observationsText),
    });
    ids.push(f.record.identity.proof_id);
  }
  return ids;
}

/** Every absolute URL or protocol-relative reference in a text. */
export function foreignReferences(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/\b(?:https?|ftp|wss?):\/\/[^\s"'<>)]+/gi)) found.push(m[0]);
  for (const m of html.matchAll(/\b(?:src|href|action|srcset|xlink:href)\s*=\s*["']?\s*\/\//gi)) {
    found.push(m[0]);
  }
  for (const m of html.matchAll(/url\(\s*["']?(?!#|data:)[^)"']+/gi)) found.push(m[0]);
  for (const m of html.matchAll(/@import/gi)) found.push(m[0]);
  return found;
}
