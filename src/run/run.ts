/**
 * `run_scenario`: the one implementation behind `empiric run`, the `run_scenario` tool and
 * `POST /scenarios/{name}/run`. It fixes the pre-registration (config_hash, data_hash,
 * analysis plan) before the first substrate call, drives the substrate, analyses the outcomes
 * by the plan, and returns the signed record.
 *
 * The caller supplies the clock, the key, the runtime description and the lineage, so runs are
 * deterministic under test and under `SOURCE_DATE_EPOCH`.
 *
 * @module
 */
import { reproductionCommand } from "../record/command.ts";
import { sha256Hex } from "../crypto/hash.ts";
import { ScenarioError, UsageError } from "../errors/errors.ts";
import { canonicalize } from "../json/canonical.ts";
import { configHash, dataHash, loadDatasets } from "../scenario/load.ts";
import type { ResolvedScenario } from "../scenario/resolve.ts";
import type { LoadedDataset } from "../scenario/types.ts";
import type { Substrate } from "../substrate/types.ts";
import { signRecord } from "../record/sign.ts";
import { type ProofRecord, SCHEMA_VERSION, type UnsignedRecord } from "../record/types.ts";
import {
  type Analysis,
  analysisPlanText,
  analyze,
  failedAnalysis,
  thresholdOf,
} from "./analyze.ts";
import {
  executeArms,
  type HarnessCalibration,
  type MonotonicClock,
  type RunProgress,
} from "./execute.ts";
import { buildObservations, type Observation } from "./observation.ts";
import { type BundleBytes, bundleBytes, observationsDataset } from "./bundle.ts";
import { candidateFirst } from "./interleave.ts";
import {
  baselineDataset,
  baselineObservationsBytes,
  type BaselineSource,
  baselineSourceText,
  pairedWith,
} from "./baseline.ts";
import { decidabilityWarnings } from "./plan.ts";
import type { Imported, ImportFormat } from "./import.ts";
import { buildProvenance } from "./provenance.ts";
import type { JsonObject } from "../json/value.ts";
import type { LineageLink } from "../record/lineage.ts";
import type { RegistrationRef, RunFacts } from "../attest/registration.ts";

/** What the caller knows about the running software and host. */
export interface RuntimeInfo {
  empiricVersion: string;
  empiricCommit: string;
  /** Host components (deno, v8, typescript, os, arch, ...), omitted in deterministic runs. */
  host: Record<string, string>;
  /** Library versions that shape results (simple-statistics, jstat, pure-rand, ...). */
  libraries: Record<string, string>;
}

/** Inputs of {@link runScenario}. */
export interface RunInputs {
  resolved: ResolvedScenario;
  /** The substrate argument as given on the command line. */
  substrateSpec: string;
  /**
   * How the reproduction command names the scenario (default: its declared name): a path when
   * the name would not find this file from the run's directory.
   */
  scenarioArgument?: string;
  substrate: Substrate;
  substrateName?: string;
  substrateCommit?: string;
  key: Uint8Array<ArrayBuffer>;
  runtime: RuntimeInfo;
  /** Wall clock, epoch milliseconds. */
  now: () => number;
  monotonic: MonotonicClock;
  /** Seconds since the epoch; when set, every timestamp is this instant and host details are left out. */
  sourceDateEpoch?: number;
  /** Earlier proofs this run follows (the direct predecessor and `--after`). */
  lineage?: readonly LineageLink[];
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
  /**
   * Checks a signed pre-registration against the run's pre-registration, before the first
   * substrate call (`run --registration`); throws when they differ. Its digest joins the
   * lineage and the provenance graph.
   */
  checkRegistration?: (facts: RunFacts) => Promise<RegistrationRef>;
  /**
   * Comparative claims: the baseline, either a second substrate measured in the same run,
   * interleaved item by item, or a stored proof's observations (verified by the caller).
   */
  baseline?: BaselineSource;
}

