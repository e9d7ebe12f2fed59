/**
 * The implementation of `run_scenario` (src/ops/run_scenario.ts declares the operation and
 * loads this module when a run starts).
 *
 * @module
 */
import type { z } from "zod";
import { EmpiricError, UsageError } from "../errors/errors.ts";
import { assertSigningKey } from "../crypto/keys.ts";
import type { RunOutput, RuntimeInfo } from "../run/run.ts";
import { analysisPlanText, thresholdOf } from "../run/analyze.ts";
import { resolveRelative } from "../scenario/load.ts";
import { splitCommandLine } from "../substrate/cmd.ts";
import type { SubstrateSpec } from "../substrate/spec.ts";
import type { RunSpanControl } from "../telemetry/instrument.ts";
import { type OpContext, scenarioCatalog } from "./context.ts";
import type { OpsEnvironment } from "./environment.ts";
import { checkRegistration } from "../attest/registration.ts";
import {
  type RunScenarioInput,
  type RunScenarioView,
  type RunStartInfo,
  sourceDateEpoch,
} from "./run_scenario.ts";

async function substrateCommitOf(env: OpsEnvironment, s: SubstrateSpec): Promise<string> {
  if (s.kind === "builtin") return env.runtime().empiricCommit;
  if (s.kind === "cmd") {
    const argv = splitCommandLine(s.commandLine);
    for (const candidate of [argv[1], argv[0]]) {
      if (candidate && /[\\/.]/.test(candidate) && await env.exists(candidate)) {
        const c = await env.gitCommit(candidate);
        if (c) return c;
      }
    }
  }
  return "unknown";
}

/** The runtime description with the substrate's runtime added, where it can be known. */
async function runtimeFor(env: OpsEnvironment, s: SubstrateSpec): Promise<RuntimeInfo> {
  const runtime = env.runtime();
  if (s.kind !== "cmd" || env.substrateRuntime === undefined) return runtime;
  const version = await env.substrateRuntime(splitCommandLine(s.commandLine));
  if (version === undefined) return runtime;
  return { ...runtime, host: { ...runtime.host, substrate_runtime: version } };
}

/**
 * How the reproduction command names the scenario so that it resolves from the directory the
 * run was started in: a built-in, or a file `./scenarios/` finds by its declared name, by that
 * name; any other file by the path it was found at (unless that path holds white space, which
 * the record's schema does not allow there).
 */
async function scenarioArgument(
  ctx: OpContext,
  resolved: Awaited<ReturnType<OpContext["scenarios"]["resolve"]>>,
): Promise<string> {
  const name = resolved.scenario.name;
  if (resolved.origin.kind === "builtin" || ctx.caller === "network") return name;
  try {
    const fromHere = await scenarioCatalog(ctx.env, "scenarios", "local").resolve(name);
    if (fromHere.origin.kind === "file" && samePath(fromHere.origin.path, resolved.origin.path)) {
      return name;
    }
  } catch {
    // the name does not resolve from here: the path does
  }
  // The record's schema allows no white space in the scenario argument: such a path cannot be
  // written, and the name is the best the command can say.
  return /\s/.test(resolved.origin.path) ? name : resolved.origin.path;
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/^\.\//, "").replace(/\/+/g, "/");
  return norm(a) === norm(b);
}

function startInfo(
  resolved: Awaited<ReturnType<OpContext["scenarios"]["resolve"]>>,
  spec: string,
): RunStartInfo {
  const sc = resolved.scenario;
  const origin = resolved.origin.path;
  return {
    scenario: sc.name,
    substrate: spec,
    claim: {
      statement: sc.claim.statement,
      operationalization: sc.claim.operationalization,
      threshold: thresholdOf(sc),
      h0: sc.claim.h0,
      h1: sc.claim.h1,
    },
    datasets: sc.datasets.map((d) => {
      const where = d.url ?? resolveRelative(origin, d.path ?? "");
      return {
        name: d.name,
        kind: d.kind,
        source: d.source ?? d.url ?? (origin.startsWith("builtin:") ? `builtin:${where}` : where),
      };
    }),
    analysis_plan: analysisPlanText(sc),
  };
}

