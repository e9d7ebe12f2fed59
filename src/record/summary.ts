/**
 * The record summary printed by `empiric schema info`.
 *
 * @module
 */
import { isJsonObject, type JsonValue } from "../json/value.ts";
import { DEMO_KEY_BYTES } from "../crypto/keys.ts";
import { loadModule } from "../lazy/load.ts";

/** What kind of document a JSON value is. */
export type DocumentKind =
  | "proof"
  | "dsse-envelope"
  | "in-toto-statement"
  | "cloudevent"
  | "ro-crate-metadata"
  | "openlineage-event"
  | "unknown";

/** For each kind that is not a record, the command that reads it. */
export const READ_WITH: Readonly<Record<DocumentKind, string | null>> = {
  proof: null,
  "dsse-envelope":
    "empiric verify-dsse FILE --public-key KEY.pub (or --dsse-key-file for HMAC envelopes)",
  "in-toto-statement": "the record is its predicate: empiric export dsse wraps and signs it",
  cloudevent: "empiric import cloudevent FILE --key-file KEY",
  "ro-crate-metadata":
    "the record is proof.json in the same crate: empiric schema validate CRATE/proof.json",
  "openlineage-event": "sent to a lineage server; the record's id is in run.facets.empiric",
  unknown: null,
};

/** The summary of one file: the SPEC's four labelled lines plus demo-key status. */
export interface RecordSummary {
  path: string;
  kind: DocumentKind;
  schema_version: string | null;
  /** Abbreviated signature (first 16 hex characters and an ellipsis), or null. */
  signature: string | null;
  /** Whether the record verifies under the documented demo key (null if not a proof). */
  demo_key_verifies: boolean | null;
  proof_id: string | null;
  outcome: string | null;
  /** The command that reads this kind of document, when it is not a record. */
  read_with: string | null;
}

/**
 * Detect the document kind: a proof record, or one of the export formats empiric writes
 * (DSSE envelope, in-toto Statement, CloudEvent, RO-Crate metadata, OpenLineage event).
 *
 * @example
 * ```ts
 * import { deepStrictEqual as assertEquals } from "node:assert/strict";
 * import { detectKind } from "./summary.ts";
 * assertEquals(detectKind({ identity: {}, claim: {} }), "proof");
 * assertEquals(detectKind({ payloadType: "application/vnd.in-toto+json", payload: "", signatures: [] }), "dsse-envelope");
 * assertEquals(detectKind({ specversion: "1.0", type: "t", source: "s", id: "1" }), "cloudevent");
 * assertEquals(detectKind([1]), "unknown");
 * ```
 */
export function detectKind(value: JsonValue): DocumentKind {
  if (!isJsonObject(value)) return "unknown";
  if (isJsonObject(value.identity) && "claim" in value) return "proof";
  if (typeof value.payloadType === "string" && "payload" in value && "signatures" in value) {
    return "dsse-envelope";
  }
  if (typeof value._type === "string" && value._type.startsWith("https://in-toto.io/Statement")) {
    return "in-toto-statement";
  }
  if (typeof value.specversion === "string" && "type" in value && "source" in value) {
    return "cloudevent";
  }
  const context = value["@context"];
  const contextText = typeof context === "string" ? context : JSON.stringify(context ?? "");
  if (contextText.includes("w3id.org/ro/crate") && Array.isArray(value["@graph"])) {
    return "ro-crate-metadata";
  }
  if (typeof value.eventType === "string" && isJsonObject(value.run) && "producer" in value) {
    return "openlineage-event";
  }
  return "unknown";
}

/**
 * Summarize a parsed document.
 *
 * @example
 * ```ts
 * import { summarizeRecord } from "./summary.ts";
 * import { deepStrictEqual as assertEquals } from "node:assert/strict";
 * const s = await summarizeRecord("x.json", { a: 1n });
 * assertEquals([s.kind, s.signature], ["unknown", null]);
 * ```
 */
export async function summarizeRecord(path: string, value: JsonValue): Promise<RecordSummary> {
  const kind = detectKind(value);
  const rec = isJsonObject(value) ? value : {};
  const identity = isJsonObject(rec.identity) ? rec.identity : {};
  const sigSection = isJsonObject(rec.signature) ? rec.signature : {};
  const sig = typeof sigSection.signature === "string" ? sigSection.signature : null;
  const verdict = isJsonObject(rec.verdict) ? rec.verdict : {};
  let demo: boolean | null = null;
  if (kind === "proof") {
    // Loaded here, not at import: the surfaces import this module (through src/ops/keys.ts) at
    // start-up, and the record schema's validator is heavy.
    const { verifyRecord } = await loadModule<typeof import("./verify.ts")>(
      "./verify.ts",
      import.meta.url,
    );
    demo = (await verifyRecord(value, { key: DEMO_KEY_BYTES })).verified;
  }
  return {
    path,
    kind,
    schema_version: typeof identity.schema_version === "string" ? identity.schema_version : null,
    signature: sig === null ? null : sig.length > 16 ? sig.slice(0, 16) + "…" : sig,
    demo_key_verifies: demo,
    proof_id: typeof identity.proof_id === "string" ? identity.proof_id : null,
    outcome: typeof verdict.outcome === "string" ? verdict.outcome : null,
    read_with: READ_WITH[kind],
  };
}

/**
 * The SPEC's four labelled lines (path, kind, schema_version, signature) and a demo-key line.
 *
 * @example
 * ```ts
 * import { formatSummary } from "./summary.ts";
 * import { deepStrictEqual as assertEquals } from "node:assert/strict";
 * const text = formatSummary({ path: "p.json", kind: "proof", schema_version: "1.0", signature: "ab12…", demo_key_verifies: false, proof_id: null, outcome: null, read_with: null });
 * assertEquals(text.split("\n")[0], "path:           p.json");
 * ```
 */
export function formatSummary(s: RecordSummary): string {
  const lines = [
    `path:           ${s.path}`,
    `kind:           ${s.kind}`,
    `schema_version: ${s.schema_version ?? "(none)"}`,
    `signature:      ${s.signature === null ? "(absent)" : `${s.signature} (present)`}`,
  ];
  if (s.demo_key_verifies !== null) {
    lines.push(
      `demo key:       ${
        s.demo_key_verifies
          ? "VERIFIES under the public demo key: anyone could have signed this record"
          : "does not verify under the demo key"
      }`,
    );
  }
  if (s.read_with !== null) lines.push(`read with:      ${s.read_with}`);
  return lines.join("\n");
}
