/**
 * `run_scenario --baseline PROOF`: load a stored proof as the baseline of a comparative claim.
 * The proof is named by its proof_id (read from the store, with its observations) or, for local
 * callers, by a record file with `<record>.observations.jsonl` beside it. It must verify under the
 * run's key, its observations must hash to the `content_hash` its record signs, and they must
 * carry every metric the scenario's pillars use; anything else is `baseline_invalid`, naming the
 * check that failed. Nothing is measured before it is loaded.
 *
 * @module
 */
import { sha256Hex } from "../crypto/hash.ts";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, type JsonObject } from "../json/value.ts";
import { resultEntityOf } from "../record/lineage.ts";
import { verifyRecord } from "../record/verify.ts";
import { observationsPathOf, parseObservations } from "../report/observations.ts";
import type { BaselineSource } from "../run/baseline.ts";
import type { Scenario } from "../scenario/types.ts";
import type { ProofStore } from "../store/store.ts";
import type { OpContext } from "./context.ts";

const PROOF_ID = /^[0-9a-f]{64}$/;

function invalid(message: string): EmpiricError {
  return new EmpiricError("baseline_invalid", message);
}

/**
 * Load, verify and check a baseline proof.
 */
export async function loadBaselineProof(
  ref: string,
  scenario: Scenario,
  ctx: OpContext,
  store: ProofStore | undefined,
): Promise<Extract<BaselineSource, { kind: "proof" }>> {
  if (!ctx.key) throw new UsageError("checking a baseline proof needs the key to verify it with");
  let recordBytes: Uint8Array;
  let observations: Uint8Array | undefined;
  let where: string;
  if (PROOF_ID.test(ref) && !(ctx.caller === "local" && store === undefined)) {
    if (!store) {
      throw new UsageError(
        `--baseline ${ref} names a proof by its id, which needs the proof store (--store)`,
      );
    }
    const bundle = await store.getBundle(ref);
    if (!bundle) {
      throw new EmpiricError("not_found", `baseline proof ${ref} is not in the proof store`);
    }
    recordBytes = bundle.record;
    observations = bundle.parts.observations;
    where = `baseline proof ${ref}`;
  } else {
    if (ctx.caller !== "local") {
      throw new EmpiricError(
        "forbidden",
        "network clients name a baseline by its proof_id in this server's store",
      );
    }
    const bytes = await ctx.env.readFile(ref).catch(() => undefined);
    if (bytes === undefined) {
      throw new EmpiricError(
        "not_found",
        PROOF_ID.test(ref)
          ? `baseline proof ${ref}: no proof store is open (--no-store) and no such file`
          : `baseline record file ${ref} does not exist or cannot be read`,
      );
    }
    recordBytes = bytes;
    observations = await ctx.env.readFile(observationsPathOf(ref)).catch(() => undefined);
    where = `baseline record ${ref}`;
  }

  const verified = await verifyRecord(recordBytes, { key: ctx.key.bytes });
  if (!verified.verified) {
    const first = verified.problems[0];
    throw invalid(
      `${where} does not verify under this run's key (${verified.reason ?? "invalid"}${
        first ? `: ${first.message}` : ""
      }); a baseline must be a record this key signed`,
    );
  }
  const record = parseJson(new TextDecoder().decode(recordBytes)) as JsonObject;
  const proofId = verified.proof_id!;
  const data = isJsonObject(record.data) ? record.data : {};
  const datasets = (Array.isArray(data.datasets) ? data.datasets : []).filter(isJsonObject);
  const listed = datasets.find((d) => d.kind === "observations");
  if (!listed) {
    throw invalid(
      `${where} lists no observations dataset: it was made before records kept their observations, so it cannot serve as a baseline (run the baseline again)`,
    );
  }
  if (observations === undefined) {
    throw invalid(
      `${where} has no observations file beside it (${
        where.startsWith("baseline record") ? observationsPathOf(ref) : "not in the store"
      }); its observations are the baseline`,
    );
  }
  const bytes = new Uint8Array(observations);
  const hash = await sha256Hex(bytes);
  if (hash !== listed.content_hash) {
    throw invalid(
      `${where}: its observations hash to ${hash}, not to the content_hash ${
        String(listed.content_hash)
      } its signed record gives them; they were changed after the run`,
    );
  }
  let parsed;
  try {
    parsed = parseObservations(new TextDecoder().decode(bytes), `${where} observations`);
  } catch (e) {
    throw invalid((e as Error).message);
  }
  if (BigInt(parsed.length) !== BigInt(listed.n_records as bigint)) {
    throw invalid(
      `${where}: ${parsed.length} observations, but its record lists ${String(listed.n_records)}`,
    );
  }
  const needed = [...new Set(scenario.analysis.pillars.map((p) => p.metric))];
  for (const m of needed) {
    const missing = parsed.find((o) => !(m in o.metrics));
    if (missing) {
      throw invalid(
        `${where}: observation ${missing.id} has no metric ${m}, which the scenario's pillars compare (was the baseline run with another scenario?)`,
      );
    }
  }
  const entity = resultEntityOf(record);
  return {
    kind: "proof",
    proofId,
    ...(entity ? { entity } : {}),
    substrateName: String(data.substrate_name ?? "unknown"),
    substrateCommit: String(data.substrate_git_commit ?? "unknown"),
    corpus: datasets
      .filter((d) => d.kind === "corpus" || d.kind === "synthetic")
      .map((d) => ({
        name: String(d.name),
        kind: String(d.kind),
        content_hash: String(d.content_hash),
      })),
    observations: parsed,
    bytes,
  };
}
