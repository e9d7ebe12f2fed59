/**
 * `empiric plan`: decidability and power of a scenario's claim before running it.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { UsageError } from "../../errors/errors.ts";
import { createOpHost, invoke, type OpsEnvironment, planOp } from "../../ops/mod.ts";
import { scenarioDirOption } from "../options.ts";
import type { AnyCommand, CliHost } from "../host.ts";

function number(text: string, flag: string): number {
  const v = Number(text);
  if (text.trim() === "" || !Number.isFinite(v)) {
    throw new UsageError(`${flag} takes a number, got ${JSON.stringify(text)}`);
  }
  return v;
}

const pct = (x: number | null) => (x === null ? "n/a" : `${(x * 100).toFixed(1)}%`);

/** The `plan` command. */
export function planCommand(host: CliHost, env: () => Promise<OpsEnvironment>): AnyCommand {
  return new Command("plan")
    .summary("Power and sample size for a scenario's claim, before running it")
    .description(
      "Report, for the claim's deciding pillar under the pre-registered rule, the smallest n at\n" +
        "which it can be decided at all, the power at the corpus's size, and the n needed for\n" +
        "80% and 90% power. --assume is the assumed truth: the proportion (proportion claims),\n" +
        "the fraction of items at or below the threshold (quantile and median claims), or the\n" +
        "mean (mean claims, with --sd). Without it a default on the claim's side is used.",
    )
    .argument("<scenario>", "scenario name or file")
    .option("--assume <value>", "the assumed true value (see above)")
    .option("--sd <value>", "mean claims: the assumed standard deviation")
    .addOption(scenarioDirOption())
    .option("--json", "print the report as JSON (the plan_scenario result)")
    .action(async (scenario, opts) => {
      const ops = createOpHost({
        caller: "local",
        env: await env(),
        scenarioDir: opts.scenarioDir,
      });
      const r = await invoke(planOp, {
        scenario,
        ...(opts.assume !== undefined ? { assume: number(opts.assume, "--assume") } : {}),
        ...(opts.sd !== undefined ? { sd: number(opts.sd, "--sd") } : {}),
      }, ops);
      if (opts.json) {
        host.stdout(JSON.stringify(r) + "\n");
        return;
      }
      const claim = `${r.pillar} ${r.comparator} ${r.threshold} ${r.units}`.trimEnd();
      host.stdout(
        [
          `${r.scenario}: ${claim} (${r.statistic}, ${r.method} interval, ${r.decision} rule, one-sided error ${
            (r.one_sided_error * 100).toFixed(1)
          }%)`,
          `  items measured per run:   ${r.corpus_items} (min_n ${r.min_n})`,
          `  smallest decidable n:     ${r.smallest_decidable_n ?? "never"}`,
          `  assumption:               ${r.assumption.value}${
            r.assumption.sd !== undefined ? ` (sd ${r.assumption.sd})` : ""
          }: ${r.assumption.meaning}${r.assumption.source === "default" ? "" : " (given)"}`,
          `  power at ${r.corpus_items} items:`.padEnd(28) + pct(r.power_at_corpus),
          `  n for 80% power:          ${r.n_for_power["0.8"] ?? "n/a"}`,
          `  n for 90% power:          ${r.n_for_power["0.9"] ?? "n/a"}`,
          ...(r.exact_one_sided_error !== null
            ? [`  Wilson's exact error:     ${pct(r.exact_one_sided_error)}`]
            : []),
        ].join("\n") + "\n",
      );
      for (const w of r.warnings) host.stderr(`empiric: warning: ${w}\n`);
    });
}
