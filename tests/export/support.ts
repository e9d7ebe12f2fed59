// Shared helpers of the export and telemetry tests: fixtures, the official schemas in
// fixtures/schemas (validated with Ajv), records re-signed with changes, and a loopback HTTP
// receiver that records every request.
import { Ajv2020 } from "ajv/dist/2020.js";
// The CloudEvents schema is JSON Schema draft-07: plain Ajv.
import { Ajv as AjvDraft07 } from "ajv";
import addFormatsModule from "ajv-formats";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonObject, JsonValue } from "../../src/json/value.ts";
import { toPlainJson } from "../../src/json/plain.ts";
import { signRecord } from "../../src/record/sign.ts";
import type { ProofRecord } from "../../src/record/types.ts";

import { FIXTURE_KEY, RECORDS, ROOT } from "../support/env.ts";
export { FIXTURE_KEY, FIXTURE_KEY_TEXT, RECORDS, ROOT } from "../support/env.ts";

/** The official schemas vendored in fixtures/schemas (see its SOURCES.md). */
export const SHARED_SCHEMAS = new URL("../../fixtures/schemas/", import.meta.url).pathname;

/** A fixture record file's text. */
export function fixtureText(name: string): string {
  return Deno.readTextFileSync(`${RECORDS}${name}`);
}

/** valid.json (float thresholds such as 50.0) and the int-threshold record with a big int. */
export const ROUND_TRIP_FIXTURES = ["valid.json", "valid-refuted-int-threshold.json"];

/** A fixture changed by `edit` and signed again with the fixture key. */
export async function resignedFixture(
  name: string,
  edit: (r: JsonObject) => void,
): Promise<ProofRecord> {
  const r = parseJson(fixtureText(name)) as JsonObject;
  delete r.signature;
  delete (r.identity as JsonObject).proof_id;
  edit(r);
  return await signRecord(r as never, FIXTURE_KEY);
}

type AddFormats = (ajv: unknown) => unknown;
const addFormats: AddFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

function readSchema(path: string): Record<string, unknown> {
  return JSON.parse(Deno.readTextFileSync(path));
}

/** Validate with the official CloudEvents 1.0 JSON Schema (draft-07). */
export function cloudEventsValidator(): (value: unknown) => string[] {
  const ajv = new AjvDraft07({ strict: false, allErrors: true });
  addFormats(ajv);
  const v = ajv.compile(
    readSchema(`${SHARED_SCHEMAS}cloudevents/cloudevents-1.0.schema.json`),
  ) as Validate;
  return (value) => v(value) ? [] : (v.errors ?? []).map((e) => JSON.stringify(e));
}

/**
 * OpenLineage: the 2-0-2 core schema first, then the standard facet files, then empiric's
 * custom facet schemas. `event(v)` validates a RunEvent; `facet(schemaURL, value)` validates
 * one facet against the definition its `_schemaURL` names.
 */
export function openLineageValidator(): {
  event: (value: unknown) => string[];
  facet: (schemaUrl: string, value: unknown) => string[];
} {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const dir = `${SHARED_SCHEMAS}openlineage/`;
  ajv.addSchema(readSchema(`${dir}OpenLineage-2-0-2.json`));
  for (const e of Deno.readDirSync(dir)) {
    if (e.name.endsWith(".json") && !e.name.startsWith("OpenLineage-")) {
      ajv.addSchema(readSchema(`${dir}${e.name}`));
    }
  }
  const own = `${ROOT}src/export/schemas/openlineage/`;
  for (const e of Deno.readDirSync(own)) {
    if (e.name.endsWith(".json")) ajv.addSchema(readSchema(`${own}${e.name}`));
  }
  const core = ajv.getSchema("https://openlineage.io/spec/2-0-2/OpenLineage.json") as Validate;
  const run = (v: Validate | undefined, value: unknown, what: string) => {
    if (!v) return [`no schema for ${what}`];
    return v(value) ? [] : (v.errors ?? []).map((e) => JSON.stringify(e));
  };
  return {
    event: (value) => run(core, value, "RunEvent"),
    facet: (url, value) => run(ajv.getSchema(url) as Validate | undefined, value, url),
  };
}

/** Plain JSON of a typed value (for schema validators). */
export function plain(v: unknown): unknown {
  return toPlainJson(v as JsonValue);
}

/** One request a {@link Receiver} got. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
  text: string;
}

/** A loopback HTTP server on a free port that records requests. */
export interface Receiver {
  url: string;
  requests: Received[];
  /** Resolves when `n` requests have arrived (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Start a receiver; `status(req)` chooses each answer's status (default 200). */
export function startReceiver(status: (r: Received) => number = () => 200): Receiver {
  const requests: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body = new Uint8Array(await req.arrayBuffer());
      const r: Received = {
        method: req.method,
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers.entries()),
        body,
        text: new TextDecoder().decode(body),
      };
      requests.push(r);
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      return new Response(null, { status: status(r) });
    },
  );
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    waitFor(n, ms = 10_000) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`only ${requests.length} of ${n} requests arrived`)),
          ms,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
    async close() {
      await server.shutdown();
    },
  };
}
