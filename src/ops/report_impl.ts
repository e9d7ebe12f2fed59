/**
 * The implementations of the report operations (src/ops/report.ts declares them): gathering a
 * report's inputs and calling the builders of src/report/. Loaded on first use, so that the
 * plotting library and its DOM cost nothing to commands that make no report.
 *
 * @module
 */
import type { z } from "zod";
import { EmpiricError, IoError, UsageError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { toPlainJson } from "../json/plain.ts";
import { verifyRecord } from "../record/verify.ts";
import type { Observation } from "../run/observation.ts";
import { sha256OfBytes } from "../report/digest.ts";
import { type HtmlLinks, renderHtml } from "../report/html.ts";
import { type JunitFailOn, renderJunit } from "../report/junit.ts";
import { renderMarkdown } from "../report/markdown.ts";
import {
  buildReport,
  type ObservationSource,
  type PlainRecord,
  scenarioAndSubstrate,
  type Verification,
} from "../report/model.ts";
import { observationsPathOf, parseObservations, scenarioPathOf } from "../report/observations.ts";
import { renderProofList } from "../report/ui.ts";
import type { OpContext } from "./context.ts";
import {
  type BrowseProofsInput,
  LINEAGE_LIMIT,
  MAX_OBSERVATIONS_BYTES,
  REPORT_MEDIA_TYPES,
  type ReportFormat,
  type ReportProofInput,
  type ReportRecordInput,
  type ReportResult,
} from "./report.ts";
import { verifyAttestationOp } from "./verify_attestation.ts";

/** Parse a record and check it the way a report needs: it must be a record, with its proof_id. */
async function readRecord(
  text: string | Uint8Array,
  where: string,
  ctx: OpContext,
  keyWords: string,
): Promise<{ record: PlainRecord; text: string; verification: Verification }> {
  const check = await verifyRecord(text, { key: ctx.key?.bytes });
  if (
    check.checks.parse !== "pass" || check.checks.schema !== "pass" ||
    check.checks.proof_id !== "pass"
  ) {
    const first = check.problems[0];
    throw new EmpiricError(
      first?.code as never ?? "schema_invalid",
      `${where} is not a valid proof record: ${first?.message ?? check.reason}`,
      { problems: check.problems },
    );
  }
  const source = typeof text === "string" ? text : new TextDecoder().decode(text);
  const record = toPlainJson(parseJson(source)) as unknown as PlainRecord;
  let verification: Verification;
  if (!ctx.key) {
    verification = {
      state: "not_verified",
      structure: true,
      summary:
        "no key was given: the record's structure and proof_id check out, but its signature was not checked.",
    };
  } else if (check.checks.signature === "pass") {
    verification = {
      state: "verified",
      structure: true,
      demoKey: check.demo_key,
      summary: `HMAC-SHA256 checked with ${keyWords}${
        check.demo_key ? " (the public demo key: anyone can make such a signature)" : ""
      }.`,
    };
  } else {
    verification = {
      state: "failed",
      structure: true,
      demoKey: check.demo_key,
      summary: `the HMAC-SHA256 signature does not match ${keyWords}.`,
    };
  }
  return { record, text: source, verification };
}

/** How a key is named in a report. */
function keyWords(ctx: OpContext): string {
  if (ctx.caller === "network") return "this server's key";
  switch (ctx.key?.source) {
    case "option":
      return "the key given with --key";
    case "file":
      return "the key read with --key-file";
    case "env":
      return "the key in EMPIRIC_SIGN_KEY";
    case "demo":
      return "the demo key";
    default:
      return "the given key";
  }
}

async function readOptional(
  ctx: OpContext,
  path: string,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!(await ctx.env.exists(path))) return undefined;
  try {
    return await ctx.env.readFile(path) as Uint8Array<ArrayBuffer>;
  } catch (e) {
    throw new IoError("io_error", `cannot read ${ctx.shownPath(path)}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

type Beside = {
  observations?: { items: Observation[]; source: ObservationSource };
  baseline?: { items: Observation[]; source: ObservationSource };
  scenario?: Record<string, unknown>;
};

/** A comparative record's baseline observations file beside it. */
function baselinePathOf(recordPath: string): string {
  return recordPath.replace(/\.json$/, "") + ".baseline.observations.jsonl";
}

/** The observations and scenario kept beside a record file, when they are there. */
async function besideRecord(ctx: OpContext, recordPath: string, base?: string): Promise<Beside> {
  const obsPath = observationsPathOf(recordPath);
  const basePath = baselinePathOf(recordPath);
  return await fromParts(
    await readOptional(ctx, obsPath),
    await readOptional(ctx, scenarioPathOf(recordPath)),
    ctx.shownPath(obsPath, base),
    await readOptional(ctx, basePath),
    ctx.shownPath(basePath, base),
  );
}

async function observationsFrom(
  bytes: Uint8Array,
  shown: string,
): Promise<{ items: Observation[]; source: ObservationSource }> {
  if (bytes.length > MAX_OBSERVATIONS_BYTES) {
    throw new EmpiricError(
      "dataset_invalid",
      `${shown} is larger than ${MAX_OBSERVATIONS_BYTES} bytes`,
    );
  }
  return {
    items: parseObservations(new TextDecoder().decode(bytes), shown),
    source: {
      kind: "file",
      path: shown,
      sha256: await sha256OfBytes(bytes as Uint8Array<ArrayBuffer>),
    },
  };
}

/**
 * A record's observations, scenario and (comparative records) baseline observations from their
 * bytes (`shown` names the observations).
 */
async function fromParts(
  observations: Uint8Array | undefined,
  scenario: Uint8Array | undefined,
  shown: string,
  baseline?: Uint8Array,
  baselineShown = `the baseline observations`,
): Promise<Beside> {
  const out: Beside = {};
  if (observations) out.observations = await observationsFrom(observations, shown);
  if (baseline) out.baseline = await observationsFrom(baseline, baselineShown);
  if (scenario) {
    try {
      const v = JSON.parse(new TextDecoder().decode(scenario));
      if (v && typeof v === "object" && !Array.isArray(v)) out.scenario = v;
    } catch {
      // a scenario file that is not JSON adds nothing to a report (its title)
    }
  }
  return out;
}

/** Earlier records of the same scenario and substrate, from the store when there is one. */
async function lineageOf(ctx: OpContext, record: PlainRecord): Promise<PlainRecord[]> {
  if (ctx.storeLocation === undefined) return [];
  let store;
  try {
    store = await ctx.store();
  } catch (e) {
    if (e instanceof EmpiricError && e.code === "not_found") return [];
    throw e;
  }
  const { scenario, substrate } = scenarioAndSubstrate(record);
  const out: PlainRecord[] = [];
  for (const entry of (await store.list({ scenario, substrate, limit: LINEAGE_LIMIT })).entries) {
    if (
      entry.proof_id === record.identity.proof_id || entry.created_at > record.identity.created_at
    ) {
      continue;
    }
    const text = await store.getText(entry.proof_id);
    if (text === undefined) continue;
    try {
      out.push(toPlainJson(parseJson(text)) as unknown as PlainRecord);
    } catch {
      // an unreadable record is left out of the trend (schema validate reports it)
    }
  }
  return out;
}

async function render(
  format: ReportFormat,
  input: Parameters<typeof buildReport>[0],
  options: { failOn?: JunitFailOn; links?: HtmlLinks },
): Promise<string> {
  const report = buildReport(input);
  if (format === "md") return renderMarkdown(report);
  if (format === "junit") return renderJunit(report, options.failOn);
  return await renderHtml(report, { links: options.links });
}

/** `report_proof`. */
export async function reportProof(
  input: z.infer<typeof ReportProofInput>,
  ctx: OpContext,
): Promise<ReportResult> {
  const store = await ctx.store();
  const bundle = await store.getBundle(input.proof_id);
  if (bundle === undefined) {
    throw new EmpiricError("not_found", `no proof record ${input.proof_id} in the store`);
  }
  const text = new TextDecoder().decode(bundle.record);
  const { record, verification } = await readRecord(
    text,
    `stored record ${input.proof_id}`,
    ctx,
    keyWords(ctx),
  );
  const beside = await fromParts(
    bundle.parts.observations,
    bundle.parts.scenario,
    `the observations of ${input.proof_id}`,
    bundle.parts.baseline,
    `the baseline observations of ${input.proof_id}`,
  );
  const format = input.format ?? "html";
  const links: HtmlLinks | undefined = ctx.caller === "network"
    ? { index: "../../ui", record: `../${input.proof_id}`, report: (id) => `../${id}/report` }
    : undefined;
  const out = await render(format, {
    record,
    observations: beside.observations,
    baseline: beside.baseline,
    scenario: beside.scenario,
    lineage: await lineageOf(ctx, record),
    verification,
  }, { failOn: input.junit_fail_on, links });
  return { proof_id: input.proof_id, format, media_type: REPORT_MEDIA_TYPES[format], text: out };
}

/** `report_record`. */
export async function reportRecord(
  input: z.infer<typeof ReportRecordInput>,
  ctx: OpContext,
): Promise<ReportResult> {
  if (ctx.caller === "network") {
    throw new EmpiricError("forbidden", "report_record reads local files; use report_proof");
  }
  if ((input.path === undefined) === (input.record_json === undefined)) {
    throw new UsageError("give either path or record_json");
  }
  if ((input.observations || input.baseline_observations) && input.path !== undefined) {
    throw new UsageError("observations go with record_json (a file's are read from beside it)");
  }
  if ((input.attestation_json === undefined) !== (input.public_keys === undefined)) {
    throw new UsageError("an attestation is checked with public keys: give both, or neither");
  }
  let text: string | Uint8Array;
  let where: string;
  if (input.path !== undefined) {
    if (!(await ctx.env.exists(input.path))) {
      throw new IoError("not_found", `no such file: ${input.path}`);
    }
    try {
      text = await ctx.env.readFile(input.path);
    } catch (e) {
      throw new IoError("io_error", `cannot read ${input.path}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    where = input.path;
  } else {
    text = input.record_json!;
    where = "the record";
  }
  const { record, verification } = await readRecord(
    text,
    where,
    ctx,
    keyWords(ctx),
  );
  if (input.attestation_json !== undefined) {
    const a = await verifyAttestationOp({
      envelope_json: input.attestation_json,
      public_keys: input.public_keys,
    });
    const matches = a.proof_id === record.identity.proof_id;
    verification.attestation = {
      verified: a.verified && matches,
      signers: a.signers,
      message: !a.verified
        ? `${a.reason ?? "not verified"}${a.message ? `: ${a.message}` : ""}`
        : matches
        ? null
        : `it attests proof ${a.proof_id ?? "(none)"}, not this record`,
    };
    if (verification.state !== "verified" && a.verified && matches) {
      verification.state = "verified";
      verification.summary = `a DSSE attestation of this record verifies under public key ${
        a.signers.join(", ")
      }${ctx.key ? `; the HMAC signature ${verification.summary}` : ""}`;
    }
  }
  const beside: Beside = input.path !== undefined
    ? await besideRecord(ctx, input.path)
    : input.observations
    ? {
      observations: { items: input.observations, source: { kind: "run" as const } },
      ...(input.baseline_observations
        ? {
          baseline: { items: input.baseline_observations, source: { kind: "run" as const } },
        }
        : {}),
    }
    : {};
  const format = input.format ?? "html";
  const out = await render(format, {
    record,
    observations: beside.observations,
    baseline: beside.baseline,
    scenario: "scenario" in beside ? beside.scenario : undefined,
    lineage: await lineageOf(ctx, record),
    verification,
  }, { failOn: input.junit_fail_on });
  return {
    proof_id: record.identity.proof_id,
    format,
    media_type: REPORT_MEDIA_TYPES[format],
    text: out,
  };
}

/** `browse_proofs`. */
export async function browseProofs(
  input: z.infer<typeof BrowseProofsInput>,
  ctx: OpContext,
): Promise<{ html: string }> {
  const store = await ctx.store();
  const filters = {
    scenario: input.scenario || undefined,
    substrate: input.substrate || undefined,
    outcome: input.outcome || undefined,
  };
  const limit = input.limit ?? 50;
  const offset = input.offset ?? 0;
  const { entries } = await store.list({ ...filters, limit, offset });
  // Names to suggest: from the newest entries of the whole store.
  const { entries: recent } = await store.list({ limit: 1000 });
  return {
    html: await renderProofList({
      entries: entries.map((e) => ({
        ...e,
        observed_value: Number.isFinite(e.observed_value) ? e.observed_value : null,
      })),
      total: await store.count(filters),
      limit,
      offset,
      filters,
      scenarios: [...new Set(recent.map((e) => e.scenario))].sort(),
      substrates: [...new Set(recent.map((e) => e.substrate))].sort(),
    }),
  };
}