/** Run, sign, store and announce; the span learns the resolved scenario. */
export async function runTraced(
  input: z.infer<typeof RunScenarioInput>,
  ctx: OpContext,
  span: RunSpanControl,
): Promise<RunScenarioView> {
  if (!ctx.key) throw new UsageError("a run needs a signing key");
  assertSigningKey(ctx.key.bytes);
  const registration = ctx.registration;
  if (ctx.caller === "network" && (ctx.out || ctx.lineage || ctx.events || registration)) {
    throw new EmpiricError("forbidden", "network clients cannot direct a run's output");
  }
  const resolved = await ctx.scenarios.resolve(input.scenario);
  if (ctx.out) {
    // Before measuring: a run must not end unable to write its record where asked.
    const { checkOutputFile } = await import("../fs/target.ts");
    await checkOutputFile(ctx.out, { force: ctx.force });
  }
  if (input.observations !== undefined || input.observations_format !== undefined) {
    return await importTraced(input, ctx, span, resolved);
  }
  if (input.select !== undefined || input.observations_name !== undefined) {
    throw new UsageError("select and observations_name apply only with observations");
  }
  const spec = input.substrate ?? resolved.scenario.default_substrate;
  if (!spec) {
    throw new UsageError(
      `scenario ${resolved.scenario.name} has no default substrate: give --substrate (builtin:<name>, cmd:<command>, or an http(s):// URL)`,
    );
  }
  const substrateSpec = ctx.substrate(spec);
  span.resolved(resolved.scenario.name, spec);
  const epoch = sourceDateEpoch(ctx.env);
  const store = ctx.storeLocation === undefined ? undefined : await ctx.store();
  const predecessor = await store?.predecessor(resolved.scenario.name, spec);
  const links = [
    ...(predecessor ? [predecessor] : []),
    ...await Promise.all(
      (input.after ?? []).map((id) => store?.link(id) ?? Promise.resolve({ proof_id: id })),
    ),
  ];
  const commit = input.substrate_commit ?? await substrateCommitOf(ctx.env, substrateSpec);
  if (input.baseline_substrate !== undefined && input.baseline !== undefined) {
    throw new UsageError(
      "give one baseline: --baseline-substrate (measured in this run) or --baseline (a stored proof), not both",
    );
  }
  const baselineSpec = input.baseline_substrate === undefined
    ? undefined
    : ctx.substrate(input.baseline_substrate);
  const baselineCommit = baselineSpec
    ? input.baseline_substrate_commit ?? await substrateCommitOf(ctx.env, baselineSpec)
    : undefined;
  const storedBaseline = input.baseline === undefined
    ? undefined
    : await (await import("./baseline_proof.ts")).loadBaselineProof(
      input.baseline,
      resolved.scenario,
      ctx,
      store,
    );

  const { OpenLineageRunEmitter } = ctx.lineage
    ? await import("../export/openlineage.ts")
    : { OpenLineageRunEmitter: undefined };
  const lineage = ctx.lineage && OpenLineageRunEmitter
    ? new OpenLineageRunEmitter(ctx.lineage.url, {
      namespace: ctx.lineage.namespace,
      apiKey: ctx.lineage.apiKey,
      onError: (err) => ctx.warn?.(`lineage: ${err.message}`),
    })
    : undefined;
  await lineage?.start(startInfo(resolved, spec));

  const { runScenario } = await import("../run/run.ts");
  const { openSubstrate } = await import("../substrate/open.ts");
  let output: RunOutput;
  try {
    const substrate = openSubstrate(spec);
    const baselineSubstrate = input.baseline_substrate === undefined
      ? undefined
      : openSubstrate(input.baseline_substrate);
    try {
      output = await runScenario({
        resolved,
        substrateSpec: spec,
        scenarioArgument: await scenarioArgument(ctx, resolved),
        substrate,
        substrateName: input.substrate_name,
        substrateCommit: commit,
        key: ctx.key.bytes,
        runtime: await runtimeFor(ctx.env, substrateSpec),
        now: () => ctx.env.now(),
        monotonic: () => ctx.env.monotonic(),
        sourceDateEpoch: epoch,
        lineage: links,
        onProgress: lineage
          ? (p) => {
            ctx.onProgress?.(p);
            lineage.progress(p);
          }
          : ctx.onProgress,
        signal: ctx.signal,
        checkRegistration: registration
          ? (facts) => checkRegistration(registration.envelope, facts, registration.trust)
          : undefined,
        baseline: baselineSubstrate
          ? {
            kind: "substrate",
            spec: input.baseline_substrate!,
            substrate: baselineSubstrate,
            name: input.baseline_substrate_name ?? baselineSubstrate.defaultName,
            commit: baselineCommit ?? "unknown",
          }
          : storedBaseline,
      });
    } finally {
      await Promise.all([substrate.close(), baselineSubstrate?.close()]);
    }
  } catch (e) {
    await lineage?.fail(e);
    throw e;
  }
  return await keep(output, ctx, store, lineage, resolved.scenario.name, spec, {
    substrate: input.baseline_substrate ?? null,
    proof_id: storedBaseline?.proofId ?? null,
  });
}

