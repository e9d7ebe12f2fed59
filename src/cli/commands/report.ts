/**
 * `empiric report <record | proof_id>`: a record's report as HTML, Markdown or JUnit XML
 * (`report_record` for a file, `report_proof` for a stored proof), written to a file atomically
 * or to standard output.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { IoError, UsageError } from "../../errors/errors.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import {
  createOpHost,
  invoke,
  JUNIT_FAIL_ON_CHOICES,
  type OpsEnvironment,
  REPORT_FORMATS,
  type ReportFormat,
  reportProofOp,
  reportRecordOp,
} from "../../ops/mod.ts";
import { cliKey, readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { collect } from "./keys.ts";
import { keyFileOption, keyOption, storeDir, storeOption } from "../options.ts";

/**
 * The format a report file's name implies: `.html`/`.htm`, `.md`/`.markdown`, `.xml`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatOfPath } from "./report.ts";
 * assert.equal(formatOfPath("out/report.html"), "html");
 * assert.equal(formatOfPath("junit.xml"), "junit");
 * assert.equal(formatOfPath("summary.md"), "md");
 * assert.equal(formatOfPath("report.txt"), undefined);
 * ```
 */
export function formatOfPath(path: string): ReportFormat | undefined {
  const ext = path.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (ext === "html" || ext === "htm") return "html";
  if (ext === "md" || ext === "markdown") return "md";
  if (ext === "xml") return "junit";
  return undefined;
}

/** Read `--public-key` PEM files. */
async function readPems(host: CliHost, paths: string[] | undefined): Promise<string[] | undefined> {
  if (!paths) return undefined;
  const out: string[] = [];
  for (const p of paths) out.push(new TextDecoder().decode(await readInput(host, p)));
  return out;
}

/** The `report` command. */
export function reportCommand(host: CliHost, env: () => Promise<OpsEnvironment>): AnyCommand {
  return new Command("report")
    .summary("Write a record's report: HTML page, Markdown summary or JUnit XML")
    .description(
      "Write the report of a proof record: a record file (its observations are read from\n" +
        "<record>.observations.jsonl beside it) or the proof_id of a stored record. HTML is one\n" +
        "self-contained page (plots included, nothing loaded from anywhere); md is Markdown for CI\n" +
        "job summaries and pull-request comments; junit is JUnit XML for CI test views. The lineage\n" +
        "trend comes from the proof store when there is one. The signature is checked with --key,\n" +
        '--key-file or EMPIRIC_SIGN_KEY (the report says "not verified" without one).',
    )
    .argument("<record>", "a record file, or a stored record's proof_id")
    .addOption(
      new Option(
        "--format <format>",
        "html, md or junit (default: from --out's extension, else html)",
      )
        .choices(REPORT_FORMATS),
    )
    .option("--out <file>", "write the report here (atomically) instead of standard output")
    .addOption(
      new Option("--junit-fail-on <verdicts>", "junit: which verdicts are failures").choices(
        JUNIT_FAIL_ON_CHOICES,
      ).default("not-validated" as const),
    )
    .addOption(keyOption("HMAC key to check the signature with; also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption())
    .option("--demo-key", "check the signature with the public demo key")
    .option("--attestation <file>", "a DSSE attestation of the record, checked with --public-key")
    .option(
      "--public-key <path>",
      "public key (PEM) trusted to sign the attestation; repeatable",
      collect,
    )
    .addOption(storeOption())
    .action(async (target, opts) => {
      if (opts.attestation && !opts.publicKey) {
        throw new UsageError("--attestation needs --public-key");
      }
      const format = opts.format ?? (opts.out ? formatOfPath(opts.out) : undefined) ?? "html";
      const key = await cliKey(host, opts, opts.demoKey === true);
      const e = await env();
      const ops = createOpHost({
        caller: "local",
        env: e,
        key,
        store: storeDir(host, opts.store),
        createStore: false,
      });
      try {
        const kind = await host.stat(target);
        let text: string;
        if (kind === "file") {
          const attestation = opts.attestation
            ? new TextDecoder().decode(await readInput(host, opts.attestation))
            : undefined;
          text = (await invoke(reportRecordOp, {
            path: target,
            format,
            junit_fail_on: opts.junitFailOn,
            ...(attestation !== undefined
              ? { attestation_json: attestation, public_keys: await readPems(host, opts.publicKey) }
              : {}),
          }, ops)).text;
        } else if (/^[0-9a-f]{64}$/.test(target)) {
          if (opts.attestation) {
            throw new UsageError("--attestation is checked against a record file; give the file");
          }
          text = (await invoke(
            reportProofOp,
            { proof_id: target, format, junit_fail_on: opts.junitFailOn },
            ops,
          )).text;
        } else if (kind === "directory") {
          throw new IoError(
            "io_error",
            `${target} is a directory; give a record file or a proof_id`,
          );
        } else {
          throw new IoError("not_found", `no such file or proof_id: ${target}`);
        }
        if (opts.out) await writeFileAtomic(opts.out, text);
        else host.stdout(text);
      } finally {
        ops.close();
      }
    });
}
