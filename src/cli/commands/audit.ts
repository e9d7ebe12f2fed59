/**
 * `empiric audit <record> [--observations F] [--scenario F] [--baseline-observations F] [--key …]`:
 * recompute a proof's
 * evidence and verdict from its observations (the `audit_proof` operation). RECORD is a record
 * file, whose bundle files are looked for beside it, or the proof_id of a stored proof.
 * Exit 0 when everything agrees, 2 otherwise.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { EXIT } from "../../errors/codes.ts";
import { type Problem, UsageError } from "../../errors/errors.ts";
import {
  auditProofOp,
  bundlePaths,
  createOpHost,
  invoke,
  type OpsEnvironment,
} from "../../ops/mod.ts";
import { DEMO_KEY_BYTES } from "../../ops/keys.ts";
import { cliKey, formatProblem, readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { keyFileOption, keyOption, storeDir, storeOption } from "../options.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** Whether a record's text lists a baseline dataset (a comparative claim); false if unreadable. */
function listsBaseline(recordText: string): boolean {
  try {
    const r = JSON.parse(recordText);
    return Array.isArray(r?.data?.datasets) &&
      r.data.datasets.some((d: { kind?: unknown }) => d?.kind === "baseline");
  } catch {
    return false;
  }
}

/** The `audit` command. */
export function auditCommand(
  host: CliHost,
  env: () => Promise<OpsEnvironment>,
  setExit: (c: number) => void,
): AnyCommand {
  return new Command("audit")
    .summary("Recompute a proof's evidence and verdict from its observations")
    .description(
      "Check that the record's hashes seal its observations and scenario, then recompute every\n" +
        "evidence entry, the verdict and the provenance's pillar entities from the observations\n" +
        "under the pre-registered plan, and report each difference with its JSON pointer.\n" +
        "RECORD is a record file (R.json: its bundle files R.observations.jsonl and\n" +
        "R.scenario.json are read from beside it unless given; a comparative record also needs\n" +
        "R.baseline.observations.jsonl, the baseline's observations) or the proof_id of a stored\n" +
        "proof.\n" +
        "Exit 0 when everything agrees, 2 otherwise.",
    )
    .argument("<record>", "record file, or the proof_id of a proof in the store")
    .option("--observations <file>", "the observations file (default: beside the record)")
    .option("--scenario <file>", "the scenario file (default: beside the record)")
    .option(
      "--baseline-observations <file>",
      "comparative records: the baseline's observations file (default: beside the record)",
    )
    .addOption(keyOption("also check the signature under this HMAC key; also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption())
    .option("--demo-key", "check the signature with the public demo key")
    .addOption(storeOption())
    .option("--json", "print the audit_proof result as JSON")
    .action(async (target, opts) => {
      if (opts.demoKey && (opts.key !== undefined || opts.keyFile !== undefined)) {
        throw new UsageError("--demo-key cannot be combined with --key or --key-file");
      }
      const key = opts.demoKey
        ? { bytes: DEMO_KEY_BYTES, source: "demo" as const }
        : await cliKey(host, opts);
      const stored = /^[0-9a-f]{64}$/.test(target) && await host.stat(target) === "missing";
      const ops = createOpHost({
        caller: "local",
        env: await env(),
        key,
        store: stored ? storeDir(host, opts.store) : undefined,
        createStore: false,
      });
      try {
        const beside = stored ? undefined : bundlePaths(target);
        const part = async (given: string | undefined, path: string | undefined, what: string) => {
          if (given !== undefined) return text(await readInput(host, given));
          if (path === undefined) return undefined;
          if (await host.stat(path) === "missing") {
            throw new UsageError(
              `no ${what} file beside the record (${path}); give it with --${what}`,
            );
          }
          return text(await readInput(host, path));
        };
        const proofJson = stored ? undefined : text(await readInput(host, target));
        // The baseline part is looked for beside a record that lists a baseline dataset.
        const comparative = proofJson !== undefined && listsBaseline(proofJson);
        const input = {
          ...(stored ? { proof_id: target } : { proof_json: proofJson }),
          observations_jsonl: await part(opts.observations, beside?.observations, "observations"),
          scenario_json: await part(opts.scenario, beside?.scenario, "scenario"),
          baseline_jsonl: await part(
            opts.baselineObservations,
            comparative ? beside?.baseline : undefined,
            "baseline-observations",
          ),
        };
        const r = await invoke(auditProofOp, input, ops);
        setExit(r.agrees ? EXIT.ok : EXIT.failed);
        if (opts.json) {
          host.stdout(JSON.stringify(r) + "\n");
          return;
        }
        const head = r.agrees ? "AGREES " : "DIFFERS";
        const rc = r.recomputed;
        host.stdout(
          `${head} ${target}  proof_id=${r.proof_id?.slice(0, 16) ?? "?"}…${
            rc ? `  recomputed ${rc.outcome} from ${rc.measured} observations` : ""
          }${
            r.checks.signature === "pass"
              ? `  signature verified${key?.source === "demo" ? " (demo key!)" : ""}`
              : r.checks.signature === "skipped"
              ? "  (signature not checked: no key)"
              : ""
          }\n`,
        );
        for (const [name, status] of Object.entries(r.checks)) {
          if (status === "fail") host.stdout(`  ${name}: FAIL\n`);
        }
        for (const p of r.problems) host.stdout(`  ${formatProblem(p as Problem)}\n`);
        for (const d of r.differences.slice(0, 50)) {
          host.stdout(`  ${d.pointer}: ${d.code}: ${d.message}\n`);
        }
        if (r.differences.length > 50) {
          host.stdout(`  … and ${r.differences.length - 50} more differences (--json lists all)\n`);
        }
        for (const n of r.notes) host.stderr(`empiric: note: ${n}\n`);
      } finally {
        ops.close();
      }
    });
}
