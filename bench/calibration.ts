// Calibration table (issue 13): for each statistic and interval method, claims exactly at their
// threshold must be VALIDATED in at most 2.5% of runs plus three Monte Carlo standard errors, and
// claims 10% inside it at the rate `powerAt` predicts (src/stats/calibration.ts says how).
// The table in docs/statistics.md is this script's output.
//
// Comparative claims (issue 15) get their own table: candidate versus baseline, ratio or
// difference, paired or not; at the threshold both VALIDATED and REFUTED must stay within the
// bound, and a claim the truth satisfies (identical systems against "ratio <= 1.05") must not be
// REFUTED beyond it (src/stats/compare_calibration.ts).
//
//   deno run -A bench/calibration.ts [--runs 4000] [--bootstrap-runs 1000] [--seed 20261123]
//                                    [--only one-sample|comparisons] [--statistic mean|median|…]
//                                    [--method bootstrap_percentile|t|…]
import {
  bcaInterval,
  bootstrapDistribution,
  jackknifeAcceleration,
  percentileInterval,
  seededRandom,
  type Statistic,
} from "../src/stats/mod.ts";
import { calibrate, type CalibrationCell, trueValue } from "../src/stats/calibration.ts";
import { comparisonCells } from "./calibration_comparisons.ts";
import { calibrateComparison } from "../src/stats/compare_calibration.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const RUNS = arg("--runs", 4000);
const BOOT_RUNS = arg("--bootstrap-runs", 1000);
const SEED = arg("--seed", 20261123);
const NS = [30, 100, 300, 1000];
const only = Deno.args.includes("--only") ? Deno.args[Deno.args.indexOf("--only") + 1] : undefined;
// --statistic KIND, --method NAME: only the cells of that statistic or method (each keeps its
// seed, so the rows equal those of a full run).
const option = (name: string) =>
  Deno.args.includes(name) ? Deno.args[Deno.args.indexOf(name) + 1] : undefined;
const onlyStatistic = option("--statistic");
const onlyMethod = option("--method");
const wanted = (c: { statistic: Statistic; method: string }) =>
  (onlyStatistic === undefined || c.statistic.kind === onlyStatistic) &&
  (onlyMethod === undefined || c.method === onlyMethod);

const cells: Omit<CalibrationCell, "seed">[] = [];
const add = (c: Omit<CalibrationCell, "seed">) => cells.push(c);
for (const method of ["clopper_pearson", "wilson"] as const) {
  for (const [p0, comparator] of [[0.9, ">="], [0.99, ">="], [0.05, "<="]] as const) {
    for (const n of NS) {
      for (const placement of ["at", "inside"] as const) {
        add({
          statistic: { kind: "proportion" },
          method,
          distribution: "bernoulli",
          p0,
          n,
          comparator,
          placement,
          runs: RUNS,
        });
      }
    }
  }
}
for (const p of [0.5, 0.95, 0.99]) {
  const statistic: Statistic = p === 0.5 ? { kind: "median" } : { kind: "quantile", p };
  for (const distribution of ["normal", "lognormal", "pareto"] as const) {
    for (const n of NS) {
      for (const placement of ["at", "inside"] as const) {
        add({
          statistic,
          method: "order_statistic",
          distribution,
          n,
          comparator: "<=",
          placement,
          runs: RUNS,
        });
      }
    }
  }
}
for (const distribution of ["normal", "lognormal", "pareto"] as const) {
  for (const comparator of ["<=", ">="] as const) {
    for (const n of NS) {
      for (const placement of ["at", "inside"] as const) {
        add({
          statistic: { kind: "mean" },
          method: "t",
          distribution,
          n,
          comparator,
          placement,
          runs: RUNS,
        });
      }
    }
  }
}
for (const distribution of ["lognormal_capped", "bernoulli"] as const) {
  for (const n of NS) {
    for (const placement of ["at", "inside"] as const) {
      add({
        statistic: { kind: "mean" },
        method: "bounded",
        distribution,
        n,
        // A Bernoulli mean of 0.9 is claimed from below: "<=" 10% inside would be "<= 1.0".
        comparator: distribution === "bernoulli" ? ">=" : "<=",
        placement,
        runs: RUNS,
        p0: 0.9,
      });
    }
  }
}
for (const method of ["bootstrap_percentile", "bootstrap_bca"] as const) {
  for (const distribution of ["normal", "lognormal", "pareto"] as const) {
    for (const n of [30, 100, 300, 1000]) {
      add({
        statistic: { kind: "mean" },
        method,
        distribution,
        n,
        comparator: "<=",
        placement: "at",
        runs: BOOT_RUNS,
        resamples: 999,
      });
    }
  }
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const t0 = performance.now();
let failed = 0;
if (only !== "comparisons") oneSample();
if (only !== "one-sample") comparisons();
console.log(
  `\n${only === "comparisons" ? 0 : cells.length} one-sample cells, ${
    only === "one-sample" ? 0 : comparisonCells(RUNS, BOOT_RUNS).length
  } comparison cells, ${failed} outside their bound; ${
    ((performance.now() - t0) / 1000).toFixed(0)
  } s`,
);

function oneSample() {
  console.log(
    `Calibration: seed ${SEED}, ${RUNS} runs per cell (${BOOT_RUNS} for bootstrap cells, 999 resamples), 95% two-sided intervals (one-sided error 2.5%).`,
  );
  console.log(
    "Distributions: normal(10, 2), lognormal(0, 1), Pareto(α = 3, x_m = 1), Bernoulli(p), lognormal(0, 1) capped at 20 (range [0, 20]).\n",
  );
  console.log(
    "| statistic | method | data | n | claim | truth | runs | VALIDATED | allowed / predicted | inconclusive | ok |",
  );
  console.log("|---|---|---|---:|---|---|---:|---:|---:|---:|:-:|");
  cells.forEach((c, i) => {
    if (!wanted(c)) return;
    const r = calibrate({ ...c, seed: (SEED + i * 7919) % 0x1_0000_0000 });
    if (!r.passes) failed++;
    const stat = c.statistic.kind === "quantile" ? `p${c.statistic.p * 100}` : c.statistic.kind;
    const data = c.distribution === "bernoulli"
      ? `Bernoulli(${c.statistic.kind === "proportion" ? "p" : c.p0})`
      : c.distribution.replace("_capped", " capped");
    const claim = `${c.comparator} ${
      c.statistic.kind === "proportion" ? c.p0 : r.threshold.toPrecision(4)
    }`;
    const truth = c.placement === "at" ? "at threshold" : "10% inside";
    const expect = c.placement === "at"
      ? `≤ ${pct(r.bound)}`
      : r.predicted === null
      ? "n/a"
      : pct(r.predicted);
    console.log(
      `| ${stat} | ${c.method} | ${data} | ${c.n} | ${claim} | ${truth} | ${c.runs} | ${
        pct(r.rate)
      } | ${expect} | ${pct(r.inconclusive / c.runs)} | ${r.passes ? "yes" : "**no**"} |`,
    );
  });

  // The methods refused since issue 13, as they behaved before: a bootstrap for tail quantiles and
  // for a proportion of 30 of 30.
  console.log("\nRefused methods, computed directly (what the old default did):\n");
  console.log("| statistic | method | data | n | claim at threshold | runs | VALIDATED |");
  console.log("|---|---|---|---:|---|---:|---:|");
  for (
    const [s, n, method] of [
      [{ kind: "quantile", p: 0.99 }, 200, "bootstrap_percentile"],
      [{ kind: "quantile", p: 0.95 }, 100, "bootstrap_percentile"],
      [{ kind: "quantile", p: 0.95 }, 100, "bootstrap_bca"],
    ] as const
  ) {
    const truth = trueValue("lognormal", s);
    const u = seededRandom(SEED);
    let v = 0;
    const runs = 1000;
    for (let r = 0; r < runs; r++) {
      const xs = Array.from(
        { length: n },
        () => Math.exp(Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u())),
      );
      const dist = bootstrapDistribution(xs, s, 999, r);
      const b = method === "bootstrap_percentile" ? percentileInterval(dist, 0.95) : bcaInterval(
        dist,
        xs.slice().sort((a, b) => a - b)[Math.floor((n - 1) * s.p)],
        jackknifeAcceleration(xs, s),
        0.95,
      );
      if (b.high <= truth) v++;
    }
    console.log(
      `| p${s.p * 100} | ${method} | lognormal | ${n} | <= ${truth.toPrecision(4)} | ${runs} | ${
        pct(v / runs)
      } |`,
    );
  }
}