/** A comparative run's baseline: its observations, their file's exact bytes, and pairing. */
export interface RunBaseline {
  observations: Observation[];
  bytes: Uint8Array<ArrayBuffer>;
  paired: boolean;
}

/** The result of a run: the signed record and what the record does not carry. */
export interface RunOutput {
  record: ProofRecord;
  analysis: Analysis;
  datasets: LoadedDataset[];
  runId: string;
  /** The registration the run was checked against, or null. */
  registration: RegistrationRef | null;
  /** One per measured item, in corpus order: with the scenario, all the analysis reads. */
  observations: Observation[];
  /**
   * The files kept beside the record (`<record>.observations.jsonl`, `<record>.scenario.json`,
   * and for a comparative claim `<record>.baseline.observations.jsonl`): exactly the bytes the
   * record's hashes seal.
   */
  bundle: BundleBytes;
  /** The harness's own overhead (latency scenarios). */
  harness?: HarnessCalibration;
  /** Why the plan cannot decide as hoped (min_n below the smallest decidable n, ...). */
  warnings: string[];
  /**
   * Comparative claims: the baseline's observations (measured in this run, or the stored
   * proof's), the exact bytes of its observations file, and whether the sides were paired.
   */
  baseline?: RunBaseline;
}

/** RFC 3339 UTC with `Z` (milliseconds unless whole seconds). */
export function rfc3339(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? iso.slice(0, -5) + "Z" : iso;
}

/**
 * Run a scenario against a substrate and produce a signed record.
 */
export async function runScenario(inputs: RunInputs): Promise<RunOutput> {
  const { resolved, substrate } = inputs;
  const scenario = resolved.scenario;
  const deterministic = inputs.sourceDateEpoch !== undefined;
  const clock = deterministic ? () => inputs.sourceDateEpoch! * 1000 : inputs.now;

  if (!scenario.datasets.some((d) => d.kind === "corpus" || d.kind === "synthetic")) {
    throw new ScenarioError(
      "scenario_invalid",
      `scenario ${scenario.name} has no corpus or synthetic dataset (the items sent to the substrate): it can only judge results made elsewhere (run --observations FILE --from FORMAT)`,
      { pointer: "/datasets" },
    );
  }
  const baselineSource = checkBaseline(scenario, inputs.baseline);
  // Pre-registration, fixed before the first substrate call.
  const datasets = await loadDatasets(scenario, resolved.origin.path, resolved.files);
  const cfgHash = await configHash(scenario);
  const dHash = await dataHash(datasets);
  const plan = analysisPlanText(scenario);
  const registration = inputs.checkRegistration
    ? await inputs.checkRegistration({
      scenario: scenario.name,
      config_hash: cfgHash,
      data_hash: dHash,
      analysis_plan: plan,
    })
    : null;

  const corpus = datasets.filter((d) => d.spec.kind === "corpus" || d.spec.kind === "synthetic")
    .flatMap((d) => d.items);
  // Reference datasets are joined to corpus items by their join field, under `$reference`.
  for (const ref of datasets.filter((d) => d.spec.kind === "reference")) {
    const byKey = new Map(ref.items.map((r) => [canonicalize(r[ref.spec.join!] ?? null), r]));
    for (const item of corpus) {
      const match = byKey.get(canonicalize(item[ref.spec.join!] ?? null));
      if (match) (item as JsonObject)["$reference"] = match;
    }
  }

  const warnings = decidabilityWarnings(
    scenario,
    Math.max(0, corpus.length - scenario.probe.warmup_items),
  );

  // A comparison's run id also depends on its baseline (none for a plain run: ids unchanged).
  const baselineKey = baselineSource ? `\n${baselineSourceText(baselineSource)}` : "";
  const startedAtMs = clock();
  const created = rfc3339(startedAtMs);
  const runId = (await sha256Hex(
    new TextEncoder().encode(
      `${cfgHash}\n${dHash}\n${inputs.substrateSpec}${baselineKey}\n${created}\n${inputs.monotonic()}`,
    ),
  ))
    .slice(0, 32);
  const runIdFinal = deterministic
    ? (await sha256Hex(
      new TextEncoder().encode(
        `${cfgHash}\n${dHash}\n${inputs.substrateSpec}${baselineKey}\n${created}`,
      ),
    )).slice(0, 32)
    : runId;

  const measuredItems = corpus.slice(Math.min(scenario.probe.warmup_items, corpus.length));
  const interleaved = baselineSource?.kind === "substrate";
  const first = interleaved ? candidateFirst(scenario.analysis.seed, measuredItems.length) : [];
  const executed = await executeArms(
    scenario,
    corpus,
    interleaved ? [substrate, baselineSource.substrate] : [substrate],
    {
      monotonic: inputs.monotonic,
      onProgress: inputs.onProgress,
      signal: inputs.signal,
      ...(interleaved ? { order: (i: number) => (first[i] ? [0, 1] : [1, 0]) } : {}),
    },
  );
  const observations = buildObservations(scenario, measuredItems, executed.outcomes[0]);
  let baseline: RunBaseline | undefined;
  if (baselineSource?.kind === "substrate") {
    const obs = buildObservations(scenario, measuredItems, executed.outcomes[1]);
    baseline = { observations: obs, bytes: baselineObservationsBytes(obs), paired: true };
  } else if (baselineSource?.kind === "proof") {
    baseline = {
      observations: baselineSource.observations,
      bytes: baselineSource.bytes,
      paired: pairedWith(datasets, observations, baselineSource),
    };
  }
  return await seal(inputs, {
    scenario,
    datasets,
    cfgHash,
    dHash,
    plan,
    registration,
    created,
    endedAt: rfc3339(clock()),
    runId: runIdFinal,
    observations,
    harness: executed.harness,
    warnings,
    defaultSubstrateName: substrate.defaultName,
    ...(baseline && baselineSource ? { baseline: { ...baseline, source: baselineSource } } : {}),
  });
}

