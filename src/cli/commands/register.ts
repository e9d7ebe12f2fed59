/**
 * `empiric register <scenario> --signing-key K`: the signed pre-registration of a scenario,
 * made before anything runs (docs/keys.md, "Pre-registration").
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { prettyJson } from "../../json/pretty.ts";
import type { JsonValue } from "../../json/value.ts";
import type { OpsEnvironment } from "../../ops/environment.ts";
import { registerScenarioOp } from "../../ops/register_scenario.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { scenarioDirOption } from "../options.ts";
import { collect, readSigningKeys } from "./keys.ts";

/** The `register` command. */
export function registerCommand(host: CliHost, env: () => Promise<OpsEnvironment>): AnyCommand {
  return new Command("register")
    .summary("Sign a scenario's pre-registration before it runs")
    .description(
      "Read the scenario and its datasets (nothing is measured) and write a DSSE envelope, " +
        "signed with each --signing-key, of an in-toto Statement of the claim, config_hash, " +
        "data_hash and analysis plan. Give it later to `empiric run --registration` to prove " +
        "the analysis was fixed before the data was seen.",
    )
    .argument("<scenario>", "scenario name or file")
    .requiredOption(
      "--signing-key <path>",
      "PKCS#8 PEM private key (PREFIX.key from empiric keygen); repeatable",
      collect,
    )
    .option("--out <file>", "write the envelope to a file instead of standard output")
    .addOption(scenarioDirOption())
    .option("--json", "print a JSON summary (digest, hashes, key ids, the envelope)")
    .action(async (scenario, opts) => {
      const signingKeys = await readSigningKeys(host, opts.signingKey);
      const { result } = await registerScenarioOp({ scenario }, {
        env: await env(),
        signingKeys,
        scenarioDir: opts.scenarioDir,
      });
      const text = prettyJson(result.envelope as unknown as JsonValue);
      if (opts.out) await writeFileAtomic(opts.out, text);
      if (opts.json) host.stdout(JSON.stringify({ ...result, out: opts.out ?? null }) + "\n");
      else if (!opts.out) host.stdout(text);
      host.stderr(
        `empiric: registered ${result.scenario} at ${result.registered_at}${
          opts.out ? ` in ${opts.out}` : ""
        }\n  digest:      ${result.digest}\n  config_hash: ${result.config_hash}\n  data_hash:   ${result.data_hash}\n  signed by:   ${
          result.keyids.join(", ")
        }\n`,
      );
    });
}