function comparisons() {
  console.log(
    `\nComparisons: seed ${SEED}, ${RUNS} runs per exact cell (${BOOT_RUNS} for bootstrap cells, 999 resamples), 95% two-sided intervals of the ratio or difference.`,
  );
  console.log(
    "Models: lognormal items (difficulty exp(0.5 Z), measurement noise exp(0.2 E)), normal items (N(10, 4) + N(0, 1)), Bernoulli pairs (baseline 0.9; P(b=1,c=0) = 0.04, P(b=0,c=1) = 0.04 + δ).\n",
  );
  console.log(
    "| statistic | kind | method | data | pairing | n | claim | truth | runs | VALIDATED | REFUTED | allowed | inconclusive (refused) | ok |",
  );
  console.log("|---|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|:-:|");
  comparisonCells(RUNS, BOOT_RUNS).forEach((c, i) => {
    if (!wanted(c)) return;
    const r = calibrateComparison({ ...c, seed: (SEED + 500_009 + i * 7919) % 0x1_0000_0000 });
    if (!r.passes) failed++;
    const stat = c.statistic.kind === "quantile" ? `p${c.statistic.p * 100}` : c.statistic.kind;
    const claim = c.comparator === "within"
      ? `\\|${c.kind === "ratio" ? "ratio − 1" : "difference"}\\| ≤ ${c.threshold}`
      : `${c.kind} ${c.comparator} ${c.threshold}`;
    const truth = `${c.truth}${r.atThreshold ? " (at)" : ""}`;
    const allowed = r.atThreshold
      ? `both ≤ ${pct(r.bound)}`
      : r.truthSatisfies
      ? `R ≤ ${pct(r.bound)}`
      : `V ≤ ${pct(r.bound)}`;
    console.log(
      `| ${stat} | ${c.kind} | ${c.method} | ${c.model.replace("_", " ")} | ${
        c.paired ? "paired" : "unpaired"
      } | ${c.n} | ${claim} | ${truth} | ${c.runs} | ${pct(r.validatedRate)} | ${
        pct(r.refutedRate)
      } | ${allowed} | ${pct(r.inconclusive / c.runs)} (${pct(r.refused / c.runs)}) | ${
        r.passes ? "yes" : "**no**"
      } |`,
    );
  });
}