/** A comparative scenario needs a baseline, and only it takes one. */
function checkBaseline(
  scenario: ResolvedScenario["scenario"],
  baseline: BaselineSource | undefined,
): BaselineSource | undefined {
  const comparison = scenario.analysis.comparison;
  if (comparison && !baseline) {
    throw new UsageError(
      `scenario ${scenario.name} makes a comparative claim (analysis.comparison: ${comparison.kind}): name the baseline with --baseline-substrate SUBSTRATE (measured in the same run) or --baseline PROOF (a stored proof)`,
    );
  }
  if (!comparison && baseline) {
    throw new UsageError(
      `scenario ${scenario.name} declares no analysis.comparison, so it takes no baseline; add analysis.comparison: {kind: ratio} (or difference) to compare`,
    );
  }
  if (baseline?.kind === "substrate" && scenario.probe.arrival_rate !== undefined) {
    throw new ScenarioError(
      "scenario_invalid",
      `scenario ${scenario.name} is open-loop (probe.arrival_rate): one substrate is measured at a time, so it cannot interleave a baseline substrate; compare against a stored baseline with --baseline PROOF`,
    );
  }
  return baseline;
}

/** Inputs of {@link runImported}: a run's inputs without a substrate, and the results file. */
export interface ImportInputs extends Omit<RunInputs, "substrate" | "monotonic" | "signal"> {
  /** The results file: its name (recorded as the dataset's source), bytes and format. */
  file: { name: string; bytes: Uint8Array; format: ImportFormat };
  /** The file read by `importResults`. */
  imported: Imported;
}

/**
 * Judge observations made elsewhere (`run --observations FILE --from FORMAT`): the results file
 * takes the place of the corpus (its SHA-256 is the dataset's content_hash and goes into
 * data_hash), its values are the observations, and the analysis, record and bundle are a run's.
 */