/** `run --observations FILE --from FORMAT`: judge results made elsewhere. */
async function importTraced(
  input: z.infer<typeof RunScenarioInput>,
  ctx: OpContext,
  span: RunSpanControl,
  resolved: Awaited<ReturnType<OpContext["scenarios"]["resolve"]>>,
): Promise<RunScenarioView> {
  if (input.observations === undefined || input.observations_format === undefined) {
    throw new UsageError(
      "observations and observations_format go together (--observations FILE --from FORMAT)",
    );
  }
  if (input.substrate !== undefined) {
    throw new UsageError(
      "observations from a results file are judged without a substrate: leave out substrate",
    );
  }
  if (input.baseline !== undefined || input.baseline_substrate !== undefined) {
    throw new UsageError(
      "observations from a results file have no baseline: leave out baseline and baseline_substrate",
    );
  }
  const format = input.observations_format;
  const spec = `import:${format}`;
  span.resolved(resolved.scenario.name, spec);
  const name = input.observations_name ?? "results";
  const bytes = new TextEncoder().encode(input.observations);
  const { importResults } = await import("../run/import.ts");
  const imported = importResults(format, bytes, name, input.select);
  const store = ctx.storeLocation === undefined ? undefined : await ctx.store();
  const predecessor = await store?.predecessor(resolved.scenario.name, spec);
  const links = [
    ...(predecessor ? [predecessor] : []),
    ...await Promise.all(
      (input.after ?? []).map((id) => store?.link(id) ?? Promise.resolve({ proof_id: id })),
    ),
  ];
  const registration = ctx.registration;
  const { runImported } = await import("../run/run.ts");
  const output = await runImported({
    resolved,
    substrateSpec: spec,
    scenarioArgument: await scenarioArgument(ctx, resolved),
    substrateName: input.substrate_name,
    substrateCommit: input.substrate_commit ?? "unknown",
    key: ctx.key!.bytes,
    runtime: ctx.env.runtime(),
    now: () => ctx.env.now(),
    sourceDateEpoch: sourceDateEpoch(ctx.env),
    lineage: links,
    onProgress: ctx.onProgress,
    checkRegistration: registration
      ? (facts) => checkRegistration(registration.envelope, facts, registration.trust)
      : undefined,
    file: { name, bytes, format },
    imported,
  });
  return await keep(output, ctx, store, undefined, resolved.scenario.name, spec);
}

/** Write the record (and its bundle) where asked, store it, and announce it. */
async function keep(
  output: RunOutput,
  ctx: OpContext,
  store: Awaited<ReturnType<OpContext["store"]>> | undefined,
  lineage: { complete(record: RunOutput["record"]): Promise<void> } | undefined,
  scenario: string,
  spec: string,
  baselineOf: { substrate: string | null; proof_id: string | null } = {
    substrate: null,
    proof_id: null,
  },
): Promise<RunScenarioView> {
  const record = output.record;
  // Where the caller asked for the record, before the store: nothing is stored when the
  // record cannot be written where asked. The bundle parts go first, so whoever sees a record
  // sees the files it seals.
  if (ctx.out) {
    const { createFileAtomic, writeFileAtomic } = await import("../fs/atomic.ts");
    const { prettyJson } = await import("../json/pretty.ts");
    const { bundlePaths } = await import("../run/bundle_paths.ts");
    const paths = bundlePaths(ctx.out);
    await writeFileAtomic(paths.observations, output.bundle.observations);
    await writeFileAtomic(paths.scenario, output.bundle.scenario);
    if (output.bundle.baseline) await writeFileAtomic(paths.baseline, output.bundle.baseline);
    const text = prettyJson(record as unknown as never);
    if (ctx.force) await writeFileAtomic(ctx.out, text);
    else if (!(await createFileAtomic(ctx.out, new TextEncoder().encode(text)))) {
      throw new EmpiricError(
        "already_exists",
        `--out ${ctx.out} appeared while the run went on; nothing was stored (give --force to replace it)`,
      );
    }
  }
  const path = store ? (await store.put(record, output.bundle)).path : null;
  ctx.onOutput?.(output);
  await lineage?.complete(record);
  if (ctx.events) {
    try {
      const { wrap } = await import("../export/cloudevents.ts");
      const { sendCloudEvent } = await import("../export/sink.ts");
      const event = await wrap(record, { source: ctx.events.source });
      await sendCloudEvent(ctx.events.url, event, { mode: ctx.events.mode });
    } catch (e) {
      ctx.warn?.(`events: ${(e as Error).message}`);
    }
  }
  return {
    proof_id: record.identity.proof_id,
    scenario,
    substrate: spec,
    outcome: record.verdict.outcome,
    observed_value: record.verdict.observed_value,
    reasoning: record.verdict.reasoning,
    path: path === null ? null : ctx.shownPath(path, store!.location),
    measured: output.analysis.measured,
    failures: output.analysis.failures,
    ...(output.analysis.baseline
      ? {
        baseline: {
          ...baselineOf,
          paired: output.analysis.baseline.paired,
          measured: output.analysis.baseline.measured,
          failures: output.analysis.baseline.failures,
        },
      }
      : {}),
  };
}
