/**
 * The record summary printed by `empiric schema info`.
 *
 * @module
 */
import { isJsonObject, type JsonValue } from "../json/value.ts";
import { DEMO_KEY_BYTES } from "../crypto/keys.ts";
import { verifyRecord } from "./verify.ts";

/** What kind of document a JSON value is. */
export type DocumentKind = "proof" | "unknown";

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
}

/**
 * Detect the document kind: a proof has `identity` and `signature` objects.
 *
 * @example
 * ```ts
 * import { detectKind } from "./summary.ts";
 * console.assert(detectKind({ identity: {}, signature: {} }) === "proof");
 * ```
 */
export function detectKind(value: JsonValue): DocumentKind {
  if (isJsonObject(value) && isJsonObject(value.identity) && "claim" in value) return "proof";
  return "unknown";
}

/**
 * Summarize a parsed document.
 *
 * @example
 * ```ts
 * import { summarizeRecord } from "./summary.ts";
 * const s = await summarizeRecord("x.json", { a: 1n });
 * console.assert(s.kind === "unknown" && s.signature === null);
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
  if (kind === "proof") demo = (await verifyRecord(value, { key: DEMO_KEY_BYTES })).verified;
  return {
    path,
    kind,
    schema_version: typeof identity.schema_version === "string" ? identity.schema_version : null,
    signature: sig === null ? null : sig.length > 16 ? sig.slice(0, 16) + "…" : sig,
    demo_key_verifies: demo,
    proof_id: typeof identity.proof_id === "string" ? identity.proof_id : null,
    outcome: typeof verdict.outcome === "string" ? verdict.outcome : null,
  };
}

/**
 * The SPEC's four labelled lines (path, kind, schema_version, signature) and a demo-key line.
 *
 * @example
 * ```ts
 * import { formatSummary } from "./summary.ts";
 * const text = formatSummary({ path: "p.json", kind: "proof", schema_version: "1.0", signature: "ab12…", demo_key_verifies: false, proof_id: null, outcome: null });
 * console.assert(text.split("\n")[0] === "path:           p.json");
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
  return lines.join("\n");
}