export async function runImported(inputs: ImportInputs): Promise<RunOutput> {
  const scenario = inputs.resolved.scenario;
  const deterministic = inputs.sourceDateEpoch !== undefined;
  const clock = deterministic ? () => inputs.sourceDateEpoch! * 1000 : inputs.now;
  const { file, imported } = inputs;
  if (scenario.analysis.comparison) {
    throw new UsageError(
      `scenario ${scenario.name} makes a comparative claim (analysis.comparison): results imported from a file have no baseline; run it with --substrate and --baseline-substrate or --baseline`,
    );
  }
  const base = file.name.slice(file.name.lastIndexOf("/") + 1);
  const dataset: LoadedDataset = {
    spec: { name: `${file.format}:${base}`, kind: "observations" },
    bytes: file.bytes,
    content_hash: await sha256Hex(new Uint8Array(file.bytes)),
    items: imported.items,
    source: `${base} (${file.format})`,
  };
  const cfgHash = await configHash(scenario);
  const dHash = await dataHash([dataset]);
  const plan = analysisPlanText(scenario);
  const registration = inputs.checkRegistration
    ? await inputs.checkRegistration({
      scenario: scenario.name,
      config_hash: cfgHash,
      data_hash: dHash,
      analysis_plan: plan,
    })
    : null;
  const created = rfc3339(clock());
  const runId = (await sha256Hex(
    new TextEncoder().encode(`${cfgHash}\n${dHash}\n${inputs.substrateSpec}\n${created}`),
  )).slice(0, 32);
  const observations = buildObservations(scenario, imported.items, imported.outcomes);
  return await seal(inputs, {
    scenario,
    datasets: [dataset],
    cfgHash,
    dHash,
    plan,
    registration,
    created,
    endedAt: created,
    runId,
    observations,
    warnings: decidabilityWarnings(scenario, observations.length),
    defaultSubstrateName: imported.substrateName,
  });
}

/** What a run has measured, for {@link seal}. */
interface Measured {
  scenario: ResolvedScenario["scenario"];
  datasets: LoadedDataset[];
  cfgHash: string;
  dHash: string;
  plan: string;
  registration: RegistrationRef | null;
  created: string;
  endedAt: string;
  runId: string;
  observations: Observation[];
  harness?: HarnessCalibration;
  warnings: string[];
  defaultSubstrateName: string;
  /** Comparative claims: the baseline and where it came from. */
  baseline?: RunBaseline & { source: BaselineSource };
}

