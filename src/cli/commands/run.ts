/**
 * `empiric run`, `empiric scenarios list|show`, `empiric proofs list|show|reindex`: each calls
 * its operation from the registry through `invoke` as a local caller; `--json` prints the
 * operation's output object, exactly what the HTTP API and the MCP tools return.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { EXIT } from "../../errors/codes.ts";
import { CancelledError, EmpiricError, UsageError } from "../../errors/errors.ts";
import {
  createOpHost,
  getProofOp,
  getScenarioClaimOp,
  invoke,
  listScenariosOp,
  type OpHost,
  type OpsEnvironment,
  readProofIndexOp,
  reindexStoreOp,
  type ReportFormat,
  reportRecordOp,
  type RunOutput,
  runScenarioOp,
  type ScenarioClaim,
} from "../../ops/mod.ts";
import { checkEventsUrlAsync } from "../../ops/sinks.ts";
import { DEFAULT_DEMO_KEY, DEFAULT_EVENT_SOURCE } from "../../ops/constants.ts";
import { cliKey, readInput } from "../context.ts";
import type { RegistrationTrust } from "../../ops/mod.ts";
import { collect, readPolicyFile, readPublicKeys } from "./keys.ts";
import { progressReporter } from "../progress.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { formatMeasure } from "../measure.ts";
import { keyFileOption, keyOption, scenarioDirOption, storeDir, storeOption } from "../options.ts";
import { httpUrl } from "./export.ts";
import { formatOfPath } from "./report.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { appendText } from "../../fs/append.ts";
import { prettyJson } from "../../json/pretty.ts";
import type { JsonValue } from "../../json/value.ts";

/** `--registration` with its keys or policy, read before anything runs. */
async function registrationOption(
  host: CliHost,
  opts: { registration?: string; registrationKey?: string[]; registrationPolicy?: string },
): Promise<{ envelope: Uint8Array; trust: RegistrationTrust } | undefined> {
  if (!opts.registration) {
    if (opts.registrationKey || opts.registrationPolicy) {
      throw new UsageError("--registration-key and --registration-policy need --registration");
    }
    return undefined;
  }
  if (!opts.registrationKey && !opts.registrationPolicy) {
    throw new UsageError(
      "--registration needs the keys that signed it: --registration-key PUB or --registration-policy FILE",
    );
  }
  return {
    envelope: await readInput(host, opts.registration),
    trust: {
      publicKeys: await readPublicKeys(host, opts.registrationKey),
      policy: await readPolicyFile(host, opts.registrationPolicy),
    },
  };
}

