/**
 * The JUnit XML report, so that CI test-report views (GitHub checks, GitLab's test reports,
 * Jenkins) show claims: one `<testsuite>` per record, one `<testcase>` for the verdict and one
 * per pillar. The verdict and the deciding pillar fail on the outcomes chosen by `failOn`
 * (REFUTED and INCONCLUSIVE by default); any pillar fails when its cross-check disagrees; a
 * pillar that cannot decide is skipped; a signature checked and found bad is a failing case of
 * its own.
 *
 * @module
 */
import { formatInterval, formatNumber, type Outcome, type Report } from "./model.ts";

/** Which outcomes fail: `not-validated` (REFUTED and INCONCLUSIVE), one of them, or none. */
export type JunitFailOn = "not-validated" | "refuted" | "inconclusive" | "none";

/** The choices of {@link JunitFailOn}. */
export const JUNIT_FAIL_ON = ["not-validated", "refuted", "inconclusive", "none"] as const;

/** Whether an outcome fails under a `failOn` choice. */
export function failsOn(outcome: Outcome, failOn: JunitFailOn): boolean {
  switch (failOn) {
    case "none":
      return false;
    case "refuted":
      return outcome === "REFUTED";
    case "inconclusive":
      return outcome === "INCONCLUSIVE";
    default:
      return outcome !== "VALIDATED";
  }
}

/** Text for XML content and attributes (characters XML 1.0 forbids are dropped). */
export function xmlText(s: unknown): string {
  return String(s)
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "")
    .replace(
      /[&<>"']/g,
      (c) =>
        c === "&"
          ? "&amp;"
          : c === "<"
          ? "&lt;"
          : c === ">"
          ? "&gt;"
          : c === '"'
          ? "&quot;"
          : "&apos;",
    );
}

interface Case {
  name: string;
  classname: string;
  failure?: { type: string; message: string; text: string };
  skipped?: string;
  out?: string;
}

/**
 * The report as JUnit XML.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildReport } from "./model.ts";
 * import { renderJunit } from "./junit.ts";
 * import { parseJson } from "../json/parse.ts";
 * import { toPlainJson } from "../json/plain.ts";
 * const text = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const report = buildReport({
 *   record: toPlainJson(parseJson(text)) as never,
 *   verification: { state: "not_verified", summary: "no key was given", structure: true },
 * });
 * const xml = renderJunit(report);
 * assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
 * assert.match(xml, /<testsuite /);
 * ```
 */
export function renderJunit(r: Report, failOn: JunitFailOn = "not-validated"): string {
  const t = r.claim.threshold;
  const cls = `empiric.${r.scenario}`;
  const cases: Case[] = [];
  const verdictFails = failsOn(r.outcome, failOn);
  cases.push({
    name: `verdict: ${r.thresholdText}`,
    classname: cls,
    failure: verdictFails
      ? { type: r.outcome, message: `${r.outcome}: ${r.reasoning}`, text: r.claim.statement }
      : undefined,
    out: `${r.outcome}: ${r.reasoning}`,
  });
  for (const p of r.pillars) {
    const level = p.confidence !== null ? `${formatNumber(p.confidence * 100)}% ` : "";
    const u = p.units && p.units !== "proportion" ? ` ${p.units}` : "";
    const summary = `${p.name} = ${formatNumber(p.estimate)}${u}, ${level}interval ${
      formatInterval(p.low, p.high)
    }${p.n !== null ? `, n = ${p.n}` : ""}`;
    const c: Case = { name: `pillar ${p.name}`, classname: `${cls}.pillars`, out: summary };
    if (p.crossCheckAgrees === false) {
      c.failure = {
        type: "cross_check",
        message: `${p.name}: the cross-check disagrees`,
        text: p.crossCheck,
      };
    } else if (p.deciding && verdictFails) {
      c.failure = {
        type: r.outcome,
        message: `${summary}; threshold ${t.comparator} ${formatNumber(t.value)}${u}: ${r.outcome}`,
        text: r.reasoning,
      };
    } else if (p.refused) c.skipped = `${p.name} cannot decide: ${p.refused}`;
    cases.push(c);
  }
  const v = r.verification;
  if (v.state !== "not_verified") {
    cases.push({
      name: "signature",
      classname: cls,
      failure: v.state === "failed"
        ? {
          type: "signature_mismatch",
          message: `the signature does not verify: ${v.summary}`,
          text: v.summary,
        }
        : undefined,
      out: v.summary,
    });
  }
  const failures = cases.filter((c) => c.failure).length;
  const skipped = cases.filter((c) => c.skipped).length;
  const seconds = r.durationMs !== null ? (r.durationMs / 1000).toFixed(3) : "0";
  const props: [string, string][] = [
    ["proof_id", r.proofId],
    ["outcome", r.outcome],
    ["observed_value", String(r.observed)],
    ["threshold", `${t.metric} ${t.comparator} ${t.value} ${t.units}`.trim()],
    ["config_hash", r.preRegistration.config_hash],
    ["data_hash", r.preRegistration.data_hash],
    ["command", r.command],
    ["verification", `${v.state}: ${v.summary}`],
    ["fail_on", failOn],
  ];
  const suiteName = `${r.scenario} on ${r.substrate}`;
  const lines: string[] = [];
  lines.push(`<?xml version="1.0" encoding="UTF-8"?>`);
  lines.push(
    `<testsuites name="empiric" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds}">`,
  );
  lines.push(
    `  <testsuite name="${
      xmlText(suiteName)
    }" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds}" timestamp="${
      xmlText(r.createdAt.replace(/Z$/, ""))
    }" id="${xmlText(r.proofId)}">`,
  );
  lines.push(`    <properties>`);
  for (const [k, val] of props) {
    lines.push(`      <property name="${xmlText(k)}" value="${xmlText(val)}"/>`);
  }
  lines.push(`    </properties>`);
  for (const c of cases) {
    lines.push(
      `    <testcase name="${xmlText(c.name)}" classname="${xmlText(c.classname)}" time="0">`,
    );
    if (c.failure) {
      lines.push(
        `      <failure type="${xmlText(c.failure.type)}" message="${xmlText(c.failure.message)}">${
          xmlText(c.failure.text)
        }</failure>`,
      );
    }
    if (c.skipped) lines.push(`      <skipped message="${xmlText(c.skipped)}"/>`);
    if (c.out) lines.push(`      <system-out>${xmlText(c.out)}</system-out>`);
    lines.push(`    </testcase>`);
  }
  lines.push(`  </testsuite>`);
  lines.push(`</testsuites>`);
  return lines.join("\n") + "\n";
}