/** Analyse the observations by the plan, and build, seal and sign the record. */
async function seal(
  inputs: Omit<RunInputs, "substrate" | "monotonic">,
  m: Measured,
): Promise<RunOutput> {
  const { scenario, datasets, cfgHash, dHash, plan, registration, created, endedAt } = m;
  const { observations } = m;
  const runIdFinal = m.runId;
  const executed = { harness: m.harness };
  const warnings = m.warnings;
  const deterministic = inputs.sourceDateEpoch !== undefined;
  const baseline = m.baseline;
  const baselineSource = baseline?.source;
  inputs.onProgress?.({
    phase: "analyze",
    done: 0,
    total: scenario.analysis.resamples,
    failures: 0,
    elapsed_ms: 0,
  });
  // Every run that measured something produces a record: a crash inside the analysis becomes
  // INCONCLUSIVE with the reason.
  let analysis: Analysis;
  try {
    analysis = analyze(
      scenario,
      observations,
      (done, total) =>
        inputs.onProgress?.({ phase: "analyze", done, total, failures: 0, elapsed_ms: 0 }),
      baseline ? { observations: baseline.observations, paired: baseline.paired } : undefined,
    );
  } catch (e) {
    analysis = failedAnalysis(scenario, observations, e);
  }
  const baselineRef = baseline && baselineSource
    ? await baselineDataset(
      baseline.bytes,
      baseline.observations.length,
      baselineSourceText(baselineSource),
    )
    : undefined;

  // The bundle: the observations file is a dataset of the record (its hash is signed).
  const bundle: BundleBytes = {
    ...bundleBytes(scenario, observations),
    ...(baseline ? { baseline: baseline.bytes } : {}),
  };
  const observationsRef = await observationsDataset(bundle.observations, observations.length);

  const substrateName = inputs.substrateName ?? m.defaultSubstrateName;
  const substrateCommit = inputs.substrateCommit ?? "unknown";
  const lineage = [
    ...new Map(
      [
        ...(inputs.lineage ?? []),
        ...(baselineSource?.kind === "proof"
          ? [{
            proof_id: baselineSource.proofId,
            ...(baselineSource.entity ? { entity: baselineSource.entity } : {}),
          }]
          : []),
        ...(registration ? [{ proof_id: registration.digest }] : []),
      ].map((l) => [l.proof_id, l]),
    ).values(),
  ];
  const environment: Record<string, string> = { empiric: inputs.runtime.empiricVersion };
  if (!deterministic) Object.assign(environment, inputs.runtime.host);
  Object.assign(environment, inputs.runtime.libraries);
  if (deterministic) environment.source_date_epoch = String(inputs.sourceDateEpoch);

  const threshold = thresholdOf(scenario);
  const unsigned: UnsignedRecord = {
    identity: {
      schema_version: SCHEMA_VERSION,
      empiric_version: inputs.runtime.empiricVersion,
      empiric_git_commit: inputs.runtime.empiricCommit,
      created_at: created,
    },
    claim: {
      statement: scenario.claim.statement,
      operationalization: scenario.claim.operationalization,
      threshold,
      h0: scenario.claim.h0,
      h1: scenario.claim.h1,
    },
    pre_registration: { config_hash: cfgHash, data_hash: dHash, analysis_plan: plan },
    data: {
      substrate_name: substrateName,
      substrate_git_commit: substrateCommit,
      datasets: [
        ...datasets.map((d) => ({
          name: d.spec.name,
          content_hash: d.content_hash,
          n_records: BigInt(d.items.length),
          source: d.source,
          kind: d.spec.kind,
        })),
        observationsRef,
        ...(baselineRef ? [baselineRef] : []),
      ],
    },
    evidence: analysis.pillars.map((p) => p.evidence),
    verdict: {
      outcome: analysis.outcome,
      observed_value: analysis.observed_value,
      threshold: { ...threshold },
      reasoning: analysis.reasoning,
    },
    reproduction: {
      command: reproductionCommand(
        inputs.scenarioArgument ?? scenario.name,
        inputs.substrateSpec,
        baselineSource?.kind === "substrate"
          ? { option: "--baseline-substrate", value: baselineSource.spec }
          : baselineSource?.kind === "proof"
          ? { option: "--baseline", value: baselineSource.proofId }
          : null,
      ),
      environment,
      lineage_chain: lineage.map((l) => l.proof_id),
    },
    provenance: buildProvenance({
      runId: runIdFinal,
      scenarioName: scenario.name,
      configHash: cfgHash,
      dataHash: dHash,
      datasets,
      substrateName,
      substrateCommit,
      substrateSpec: inputs.substrateSpec,
      empiricVersion: inputs.runtime.empiricVersion,
      empiricCommit: inputs.runtime.empiricCommit,
      startedAt: created,
      endedAt,
      lineage,
      registration,
      scenario,
      analysis,
      harness: executed.harness,
      observations: observationsRef,
      ...(baselineSource && baselineRef && baseline
        ? { baseline: { source: baselineSource, dataset: baselineRef, paired: baseline.paired } }
        : {}),
    }),
  };
  const record = await signRecord(unsigned, inputs.key);
  inputs.onProgress?.({
    phase: "done",
    done: 1,
    total: 1,
    failures: analysis.failures.length,
    elapsed_ms: 0,
  });
  return {
    record,
    analysis,
    datasets,
    runId: runIdFinal,
    registration,
    observations,
    bundle,
    ...(executed.harness ? { harness: executed.harness } : {}),
    warnings,
    ...(baseline
      ? {
        baseline: {
          observations: baseline.observations,
          bytes: baseline.bytes,
          paired: baseline.paired,
        },
      }
      : {}),
  };
}