/** The time from registration to run, for people (`3 d 4 h`, `12 min`, `40 s`). */
export function registrationAge(registeredAt: string, runAt: string): string {
  const s = Math.round((Date.parse(runAt) - Date.parse(registeredAt)) / 1000);
  if (Number.isNaN(s)) return "an unknown time";
  const sign = s < 0 ? "-" : "";
  const a = Math.abs(s);
  const d = Math.floor(a / 86400), h = Math.floor((a % 86400) / 3600);
  const m = Math.floor((a % 3600) / 60);
  const text = d > 0
    ? `${d} d ${h} h`
    : h > 0
    ? `${h} h ${m} min`
    : m > 0
    ? `${m} min ${a % 60} s`
    : `${a} s`;
  return sign + text;
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
        "SCENARIO is a scenario name (the name it declares; built-in or under ./scenarios/), or a file path.\n" +
        "SUBSTRATE is builtin:<name>, cmd:<command line> (JSON Lines), or an http(s):// URL.\n" +
        "A comparative scenario (analysis.comparison) also needs --baseline-substrate or --baseline.\n" +
        "A REFUTED or INCONCLUSIVE verdict is a result (exit 0) unless --fail-on says otherwise (exit 3).",
    )
    .argument("<scenario>", "scenario name or file")
    .option("--substrate <spec>", "system under test (default: the scenario's default_substrate)")
    .option(
      "--observations <file>",
      "judge these results instead of running a substrate (with --from; docs/importers.md)",
    )
    .addOption(
      new Option("--from <format>", "format of --observations").choices(
        ["hyperfine", "pytest-benchmark", "k6", "jsonl"] as const,
      ),
    )
    .option(
      "--select <name>",
      "with --observations: the command (hyperfine), benchmark (pytest-benchmark) or metric (k6) to take",
    )
    .addOption(keyOption("HMAC signing key as text (at least 32 bytes); also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption())
    .addOption(storeOption())
    .option("--no-store", "do not write to the proof store")
    .option(
      "--out <file>",
      "also write the record to this file (- for standard output); checked before the run",
    )
    .option("--force", "let --out replace an existing file")
    .option("--after <proof_id...>", "earlier proofs this run follows (lineage_chain)")
    .option("--substrate-name <name>", "name recorded for the substrate")
    .option(
      "--substrate-commit <rev>",
      "revision recorded for the substrate (default: detected with git)",
    )
    .option(
      "--baseline-substrate <spec>",
      "comparative scenarios: measure this substrate too, as the baseline, interleaved item by " +
        "item with the candidate in the pre-registered order",
    )
    .option("--baseline-substrate-name <name>", "name recorded for the baseline substrate")
    .option(
      "--baseline-substrate-commit <rev>",
      "revision recorded for the baseline substrate (default: detected with git)",
    )
    .option(
      "--baseline <proof>",
      "comparative scenarios: a stored proof whose observations are the baseline (a proof_id " +
        "in the store, or a record file with its observations beside it); it must verify",
    )
    .addOption(
      new Option(
        "--fail-on <verdicts>",
        "exit 3 when the verdict is refuted, inconclusive, or not-validated",
      ).choices(FAIL_ON),
    )
    .addOption(scenarioDirOption())
    .option("-q, --quiet", "no progress output")
    .option("--json", "print the result as JSON")
    .option(
      "--lineage-url <url>",
      "post the OpenLineage run lifecycle (START, RUNNING, COMPLETE or FAIL) to this collector",
    )
    .option("--lineage-namespace <ns>", "OpenLineage job namespace", "empiric")
    .option(
      "--events-url <url>",
      "send the signed record as a CloudEvent: POST to an http(s) sink, or publish to NATS " +
        "JetStream with nats://host:port/subject",
    )
    .addOption(
      new Option("--events-mode <mode>", "CloudEvents content mode (HTTP or NATS)").choices(
        ["structured", "binary"] as const,
      ).default("structured" as const),
    )
    .option("--events-source <uri>", "CloudEvents source", DEFAULT_EVENT_SOURCE)
    .option(
      "--registration <file>",
      "signed pre-registration (from empiric register): checked before measuring; its digest " +
        "goes into the record's lineage and provenance",
    )
    .option(
      "--registration-key <path>",
      "public key trusted to have signed the registration; repeatable",
      collect,
    )
    .option("--registration-policy <file>", "trust policy for the registration's signatures")
    .option(
      "--report <file>",
      "also write the record's report here: .html (a self-contained page), .md (Markdown) or " +
        ".xml (JUnit); repeatable",
      collect,
    )
    .option(
      "--summary",
      "append the Markdown report to $GITHUB_STEP_SUMMARY when it is set, else print it on " +
        "standard output",
    )
    .option("--summary-file <file>", "append the Markdown report to this file")
    .action(async (scenario, opts) => {
      if (opts.lineageUrl) httpUrl(opts.lineageUrl, "--lineage-url");
      const reports = (opts.report ?? []).map((path) => {
        const format = formatOfPath(path);
        if (!format) {
          throw new UsageError(
            `--report ${path}: name the file .html, .md or .xml (JUnit) so that its format is known`,
          );
        }
        return { path, format };
      });
      const stepSummary = host.env("GITHUB_STEP_SUMMARY") || undefined;
      // `--out -`: the record is standard output, and what people read goes to standard error.
      const recordToStdout = opts.out === "-";
      if (recordToStdout && opts.json) {
        throw new UsageError("--out - and --json both write to standard output; choose one");
      }
      if (recordToStdout && opts.summary && !stepSummary) {
        throw new UsageError(
          "--out - writes the record to standard output, where --summary would print too; give --summary-file",
        );
      }
      const say = recordToStdout ? (t: string) => host.stderr(t) : (t: string) => host.stdout(t);
      if (opts.summary && !stepSummary && opts.json) {
        throw new UsageError(
          "--summary prints Markdown on standard output when GITHUB_STEP_SUMMARY is not set, which --json uses; give --summary-file",
        );
      }
      if (opts.eventsUrl) await checkEventsUrlAsync(opts.eventsUrl, "--events-url");
      if ((opts.observations === undefined) !== (opts.from === undefined)) {
        throw new UsageError("--observations FILE and --from FORMAT go together");
      }
      if (opts.observations !== undefined && opts.substrate !== undefined) {
        throw new UsageError("--observations judges results made elsewhere: leave out --substrate");
      }
      if (opts.select !== undefined && opts.observations === undefined) {
        throw new UsageError("--select applies only with --observations");
      }
      const imported = opts.observations === undefined ? undefined : {
        observations: new TextDecoder().decode(await readInput(host, opts.observations)),
        observations_format: opts.from,
        observations_name: opts.observations.slice(opts.observations.lastIndexOf("/") + 1) ||
          "results",
        ...(opts.select !== undefined ? { select: opts.select } : {}),
      };
      const e = await env();
      const registration = await registrationOption(host, opts);
      const key = (await cliKey(host, opts, true))!;
      if (key.source === "demo") {
        host.stderr(
          `empiric: warning: signing with the public demo key (${DEFAULT_DEMO_KEY}); anyone can forge such records. Use --key-file or EMPIRIC_SIGN_KEY.\n`,
        );
      }
      const ops = createOpHost({
        caller: "local",
        env: e,
        key,
        store: opts.store === false ? undefined : storeDir(host, opts.store),
        scenarioDir: opts.scenarioDir,
      });
      const ctl = new AbortController();
      let signal: "SIGINT" | "SIGTERM" | undefined;
      const stopOnSignal = host.onInterrupt?.((s) => {
        signal = s;
        ctl.abort(s);
      });
      const progress = progressReporter(
        (s) => host.stderr(s),
        !opts.quiet && host.isTerminal("stderr"),
        () => e.monotonic(),
      );
      const warnings: string[] = [];
      let output: RunOutput | undefined;
      try {
        const r = await invoke(
          runScenarioOp,
          {
            scenario,
            substrate: opts.substrate,
            substrate_name: opts.substrateName,
            substrate_commit: opts.substrateCommit,
            after: opts.after,
            baseline_substrate: opts.baselineSubstrate,
            baseline_substrate_name: opts.baselineSubstrateName,
            baseline_substrate_commit: opts.baselineSubstrateCommit,
            baseline: opts.baseline,
            ...imported,
          },
          ops,
          {
            onProgress: opts.quiet ? undefined : progress.onProgress,
            signal: ctl.signal,
            out: recordToStdout ? undefined : opts.out,
            force: opts.force === true,
            lineage: opts.lineageUrl
              ? {
                url: opts.lineageUrl,
                namespace: opts.lineageNamespace,
                apiKey: host.env("OPENLINEAGE_API_KEY") || undefined,
              }
              : undefined,
            events: opts.eventsUrl
              ? { url: opts.eventsUrl, mode: opts.eventsMode, source: opts.eventsSource }
              : undefined,
            warn: (m) => warnings.push(m),
            registration,
            onOutput: (o) => (output = o),
          },
        ).catch((err) => {
          if (err instanceof EmpiricError && err.code === "cancelled" && signal) {
            throw new CancelledError(signal, `${err.message} (${signal})`, { cause: err });
          }
          throw err;
        });
        progress.finish();
        const reg = output?.registration;
        const createdAt = output?.record.identity.created_at ?? "";
        if (opts.json) {
          host.stdout(
            JSON.stringify({
              ...r,
              out: opts.out ?? null,
              registration: reg
                ? {
                  ...reg,
                  seconds_before_run: (Date.parse(createdAt) - Date.parse(reg.registered_at)) /
                    1000,
                }
                : null,
            }) + "\n",
          );
        } else {
          const against = r.baseline
            ? ` against ${r.baseline.substrate ?? `proof ${r.baseline.proof_id}`} (${
              r.baseline.paired ? "paired" : "unpaired"
            })`
            : "";
          say(`${r.outcome}  ${r.scenario} on ${r.substrate}${against}\n  ${r.reasoning}\n`);
          if (r.path) say(`  record:   ${r.path}\n`);
          if (opts.out && !recordToStdout) say(`  written:  ${opts.out}\n`);
          say(`  proof_id: ${r.proof_id}\n`);
          if (reg) {
            say(
              `  registered: ${reg.registered_at}, ${
                registrationAge(reg.registered_at, createdAt)
              } before the run (registration ${reg.digest})\n`,
            );
          }
        }
        if (recordToStdout && output) {
          host.stdout(prettyJson(output.record as unknown as JsonValue));
        }
        if (!opts.json) {
          for (const w of output?.warnings ?? []) host.stderr(`empiric: warning: ${w}\n`);
          const retried = output?.analysis.retried ?? [];
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
        for (const w of warnings) host.stderr(`empiric: warning: ${w}\n`);
        const summaries = [
          ...(opts.summary ? [stepSummary ?? "-"] : []),
          ...(opts.summaryFile ? [opts.summaryFile] : []),
        ];
        if (output && (reports.length > 0 || summaries.length > 0)) {
          await writeRunReports(host, ops, output, reports, summaries, opts.failOn);
        }
        const failOn = opts.failOn;
        const bad = failOn === "refuted"
          ? r.outcome === "REFUTED"
          : failOn === "inconclusive"
          ? r.outcome === "INCONCLUSIVE"
          : failOn === "not-validated"
          ? r.outcome !== "VALIDATED"
          : false;
        // A substrate that failed every item is down, whatever the verdict: never a green step.
        const dead = r.measured > 0 && r.failures.length === r.measured;
        if (dead) {
          const kinds = [...new Set(r.failures.map((f) => f.kind))].join(", ");
          host.stderr(
            `empiric: substrate_unavailable: every one of the ${r.measured} items failed (${kinds}): ` +
              `${r.substrate} did not answer; the ${r.outcome} record is kept as evidence\n`,
          );
        }
        setExit(dead ? EXIT.unavailable : bad ? EXIT.verdict : EXIT.ok);
      } finally {
        progress.finish();
        stopOnSignal?.();
        await ops.close();
      }
    });
}

/** Write a run's reports and append its Markdown summary where asked (`-`: standard output). */
async function writeRunReports(
  host: CliHost,
  ops: OpHost,
  output: RunOutput,
  reports: { path: string; format: ReportFormat }[],
  summaries: string[],
  failOn: typeof FAIL_ON[number] | undefined,
): Promise<void> {
  const recordJson = prettyJson(output.record as unknown as JsonValue);
  const make = async (format: ReportFormat) =>
    (await invoke(reportRecordOp, {
      record_json: recordJson,
      observations: output.observations,
      ...(output.baseline ? { baseline_observations: output.baseline.observations } : {}),
      format,
      junit_fail_on: failOn ?? "not-validated",
    }, ops)).text;
  for (const r of reports) {
    await writeFileAtomic(r.path, await make(r.format));
    host.stderr(`empiric: report written to ${r.path}\n`);
  }
  if (summaries.length > 0) {
    const md = await make("md");
    for (const s of summaries) {
      if (s === "-") host.stdout("\n" + md);
      else await appendText(s, md + "\n");
    }
  }
}

/** The `scenarios` command group. */
export function scenariosCommand(host: CliHost, env: () => Promise<OpsEnvironment>): AnyCommand {
  const cmd = new Command("scenarios").description(
    "List and show scenarios (built-in and ./scenarios/)",
  );
  cmd.command("list")
    .description("List scenarios: name, title, claim, default substrate")
    .addOption(scenarioDirOption())
    .option("--json", "print JSON (the list_scenarios result)")
    .action(async (opts) => {
      const ops = createOpHost({
        caller: "local",
        env: await env(),
        scenarioDir: opts.scenarioDir,
      });
      const r = await invoke(listScenariosOp, {}, ops);
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
    .description(
      "Show a scenario's claim and the pre-registration a run will record (config_hash, " +
        "data_hash, analysis plan), to publish before running it; --json for everything",
    )
    .argument("<name>", "scenario name or file")
    .addOption(scenarioDirOption())
    .option("--json", "print JSON (the get_scenario_claim result)")
    .action(async (name, opts) => {
      const ops = createOpHost({
        caller: "local",
        env: await env(),
        scenarioDir: opts.scenarioDir,
      });
      const c = await invoke(getScenarioClaimOp, { name }, ops);
      host.stdout(opts.json ? JSON.stringify(c) + "\n" : formatScenario(c));
    });
  return cmd;
}

/** A scenario's claim and pre-registration as text, for publishing before a run. */
function formatScenario(c: ScenarioClaim): string {
  const t = c.claim.threshold;
  const lines = [
    `${c.name}: ${c.title}`,
    `source:         ${c.origin === "builtin" ? "built-in" : c.path}`,
    "",
    `claim:          ${t.metric} ${t.comparator} ${t.value} ${t.units}`.trimEnd(),
    `statement:      ${c.claim.statement}`,
    `measured as:    ${c.claim.operationalization}`,
    `H0:             ${c.claim.h0}`,
    `H1:             ${c.claim.h1}`,
    `datasets:       ${
      c.datasets.map((d) => `${d.name} (${d.kind}, ${d.path ?? d.url})`).join("; ")
    }`,
  ];
  if (c.default_substrate) lines.push(`substrate:      ${c.default_substrate} (default)`);
  lines.push(
    "",
    "pre-registration",
    `  config_hash:  ${c.config_hash}`,
    `  data_hash:    ${c.data_hash ?? `(unknown: ${c.data_error})`}`,
    `  analysis plan: ${c.analysis_plan}`,
  );
  return lines.join("\n") + "\n";
}

/** The `proofs` command group. */
export function proofsCommand(host: CliHost, env: () => Promise<OpsEnvironment>): AnyCommand {
  const cmd = new Command("proofs").description("Read the proof store's index");
  const readHost = async (store: string | undefined) =>
    createOpHost({
      caller: "local",
      env: await env(),
      store: storeDir(host, store),
      createStore: false,
    });
  cmd.command("list")
    .description("List stored proofs, newest first")
    .addOption(storeOption())
    .option("--scenario <name>", "only this scenario")
    .option("--substrate <spec>", "only this substrate")
    .option("--outcome <outcome>", "only VALIDATED, REFUTED or INCONCLUSIVE")
    .option("--created-after <time>", "only proofs created at or after this RFC 3339 time")
    .option("--created-before <time>", "only proofs created before this RFC 3339 time")
    .option("--limit <n>", "at most this many (1-1000)", "50")
    .option("--cursor <cursor>", "continue after the page that printed this next cursor")
    .option("--offset <n>", "skip this many (slower than --cursor on deep pages)", "0")
    .option("--json", "print JSON (the read_proof_index result)")
    .action(async (opts) => {
      const limit = Number(opts.limit), offset = Number(opts.offset);
      if (!Number.isInteger(limit) || !Number.isInteger(offset)) {
        throw new UsageError("--limit and --offset take whole numbers");
      }
      const ops = await readHost(opts.store);
      try {
        const page = await invoke(
          readProofIndexOp,
          {
            scenario: opts.scenario,
            substrate: opts.substrate,
            outcome: opts.outcome?.toUpperCase(),
            created_after: opts.createdAfter,
            created_before: opts.createdBefore,
            limit,
            cursor: opts.cursor,
            offset,
          },
          ops,
          {
            describe: (m) => m === undefined ? "the options" : `--${m.replaceAll("_", "-")}`,
            warn: (m) => host.stderr(`empiric: warning: ${m}\n`),
          },
        );
        if (opts.json) {
          host.stdout(JSON.stringify(page) + "\n");
          return;
        }
        for (const e of page.entries) {
          host.stdout(
            `${e.created_at}  ${e.outcome.padEnd(12)} ${
              e.proof_id.slice(0, 12)
            }  ${e.scenario} on ${e.substrate}  ${e.metric} = ${
              formatMeasure(e.observed_value, e.units)
            }  ${e.path}\n`,
          );
        }
        host.stdout(
          page.total === null
            ? `${page.entries.length} more proofs in ${page.store}\n`
            : `${page.entries.length} of ${page.total} proofs in ${page.store}\n`,
        );
        if (page.next_cursor) host.stdout(`next page: --cursor ${page.next_cursor}\n`);
      } finally {
        await ops.close();
      }
    });
  cmd.command("show")
    .description("Print one stored record exactly as stored")
    .argument("<proof_id>", "the record's proof_id, or its first characters (at least 4)")
    .addOption(storeOption())
    .action(async (proofId, opts) => {
      const ops = await readHost(opts.store);
      try {
        host.stdout((await invoke(getProofOp, { proof_id: proofId }, ops)).record_json);
      } finally {
        await ops.close();
      }
    });
  cmd.command("reindex")
    .description("Rebuild the store's index from the stored records")
    .addOption(storeOption())
    .option("--json", "print JSON (the reindex_store result)")
    .action(async (opts) => {
      const ops = await readHost(opts.store);
      try {
        const r = await invoke(reindexStoreOp, {}, ops);
        host.stdout(
          opts.json ? JSON.stringify(r) + "\n" : `indexed ${r.indexed} records in ${r.store}\n`,
        );
      } finally {
        await ops.close();
      }
    });
  return cmd;
}
