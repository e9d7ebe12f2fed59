/**
 * `empiric run`, `empiric scenarios list|show`, `empiric proofs list|reindex`.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { EXIT } from "../../errors/codes.ts";
import { UsageError } from "../../errors/errors.ts";
import { DEFAULT_DEMO_KEY } from "../../crypto/keys.ts";
import { prettyJson } from "../../json/pretty.ts";
import type { JsonValue } from "../../json/value.ts";
import { getScenarioClaim, listScenarios } from "../../ops/scenarios.ts";
import { readProofIndex } from "../../ops/proof_index.ts";
import { runScenarioOp } from "../../ops/run_scenario.ts";
import type { OpsEnvironment } from "../../ops/environment.ts";
import { ProofStore, writeFileAtomic } from "../../store/store.ts";
import { cliKey } from "../context.ts";
import { progressReporter } from "../progress.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { OpenLineageRunEmitter } from "../../export/openlineage.ts";
import { DEFAULT_EVENT_SOURCE } from "../../export/common.ts";
import { httpUrl } from "./export.ts";

/** `--store`, then `EMPIRIC_STORE`, then `./proofs`. */
function storeDir(host: CliHost, opt: string | boolean | undefined): string {
  return typeof opt === "string" ? opt : host.env("EMPIRIC_STORE") || "proofs";
}

const FAIL_ON = ["refuted", "inconclusive", "not-validated"] as const;

