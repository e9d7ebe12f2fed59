/**
 * `register`: compute a scenario's pre-registration (claim, config_hash, data_hash, analysis
 * plan, datasets) without running anything, and sign it (src/attest/registration.ts). Behind
 * `empiric register`; the same plain function can become a registry entry.
 *
 * @module
 */
import { z } from "zod";
import { configHash, dataHash, loadDatasets } from "../scenario/load.ts";
import { analysisPlanText, thresholdOf } from "../run/analyze.ts";
import {
  createRegistration,
  type PreRegistrationFacts,
  type Registration,
} from "../attest/registration.ts";
import type { PrivateKey } from "../attest/keys.ts";
import type { OpsEnvironment } from "./environment.ts";
import { type Caller, scenarioCatalog } from "./context.ts";
import { sourceDateEpoch } from "./run_scenario.ts";

/** Input of `register_scenario` (the signing keys come from the caller, never from a client). */
export const RegisterScenarioInput = z.object({
  scenario: z.string().min(1).describe("scenario name, built-in name or file path"),
});

/** Output of `register_scenario`. */
export const RegisterScenarioOutput = z.object({
  digest: z.string().regex(/^[0-9a-f]{64}$/).describe("SHA-256 of the payload (the Statement)"),
  scenario: z.string(),
  config_hash: z.string(),
  data_hash: z.string(),
  registered_at: z.string(),
  keyids: z.array(z.string()),
  envelope: z.object({
    payload: z.string(),
    payloadType: z.string(),
    signatures: z.array(z.object({ keyid: z.string().optional(), sig: z.string() })),
  }),
});

/** The output's type. */
export type RegisterScenarioResult = z.infer<typeof RegisterScenarioOutput>;

/** What registering needs from its caller. */
export interface RegisterScenarioDeps {
  env: OpsEnvironment;
  signingKeys: readonly PrivateKey[];
  scenarioDir?: string;
  /** Network callers name only listed scenarios (default: local). */
  caller?: Caller;
}

/**
 * The pre-registration facts of a scenario, computed as `run` computes them before its first
 * substrate call (datasets are read and hashed; nothing is measured).
 */
export async function preRegistrationFacts(
  env: OpsEnvironment,
  scenario: string,
  scenarioDir = "scenarios",
  caller: Caller = "local",
): Promise<PreRegistrationFacts> {
  const resolved = await scenarioCatalog(env, scenarioDir, caller).resolve(scenario);
  const sc = resolved.scenario;
  const datasets = await loadDatasets(sc, resolved.origin.path, resolved.files);
  const t = thresholdOf(sc);
  return {
    scenario: sc.name,
    claim: {
      statement: sc.claim.statement,
      operationalization: sc.claim.operationalization,
      threshold: t,
      h0: sc.claim.h0,
      h1: sc.claim.h1,
    },
    config_hash: await configHash(sc),
    data_hash: await dataHash(datasets),
    analysis_plan: analysisPlanText(sc),
    datasets: datasets.map((d) => ({
      name: d.spec.name,
      kind: d.spec.kind,
      source: d.source,
      content_hash: d.content_hash,
      n_records: d.items.length,
    })),
  };
}

/** Register a scenario: its signed pre-registration (`SOURCE_DATE_EPOCH` fixes the time). */
export async function registerScenarioOp(
  input: z.infer<typeof RegisterScenarioInput>,
  deps: RegisterScenarioDeps,
): Promise<{ result: RegisterScenarioResult; registration: Registration }> {
  const facts = await preRegistrationFacts(
    deps.env,
    input.scenario,
    deps.scenarioDir,
    deps.caller,
  );
  const epoch = sourceDateEpoch(deps.env);
  const registration = await createRegistration({
    facts,
    now: epoch !== undefined ? epoch * 1000 : deps.env.now(),
    empiricVersion: deps.env.runtime().empiricVersion,
    signingKeys: deps.signingKeys,
  });
  return {
    result: {
      digest: registration.digest,
      scenario: facts.scenario,
      config_hash: facts.config_hash,
      data_hash: facts.data_hash,
      registered_at: registration.statement.predicate.registered_at as string,
      keyids: deps.signingKeys.map((k) => k.keyid),
      envelope: registration.envelope,
    },
    registration,
  };
}
