/**
 * The Markdown report, for GitHub and GitLab job summaries and pull-request comments: verdict,
 * claim, a table of pillars with intervals, a quantile table in place of plots, the failed items
 * and the difference from the previous proof. It has no links and no HTML beyond `<sub>`, so it
 * reads the same in a job summary, a comment and a terminal.
 *
 * @module
 */
import { formatInterval, formatNumber, type Report } from "./model.ts";

const MARK: Record<string, string> = { VALIDATED: "✅", REFUTED: "❌", INCONCLUSIVE: "⚠️" };

/** Text for Markdown: one line, table pipes and angle brackets escaped. */
export function mdText(s: unknown): string {
  return String(s).replace(/\r?\n/g, " ").replace(/\\/g, "\\\\").replace(/\|/g, "\\|")
    .replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/([*_`[\]])/g, "\\$1");
}

/** A code span that survives backticks inside it. */
export function mdCode(s: unknown): string {
  const text = String(s).replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Text empiric wrote itself (numbers, intervals, hashes): only table pipes escaped. */
function cell(s: unknown): string {
  return String(s).replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
}

function units(u: string): string {
  return u && u !== "proportion" ? ` ${mdText(u)}` : "";
}

function row(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /** Heading level of the title (default 2). */
  level?: number;
  /** Failed or wrong item ids listed (default 10). */
  items?: number;
}

/**
 * The report as Markdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildReport } from "./model.ts";
 * import { renderMarkdown } from "./markdown.ts";
 * import { parseJson } from "../json/parse.ts";
 * import { toPlainJson } from "../json/plain.ts";
 * const text = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const md = renderMarkdown(buildReport({
 *   record: toPlainJson(parseJson(text)) as never,
 *   verification: { state: "not_verified", summary: "no key was given", structure: true },
 * }));
 * assert.match(md, /^## /);
 * assert.doesNotMatch(md, /https?:/);
 * ```
 */
export function renderMarkdown(r: Report, options: MarkdownOptions = {}): string {
  const h = "#".repeat(options.level ?? 2);
  const maxItems = options.items ?? 10;
  const t = r.claim.threshold;
  const out: string[] = [];
  out.push(
    `${h} ${MARK[r.outcome] ?? ""} ${r.outcome}: ${mdText(r.scenario)} on ${mdText(r.substrate)}`,
  );
  out.push("");
  out.push(`> ${mdText(r.claim.statement)}`);
  out.push("");
  const d = r.deciding;
  const facts = [
    `**${mdText(r.thresholdText)}**`,
    `observed **${formatNumber(r.observed)}${units(t.units)}**`,
    d
      ? `${d.confidence !== null ? formatNumber(d.confidence * 100) + "% " : ""}interval ${
        formatInterval(d.low, d.high)
      }`
      : "",
    r.measured !== null ? `${r.measured} items, ${r.failedItems ?? 0} failed` : "",
  ].filter(Boolean);
  out.push(facts.join(" · "));
  out.push("");
  out.push(mdText(r.reasoning));
  out.push("");
  if (r.comparison) {
    const c = r.comparison;
    out.push(
      `Candidate (${mdText(r.substrate)}) against the baseline (${mdText(c.baseline)}), ${
        c.paired === null ? "" : c.paired ? "paired over items" : "unpaired"
      }:`,
    );
    out.push("");
    out.push(row(["pillar", "candidate", "baseline", c.kind, `interval of the ${c.kind}`]));
    out.push(row([":--", "--:", "--:", "--:", ":--"]));
    for (const p of c.pillars) {
      const level = p.confidence !== null ? `${formatNumber(p.confidence * 100)}% ` : "";
      out.push(row([
        mdText(p.name),
        formatNumber(p.candidate),
        formatNumber(p.baseline),
        formatNumber(p.estimate),
        `${level}${formatInterval(p.low, p.high)}`,
      ]));
    }
    out.push("");
  }
  out.push(row(["pillar", "estimate", "interval", "n", "failed", "method"]));
  out.push(row([":--", "--:", ":--", "--:", "--:", ":--"]));
  for (const p of r.pillars) {
    const level = p.confidence !== null ? `${formatNumber(p.confidence * 100)}% ` : "";
    out.push(row([
      p.deciding ? `**${mdText(p.name)}** (deciding)` : mdText(p.name),
      `${formatNumber(p.estimate)}${units(p.units)}`,
      `${level}${formatInterval(p.low, p.high)}${p.refused ? " (cannot decide)" : ""}`,
      p.n !== null ? String(p.n) : "n/a",
      p.failures !== null ? String(p.failures) : "n/a",
      mdText((p.method ?? "n/a").replaceAll("_", " ")),
    ]));
  }
  out.push("");
  const obs = r.observations;
  if (!obs.present) {
    out.push(`_${mdText(obs.note)}_`);
    out.push("");
  } else {
    for (const dist of obs.distributions) {
      if (dist.binary) {
        out.push(
          `**${mdText(dist.metric)}**${
            dist.role === "observed" ? "" : ` (${dist.role})`
          }: ${dist.binary.ones} of ${dist.items} items scored 1, ${dist.binary.zeros} scored 0${
            dist.binary.failedZeros ? ` (${dist.binary.failedZeros} of them failed)` : ""
          }.`,
        );
        out.push("");
        continue;
      }
      if (!dist.quantiles.length) continue;
      out.push(
        `**${mdText(dist.metric)}**${dist.role === "observed" ? "" : ` (${dist.role})`}${
          dist.units && dist.units !== "proportion" ? ` (${mdText(dist.units)})` : ""
        }, ${dist.n} values${
          dist.censored ? ` (${dist.censored} failed, at least their time limit)` : ""
        }${dist.missing ? ` (${dist.missing} failed items without a value)` : ""}:`,
      );
      out.push("");
      out.push(
        row(
          dist.quantiles.map((
            q,
          ) => (q.p === 0 ? "min" : q.p === 1 ? "max" : `p${formatNumber(q.p * 100)}`)),
        ),
      );
      out.push(row(dist.quantiles.map(() => "--:")));
      out.push(row(dist.quantiles.map((q) => formatNumber(q.value))));
      out.push("");
    }
    const it = obs.items!;
    if (it.failed.total > 0) {
      const ids = it.failed.rows.slice(0, maxItems).map((f) => mdCode(f.id)).join(", ");
      out.push(
        `**Failed items: ${it.failed.total}** (${
          it.failed.byKind.map((k) => `${mdText(k.kind)} ${k.count}`).join(", ")
        }): ${ids}${it.failed.total > maxItems ? ", …" : ""}`,
      );
      out.push("");
    }
    if (it.wrong.total > 0) {
      const ids = it.wrong.rows.slice(0, maxItems).map((w) => mdCode(w.id)).join(", ");
      out.push(
        `**Wrong answers: ${it.wrong.total}**: ${ids}${it.wrong.total > maxItems ? ", …" : ""}`,
      );
      out.push("");
    }
  }
  if (r.previous) {
    out.push(
      `**Compared with the previous proof** ${mdCode(r.previous.proofId.slice(0, 12))} (${
        mdText(r.previous.createdAt)
      }):`,
    );
    out.push("");
    out.push(row(["", "previous", "this", "change"]));
    out.push(row([":--", ":--", ":--", ":--"]));
    for (const d of r.previous.rows) {
      out.push(row([mdText(d.what), cell(d.previous), cell(d.current), cell(d.change)]));
    }
    out.push("");
  } else {
    out.push("_No earlier proof of this scenario on this substrate to compare with._");
    out.push("");
  }
  const v = r.verification;
  const verified = v.state === "verified"
    ? `signature verified: ${mdText(v.summary)}`
    : v.state === "failed"
    ? `**signature does NOT verify**: ${mdText(v.summary)}`
    : `not verified: ${mdText(v.summary)}`;
  out.push(
    `<sub>proof ${mdCode(r.proofId)} · ${verified} · config_hash ${
      mdCode(r.preRegistration.config_hash.slice(0, 12))
    } · data_hash ${mdCode(r.preRegistration.data_hash.slice(0, 12))} · reproduce: ${
      mdCode(r.command)
    }</sub>`,
  );
  return out.join("\n") + "\n";
}