/** The `run` command. */
export function runCommand(
  host: CliHost,
  env: () => Promise<OpsEnvironment>,
  setExit: (c: number) => void,
): AnyCommand {
  return new Command("run")
    .summary("Run a scenario against a substrate and write a signed proof record")
    .description(
      "Run a scenario against a substrate and write a signed proof record.\n" +
        "SCENARIO is a built-in name, a name under ./scenarios/, or a file path.\n" +
        "SUBSTRATE is builtin:<name>, cmd:<command line> (JSON Lines), or an http(s):// URL.\n" +
        "A REFUTED or INCONCLUSIVE verdict is a result (exit 0) unless --fail-on says otherwise (exit 3).",
    )
    .argument("<scenario>", "scenario name or file")
    .option("--substrate <spec>", "system under test (default: the scenario's default_substrate)")
    .addOption(
      new Option(
        "--key <text>",
        "HMAC signing key as text (at least 32 bytes); also EMPIRIC_SIGN_KEY",
      ).conflicts("keyFile"),
    )
    .option("--key-file <path>", "read the signing key from a file")
    .option("--store <dir>", "proof store directory (default: EMPIRIC_STORE, else ./proofs)")
    .option("--no-store", "do not write to the proof store")
    .option("--out <file>", "also write the record to this file")
    .option("--after <proof_id...>", "earlier proofs this run follows (lineage_chain)")
    .option("--substrate-name <name>", "name recorded for the substrate")
    .option(
      "--substrate-commit <rev>",
      "revision recorded for the substrate (default: detected with git)",
    )
    .addOption(
      new Option(
        "--fail-on <verdicts>",
        "exit 3 when the verdict is refuted, inconclusive, or not-validated",
      ).choices(FAIL_ON),
    )
    .option("--scenario-dir <dir>", "directory searched for scenario names", "scenarios")
    .option("-q, --quiet", "no progress output")
    .option("--json", "print the result as JSON")
    .option(
      "--lineage-url <url>",
      "post the OpenLineage run lifecycle (START, RUNNING, COMPLETE or FAIL) to this collector",
    )
    .option("--lineage-namespace <ns>", "OpenLineage job namespace", "empiric")
    .option("--events-url <url>", "POST the signed record as a CloudEvent to this sink")
    .addOption(
      new Option("--events-mode <mode>", "CloudEvents HTTP content mode").choices(
        ["structured", "binary"] as const,
      ).default("structured" as const),
    )
    .option("--events-source <uri>", "CloudEvents source", DEFAULT_EVENT_SOURCE)
    .action(async (scenario, opts) => {
      const lineage = opts.lineageUrl
        ? new OpenLineageRunEmitter(httpUrl(opts.lineageUrl, "--lineage-url"), {
          namespace: opts.lineageNamespace,
          apiKey: host.env("OPENLINEAGE_API_KEY") || undefined,
          onError: (err) => host.stderr(`empiric: warning: lineage: ${err.message}\n`),
        })
        : undefined;
      if (opts.eventsUrl) httpUrl(opts.eventsUrl, "--events-url");
      const e = await env();
      const key = await cliKey(host, opts, true);
      if (key!.source === "demo") {
        host.stderr(
          `empiric: warning: signing with the public demo key (${DEFAULT_DEMO_KEY}); anyone can forge such records. Use --key-file or EMPIRIC_SIGN_KEY.\n`,
        );
      }
      const store = opts.store === false
        ? undefined
        : await ProofStore.open(storeDir(host, opts.store));
      const ctl = new AbortController();
      const stopOnSignal = host.onInterrupt?.(() => ctl.abort());
      const progress = progressReporter(
        (s) => host.stderr(s),
        !opts.quiet && host.isTerminal("stderr"),
        () => e.monotonic(),
      );
      try {
        const r = await runScenarioOp(
          {
            scenario,
            substrate: opts.substrate,
            substrateName: opts.substrateName,
            substrateCommit: opts.substrateCommit,
            after: opts.after,
          },
          {
            env: e,
            key: key!.bytes,
            store,
            scenarioDir: opts.scenarioDir,
            onProgress: lineage
              ? (p) => {
                if (!opts.quiet) progress.onProgress(p);
                lineage.progress(p);
              }
              : opts.quiet
              ? undefined
              : progress.onProgress,
            signal: ctl.signal,
            onStart: lineage ? (info) => lineage.start(info) : undefined,
          },
        ).catch(async (err) => {
          await lineage?.fail(err);
          throw err;
        });
        progress.finish();
        await lineage?.complete(r.output.record);
        if (opts.out) {
          await writeFileAtomic(opts.out, prettyJson(r.output.record as unknown as JsonValue));
        }
        if (opts.eventsUrl) {
          const { postCloudEvent, wrap } = await import("../../export/cloudevents.ts");
          const event = await wrap(r.output.record, { source: opts.eventsSource });
          await postCloudEvent(opts.eventsUrl, event, { mode: opts.eventsMode });
        }
        if (opts.json) {
          const { output: _o, ...rest } = r;
          host.stdout(JSON.stringify({ ...rest, out: opts.out ?? null }) + "\n");
        } else {
          host.stdout(`${r.outcome}  ${r.scenario} on ${r.substrate}\n  ${r.reasoning}\n`);
          if (r.path) host.stdout(`  record:   ${r.path}\n`);
          if (opts.out) host.stdout(`  written:  ${opts.out}\n`);
          host.stdout(`  proof_id: ${r.proof_id}\n`);
        }
        if (!opts.json) {
          for (const w of r.output.warnings) host.stderr(`empiric: warning: ${w}\n`);
          const retried = r.output.analysis.retried;
          if (retried.length > 0) {
            host.stderr(`empiric: ${retried.length} of ${r.measured} items needed retries\n`);
          }
        }
        if (r.failures.length > 0 && !opts.json) {
          host.stderr(`empiric: ${r.failures.length} of ${r.measured} items failed:\n`);
          for (const f of r.failures.slice(0, 10)) {
            host.stderr(`  ${f.id}: ${f.kind}: ${f.message}\n`);
          }
          if (r.failures.length > 10) host.stderr(`  … and ${r.failures.length - 10} more\n`);
        }
        const failOn = opts.failOn;
        const bad = failOn === "refuted"
          ? r.outcome === "REFUTED"
          : failOn === "inconclusive"
          ? r.outcome === "INCONCLUSIVE"
          : failOn === "not-validated"
          ? r.outcome !== "VALIDATED"
          : false;
        setExit(bad ? EXIT.verdict : EXIT.ok);
      } finally {
        progress.finish();
        stopOnSignal?.();
        store?.close();
      }
    });
}

/** The `scenarios` command group. */
export function scenariosCommand(host: CliHost, env: () => Promise<OpsEnvironment>): AnyCommand {
  const cmd = new Command("scenarios").description(
    "List and show scenarios (built-in and ./scenarios/)",
  );
  cmd.command("list")
    .description("List scenarios: name, title, claim, default substrate")
    .option("--scenario-dir <dir>", "directory of scenario files", "scenarios")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const r = await listScenarios(await env(), opts.scenarioDir);
      if (opts.json) {
        host.stdout(JSON.stringify(r) + "\n");
        return;
      }
      for (const s of r.scenarios) {
        const t = s.threshold;
        host.stdout(`${s.name.padEnd(22)} ${s.origin === "builtin" ? "(built-in)" : s.path}\n`);
        host.stdout(
          `  ${s.title}\n  claim: ${t.metric} ${t.comparator} ${t.value} ${t.units}`.trimEnd() +
            `\n`,
        );
        if (s.default_substrate) host.stdout(`  default substrate: ${s.default_substrate}\n`);
      }
      for (const e of r.errors) host.stderr(`empiric: cannot load ${e.path}: ${e.message}\n`);
    });
  cmd.command("show")
    .description("Show a scenario's claim, datasets, probe, metrics, analysis plan and config_hash")
    .argument("<name>", "scenario name or file")
    .option("--scenario-dir <dir>", "directory of scenario files", "scenarios")
    .option("--json", "print JSON")
    .action(async (name, opts) => {
      const c = await getScenarioClaim(await env(), name, opts.scenarioDir);
      host.stdout(opts.json ? JSON.stringify(c) + "\n" : JSON.stringify(c, null, 2) + "\n");
    });
  return cmd;
}

/** The `proofs` command group. */
export function proofsCommand(host: CliHost): AnyCommand {
  const cmd = new Command("proofs").description("Read the proof store's index");
  cmd.command("list")
    .description("List stored proofs, newest first")
    .option("--store <dir>", "proof store directory (default: EMPIRIC_STORE, else ./proofs)")
    .option("--scenario <name>", "only this scenario")
    .option("--substrate <spec>", "only this substrate")
    .option("--outcome <outcome>", "only VALIDATED, REFUTED or INCONCLUSIVE")
    .option("--limit <n>", "at most this many (1-1000)", "50")
    .option("--offset <n>", "skip this many", "0")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const limit = Number(opts.limit), offset = Number(opts.offset);
      if (!Number.isInteger(limit) || !Number.isInteger(offset)) {
        throw new UsageError("--limit and --offset take whole numbers");
      }
      const store = await ProofStore.open(storeDir(host, opts.store));
      try {
        const page = readProofIndex(store, {
          scenario: opts.scenario,
          substrate: opts.substrate,
          outcome: opts.outcome,
          limit,
          offset,
        });
        if (opts.json) {
          host.stdout(JSON.stringify(page) + "\n");
          return;
        }
        for (const e of page.entries) {
          host.stdout(
            `${e.created_at}  ${e.outcome.padEnd(12)} ${
              e.proof_id.slice(0, 16)
            }…  ${e.scenario} on ${e.substrate}  ${e.metric}=${e.observed_value}\n`,
          );
        }
        host.stdout(`${page.entries.length} of ${page.total} proofs in ${page.store}\n`);
      } finally {
        store.close();
      }
    });
  cmd.command("reindex")
    .description("Rebuild the store's index from the record files")
    .option("--store <dir>", "proof store directory (default: EMPIRIC_STORE, else ./proofs)")
    .action(async (opts) => {
      const store = await ProofStore.open(storeDir(host, opts.store));
      try {
        host.stdout(`indexed ${await store.reindex()} records in ${store.dir}\n`);
      } finally {
        store.close();
      }
    });
  return cmd;
}
