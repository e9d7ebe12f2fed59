/**
 * The HTML report: one self-contained page (inline CSS and inline SVG plots, no script, no
 * font, no image file, no link to any other host) that opens from disk, offline, on a phone
 * and in print. Its own Content-Security-Policy (a `<meta>` element) forbids every request and
 * allows only the page's own style sheets, by hash.
 *
 * @module
 */
import { sha256Base64 } from "./digest.ts";
import {
  comparatorSymbol,
  type DistributionView,
  formatInterval,
  formatNumber,
  type PillarView,
  type Report,
} from "./model.ts";
import {
  binaryPlot,
  ecdfPlot,
  type Figure,
  forestPlot,
  histogramPlot,
  provenancePlot,
  standing,
  trendPlot,
} from "./plots.ts";

/** Versions of the plotting libraries (named in every report's footer; tested against deno.json). */
export const PLOT_LIBRARY = { name: "@observablehq/plot", version: "0.6.17" } as const;
/** The server-side DOM Plot draws into. */
export const DOM_LIBRARY = { name: "linkedom", version: "0.18.15" } as const;

/** Links a report may carry (relative, same origin): set when it is served over HTTP. */
export interface HtmlLinks {
  /** The record's JSON. */
  record?: string;
  /** The list of proofs. */
  index?: string;
  /** Another proof's report, by id. */
  report?: (proofId: string) => string;
}

/** Escape text for HTML content and attribute values. */
export function esc(s: unknown): string {
  return String(s).replace(
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
        : "&#39;",
  );
}

/** The page's style sheet. */
export const REPORT_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg-soft: #f6f8fa;
  --ok: #1a7f37; --bad: #b3261e; --warn: #8a5a00; --accent: #1f5fa8; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--fg); background: #fff; }
main { max-width: 62rem; margin: 0 auto; padding: 0 1rem 3rem; }
header.verdict { color: #fff; padding: 1.25rem 1rem; }
header.verdict > div { max-width: 62rem; margin: 0 auto; }
.VALIDATED { background: var(--ok); } .REFUTED { background: var(--bad); } .INCONCLUSIVE { background: var(--warn); }
header .badge { display: inline-block; font-weight: 700; letter-spacing: .06em; border: 2px solid #fff;
  border-radius: 4px; padding: 0 .5rem; margin: 0 0 .5rem; }
header h1 { margin: 0 0 .25rem; font-size: 1.5rem; line-height: 1.25; }
header p { margin: .25rem 0; }
header code { color: #fff; background: rgba(0,0,0,.25); }
nav { border-bottom: 1px solid var(--line); padding: .5rem 0; margin-bottom: 1rem; font-size: .9rem; }
nav a { margin-right: .75rem; white-space: nowrap; }
a { color: var(--accent); }
h2 { font-size: 1.25rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875em;
  background: var(--bg-soft); border-radius: 4px; }
code { padding: .05rem .3rem; overflow-wrap: anywhere; }
code.id { white-space: nowrap; overflow-wrap: normal; }
pre { padding: .75rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { padding: 0; background: none; }
blockquote { margin: .5rem 0; padding: .5rem 1rem; border-left: 4px solid var(--accent); background: var(--bg-soft); }
.status { border: 2px solid var(--line); border-radius: 6px; padding: .75rem 1rem; margin: 1rem 0; }
.status.verified { border-color: var(--ok); } .status.failed { border-color: var(--bad); background: #fdecea; }
.status.not_verified { border-color: var(--warn); }
.status strong { display: block; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; margin: .5rem 0; }
table { border-collapse: collapse; font-size: .9rem; min-width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: .75rem 0 1.25rem; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: .85rem; color: var(--muted); margin-top: .25rem; }
.pillar { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .75rem 0; break-inside: avoid; }
.pillar h3 { margin: .25rem 0; }
.pillar.deciding { border-width: 2px; border-color: var(--accent); }
.tag { display: inline-block; font-size: .75rem; font-weight: 600; border-radius: 3px; padding: 0 .35rem;
  border: 1px solid currentColor; vertical-align: middle; }
.note { color: var(--muted); font-size: .9rem; }
.outcome-VALIDATED { color: var(--ok); font-weight: 600; } .outcome-REFUTED { color: var(--bad); font-weight: 600; }
.outcome-INCONCLUSIVE { color: var(--warn); font-weight: 600; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 0 1.5rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line); padding-top: .75rem; }
@media (max-width: 40rem) {
  body { font-size: 15px; }
  header h1 { font-size: 1.25rem; }
  dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: .35rem; }
}
@media print {
  body { font-size: 11pt; }
  header.verdict, .VALIDATED, .REFUTED, .INCONCLUSIVE { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  nav { display: none; }
  main { max-width: none; padding: 0; }
  .scroll { overflow: visible; }
  a { color: inherit; text-decoration: none; }
  h2 { break-after: avoid; }
  table, pre { break-inside: auto; }
  tr { break-inside: avoid; }
}
`;

function table(head: string[], rows: string[][], numeric: number[] = [], caption?: string): string {
  const th = head.map((h, i) =>
    `<th scope="col"${numeric.includes(i) ? ' class="num"' : ""}>${h}</th>`
  )
    .join("");
  const body = rows.map((r) =>
    `<tr>${
      r.map((c, i) => `<td${numeric.includes(i) ? ' class="num"' : ""}>${c}</td>`).join("")
    }</tr>`
  ).join("\n");
  return `<div class="scroll"><table>${
    caption ? `<caption class="note">${caption}</caption>` : ""
  }<thead><tr>${th}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function figure(f: Figure): string {
  return `<figure role="group" aria-label="${esc(f.label)}">${f.svg}<figcaption>${
    esc(f.description)
  }</figcaption></figure>`;
}

function units(u: string): string {
  return u && u !== "proportion" ? ` ${esc(u)}` : "";
}

function pillarBlock(p: PillarView): string {
  const level = p.confidence !== null ? `${formatNumber(p.confidence * 100)}% ` : "";
  const facts = [
    `${esc(p.statistic)}${p.method ? `, ${esc(p.method.replaceAll("_", " "))} interval` : ""}`,
    p.n !== null ? `n = ${p.n}` : "",
    p.failures ? `${p.failures} failed (${esc(p.failurePolicy ?? "")})` : "",
  ].filter(Boolean).join(" · ");
  const refused = p.refused
    ? `<p class="note"><strong>Cannot decide:</strong> ${esc(p.refused)}</p>`
    : "";
  return `<div class="pillar${p.deciding ? " deciding" : ""}">
<h3>${esc(p.name)} ${p.deciding ? '<span class="tag">deciding</span>' : ""}</h3>
<p>${esc(formatNumber(p.estimate))}${units(p.units)}, ${level}interval <strong>${
    esc(formatInterval(p.low, p.high))
  }</strong>${
    p.decision
      ? ` against ${esc(comparatorSymbol(p.decision.comparator))} ${
        esc(formatNumber(p.decision.threshold))
      }${units(p.units)}: ${esc(standing(p))}`
      : ""
  }</p>
<p class="note">${facts}</p>${refused}
${figure(forestPlot(p))}
</div>`;
}

function pillarTable(pillars: PillarView[]): string {
  const t = table(
    [
      "pillar",
      "statistic",
      "estimate",
      "interval",
      "level",
      "n",
      "failed",
      "method",
      "computed by",
      "cross-check",
    ],
    pillars.map((p) => [
      `${esc(p.name)}${p.deciding ? " <strong>(deciding)</strong>" : ""}`,
      esc(p.statistic),
      esc(formatNumber(p.estimate)),
      esc(formatInterval(p.low, p.high)),
      p.confidence !== null ? `${esc(formatNumber(p.confidence * 100))}%` : "n/a",
      p.n !== null ? String(p.n) : "n/a",
      p.failures !== null ? String(p.failures) : "n/a",
      esc((p.method ?? "n/a").replaceAll("_", " ")),
      esc(
        `${
          p.estimateLibrary ?? `${p.library} ${p.libraryVersion}`
        } · ${p.library} ${p.libraryVersion}`,
      ),
      p.crossCheckAgrees === false
        ? "<strong>disagrees</strong>"
        : p.crossCheckAgrees
        ? "agrees"
        : esc(p.crossCheck === "n/a" ? "n/a" : "see below"),
    ]),
    [2, 5, 6],
  );
  const checks = pillars.filter((p) => p.crossCheck !== "n/a").map((p) =>
    `<li><strong>${esc(p.name)}</strong>: ${esc(p.crossCheck)}</li>`
  );
  return t +
    (checks.length
      ? `<p class="note">"computed by": the estimate's library, then the interval's. Cross-checks (an independent recomputation of each number):</p><ul class="note">${
        checks.join("")
      }</ul>`
      : "");
}

/** A comparative record: each pillar's two sides and the interval of their ratio or difference. */
function comparisonBlock(r: Report): string {
  const c = r.comparison;
  if (!c) return "";
  return `<p>Candidate <code>${esc(r.substrate)}</code> against the baseline <code>${
    esc(c.baseline)
  }</code>${
    c.paired === null ? "" : c.paired ? ", paired over items" : ", unpaired"
  }. The distributions below show both sides.</p>` + table(
    ["pillar", "candidate", "baseline", esc(c.kind), `interval of the ${esc(c.kind)}`, "method"],
    c.pillars.map((p) => [
      esc(p.name),
      esc(formatNumber(p.candidate)),
      esc(formatNumber(p.baseline)),
      esc(formatNumber(p.estimate)),
      `${p.confidence !== null ? `${esc(formatNumber(p.confidence * 100))}% ` : ""}${
        esc(formatInterval(p.low, p.high))
      }`,
      esc((p.method ?? "n/a").replaceAll("_", " ")),
    ]),
    [1, 2, 3],
    "Candidate and baseline",
  );
}

function distributionBlock(d: DistributionView): string {
  const title = d.role === "observed" ? esc(d.metric) : `${esc(d.metric)} (${d.role})`;
  const figs: string[] = [];
  if (d.binary) figs.push(figure(binaryPlot(d)));
  else if (d.histogram.length) {
    figs.push(figure(histogramPlot(d)));
    if (d.ecdf && d.ecdf.length) figs.push(figure(ecdfPlot(d)));
  }
  const notes = [
    `${d.n} values of ${d.items} items (${esc(d.kind)})`,
    d.missing ? `${d.missing} failed items have no value` : "",
    d.censored
      ? `${d.censored} failed items' latency is known only to be at least their time limit`
      : "",
    d.mean !== null ? `mean ${esc(formatNumber(d.mean))}` : "",
  ].filter(Boolean).join("; ");
  const q = d.quantiles.length
    ? table(
      [
        "",
        ...d.quantiles.map((
          x,
        ) => (x.p === 0 ? "min" : x.p === 1 ? "max" : `p${formatNumber(x.p * 100)}`)),
      ],
      [[
        `${esc(d.metric)}${units(d.units)}`,
        ...d.quantiles.map((x) => esc(formatNumber(x.value))),
      ]],
      d.quantiles.map((_, i) => i + 1),
      "Quantiles (type 7) of the values plotted",
    )
    : "";
  return `<h3>${title}</h3><p class="note">${notes}.</p>${
    figs.length > 1 ? `<div class="grid2">${figs.join("")}</div>` : figs.join("")
  }${q}`;
}

function itemsSection(r: Report): string {
  const it = r.observations.items!;
  const more = (shown: number, total: number) =>
    total > shown ? `<p class="note">Showing the first ${shown} of ${total}.</p>` : "";
  const parts: string[] = [];
  parts.push(`<h3>Failed items: ${it.failed.total}</h3>`);
  if (it.failed.total === 0) parts.push(`<p>No item failed.</p>`);
  else {
    parts.push(
      `<p>By kind: ${
        it.failed.byKind.map((k) => `${esc(k.kind)} ${k.count}`).join(", ")
      }. Every failed item counts in the statistics (intention to treat).</p>`,
    );
    parts.push(table(
      ["item", "id", "failure", "message", "attempts"],
      it.failed.rows.map((
        f,
      ) => [
        String(f.item),
        `<code class="id">${esc(f.id)}</code>`,
        esc(f.kind),
        esc(f.message),
        String(f.attempts),
      ]),
      [0, 4],
    ));
    parts.push(more(it.failed.rows.length, it.failed.total));
  }
  if (it.wrong.metrics.length) {
    parts.push(`<h3>Wrong answers: ${it.wrong.total}</h3>`);
    if (it.wrong.total === 0) {
      parts.push(`<p>Every answered item scored 1 on ${esc(it.wrong.metrics.join(", "))}.</p>`);
    } else {
      parts.push(table(
        ["item", "id", "scored 0 on"],
        it.wrong.rows.map((
          w,
        ) => [String(w.item), `<code class="id">${esc(w.id)}</code>`, esc(w.metric)]),
        [0],
      ));
      parts.push(more(it.wrong.rows.length, it.wrong.total));
    }
  }
  const b = it.beyond;
  if (b) {
    parts.push(
      `<h3>Items beyond the threshold: ${b.total}</h3><p class="note">Items whose ${
        esc(b.metric)
      } does not satisfy ${esc(comparatorSymbol(b.comparator))} ${esc(formatNumber(b.threshold))}${
        units(b.units)
      } on its own (a quantile claim allows some).</p>`,
    );
    if (b.total > 0) {
      parts.push(table(
        ["item", "id", `${esc(b.metric)}${units(b.units)}`],
        b.rows.map((x) => [
          String(x.item),
          `<code class="id">${esc(x.id)}</code>`,
          `${x.censored ? "≥ " : ""}${esc(formatNumber(x.value))}`,
        ]),
        [0, 2],
      ));
      parts.push(more(b.rows.length, b.total));
    }
  }
  if (it.retried) {
    parts.push(`<p class="note">${it.retried} items needed more than one attempt.</p>`);
  }
  return parts.join("\n");
}

function lineageSection(r: Report, links: HtmlLinks): string {
  const parts: string[] = [];
  const t = r.claim.threshold;
  if (r.trend.length <= 1) {
    parts.push(
      `<p>No earlier proof of ${esc(r.scenario)} on ${
        esc(r.substrate)
      } was available to this report.</p>`,
    );
  } else {
    parts.push(figure(trendPlot(r.trend, t)));
    const ref = (id: string) =>
      links.report
        ? `<a href="${esc(links.report(id))}"><code>${esc(id.slice(0, 12))}…</code></a>`
        : `<code>${esc(id.slice(0, 12))}…</code>`;
    parts.push(table(
      ["created", "proof", "verdict", `${esc(t.metric)}`, "interval"],
      r.trend.slice().reverse().map((p) => [
        esc(p.createdAt) + (p.current ? " <strong>(this)</strong>" : ""),
        ref(p.proofId),
        `<span class="outcome-${p.outcome}">${p.outcome}</span>`,
        esc(formatNumber(p.observed)),
        esc(formatInterval(p.low, p.high)),
      ]),
      [3],
    ));
  }
  if (r.previous) {
    parts.push(
      `<h3>Compared with the previous proof</h3><p class="note">${
        links.report
          ? `<a href="${esc(links.report(r.previous.proofId))}"><code>${
            esc(r.previous.proofId.slice(0, 12))
          }…</code></a>`
          : `<code>${esc(r.previous.proofId)}</code>`
      }, created ${esc(r.previous.createdAt)}.</p>`,
    );
    parts.push(table(
      ["", "previous", "this", "change"],
      r.previous.rows.map((d) => [esc(d.what), esc(d.previous), esc(d.current), esc(d.change)]),
    ));
  }
  if (r.lineageChain.length) {
    parts.push(
      `<p class="note">This record's lineage_chain: ${
        r.lineageChain.map((id) => `<code>${esc(id)}</code>`).join(", ")
      }.</p>`,
    );
  }
  return parts.join("\n");
}

function provenanceSection(r: Report): string {
  const g = r.provenance;
  const label = new Map(g.nodes.map((n) => [n.id, n.label]));
  const words: Record<string, string> = {
    used: "used",
    wasGeneratedBy: "was generated by",
    wasAssociatedWith: "was associated with",
    wasDerivedFrom: "was derived from",
    wasAttributedTo: "was attributed to",
  };
  const items = g.edges.map((e) =>
    `<li>${esc(label.get(e.from) ?? e.from)} <em>${esc(words[e.relation] ?? e.relation)}</em> ${
      esc(label.get(e.to) ?? e.to)
    }</li>`
  );
  return `${g.nodes.length ? figure(provenancePlot(g)) : ""}
<h3>Relations</h3><ul>${items.join("\n")}</ul>`;
}

function verificationBlock(r: Report): string {
  const v = r.verification;
  const head = v.state === "verified"
    ? "Signature verified"
    : v.state === "failed"
    ? "Signature does NOT verify"
    : "Not verified";
  const att = v.attestation
    ? `<p>Attestation: ${
      v.attestation.verified
        ? `verified, signed by ${
          v.attestation.signers.map((s) => `<code>${esc(s)}</code>`).join(", ")
        }`
        : `<strong>does not verify</strong>${
          v.attestation.message ? `: ${esc(v.attestation.message)}` : ""
        }`
    }.</p>`
    : "";
  return `<div class="status ${v.state}"${
    v.state === "failed" ? ' role="alert"' : ""
  }><strong>${head}</strong>${esc(v.summary)}${att}</div>`;
}

/** Options of {@link renderHtml}. */
export interface HtmlOptions {
  links?: HtmlLinks;
}

/**
 * The report as one HTML page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildReport } from "./model.ts";
 * import { renderHtml } from "./html.ts";
 * import { parseJson } from "../json/parse.ts";
 * import { toPlainJson } from "../json/plain.ts";
 * const text = Deno.readTextFileSync(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const report = buildReport({
 *   record: toPlainJson(parseJson(text)) as never,
 *   verification: { state: "not_verified", summary: "no key given", structure: true },
 * });
 * const html = await renderHtml(report);
 * assert.match(html, /^<!doctype html>/);
 * assert.match(html, /Content-Security-Policy/);
 * ```
 */
export async function renderHtml(r: Report, options: HtmlOptions = {}): Promise<string> {
  const links = options.links ?? {};
  const t = r.claim.threshold;
  const nav = [
    ["claim", "Claim"],
    ["intervals", "Intervals"],
    ["distribution", "Distribution"],
    ["items", "Items"],
    ["lineage", "Lineage"],
    ["preregistration", "Pre-registration"],
    ["reproduce", "Reproduce"],
    ["provenance", "Provenance"],
    ["verification", "Verification"],
  ].map(([id, name]) => `<a href="#${id}">${name}</a>`);
  if (links.index) nav.unshift(`<a href="${esc(links.index)}">All proofs</a>`);
  if (links.record) nav.push(`<a href="${esc(links.record)}">Record JSON</a>`);
  const obs = r.observations;
  const facts: [string, string][] = [
    ["scenario", `<code>${esc(r.scenario)}</code>`],
    ["substrate", `<code>${esc(r.substrate)}</code>`],
    ["observed", `${esc(formatNumber(r.observed))}${units(t.units)}`],
    [
      "decision",
      r.deciding?.decision
        ? `${esc(r.deciding.decision.rule)} rule on ${esc(r.deciding.name)}`
        : "n/a",
    ],
    ["items measured", r.measured !== null ? String(r.measured) : "n/a"],
    ["items failed", r.failedItems !== null ? String(r.failedItems) : "n/a"],
    ["run took", r.durationMs !== null ? `${esc(formatNumber(r.durationMs / 1000))} s` : "n/a"],
    ["created", esc(r.createdAt)],
  ];
  const body = `<header class="verdict ${r.outcome}"><div>
<p class="badge">${r.outcome}</p>
<h1>${esc(r.title ?? r.claim.statement)}</h1>
<p>${esc(r.thresholdText)} · observed ${esc(formatNumber(r.observed))}${units(t.units)} · ${
    esc(r.scenario)
  } on ${esc(r.substrate)}</p>
<p>proof <code>${esc(r.proofId)}</code></p>
</div></header>
<main>
<nav aria-label="Sections">${nav.join(" ")}</nav>
${verificationBlock(r)}
<section id="verdict" aria-labelledby="h-verdict">
<h2 id="h-verdict">Verdict: <span class="outcome-${r.outcome}">${r.outcome}</span></h2>
<p>${esc(r.reasoning)}</p>
${comparisonBlock(r)}
<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl>
</section>
<section id="claim" aria-labelledby="h-claim">
<h2 id="h-claim">Claim</h2>
<blockquote><p>${esc(r.claim.statement)}</p></blockquote>
<dl class="facts">
<dt>threshold</dt><dd><strong>${esc(r.thresholdText)}</strong></dd>
<dt>tested as</dt><dd>${esc(r.claim.operationalization)}</dd>
<dt>H0</dt><dd>${esc(r.claim.h0)}</dd>
<dt>H1</dt><dd>${esc(r.claim.h1)}</dd>
</dl>
</section>
<section id="intervals" aria-labelledby="h-intervals">
<h2 id="h-intervals">Intervals against the threshold</h2>
<p class="note">Each pillar's estimate (dot) and confidence interval (bar; an open-ended side is a dashed arrow). On the deciding pillar the dashed red line is the threshold and the green region is where the claim holds.</p>
${r.pillars.map(pillarBlock).join("\n")}
${pillarTable(r.pillars)}
</section>
<section id="distribution" aria-labelledby="h-distribution">
<h2 id="h-distribution">Distribution of the observations</h2>
<p class="note">${esc(obs.note)}</p>
${obs.present ? obs.distributions.map(distributionBlock).join("\n") : ""}
</section>
<section id="items" aria-labelledby="h-items">
<h2 id="h-items">Failed and wrong items</h2>
${
    obs.present && obs.items
      ? itemsSection(r)
      : `<p>${
        r.failedItems !== null ? `${r.failedItems} items failed (from the record). ` : ""
      }The list of items needs the observations, which this report does not have.</p>`
  }
</section>
<section id="lineage" aria-labelledby="h-lineage">
<h2 id="h-lineage">Lineage</h2>
${lineageSection(r, links)}
</section>
<section id="preregistration" aria-labelledby="h-prereg">
<h2 id="h-prereg">Pre-registration</h2>
<dl class="facts">
<dt>config_hash</dt><dd><code>${esc(r.preRegistration.config_hash)}</code></dd>
<dt>data_hash</dt><dd><code>${esc(r.preRegistration.data_hash)}</code></dd>
</dl>
<h3>Analysis plan</h3>
<p>${esc(r.preRegistration.analysis_plan)}</p>
<h3>Datasets</h3>
${
    table(
      ["name", "kind", "records", "source", "SHA-256"],
      r.datasets.map((
        d,
      ) => [
        esc(d.name),
        esc(d.kind),
        String(d.n_records),
        `<code>${esc(d.source)}</code>`,
        `<code>${esc(d.content_hash)}</code>`,
      ]),
      [2],
    )
  }
</section>
<section id="reproduce" aria-labelledby="h-reproduce">
<h2 id="h-reproduce">Reproduce</h2>
<pre><code>${esc(r.command)}</code></pre>
<p class="note">Substrate revision <code>${esc(r.substrateCommit)}</code>. Produced with:</p>
${
    table(
      ["component", "version"],
      r.environment.map(([k, v]) => [esc(k), `<code>${esc(v)}</code>`]),
    )
  }
</section>
<section id="provenance" aria-labelledby="h-provenance">
<h2 id="h-provenance">Provenance</h2>
${provenanceSection(r)}
</section>
<section id="verification" aria-labelledby="h-verification">
<h2 id="h-verification">Verification</h2>
${verificationBlock(r)}
<p class="note">Check it yourself: <code>empiric schema validate &lt;record&gt; --key-file &lt;key&gt;</code>.</p>
</section>
<footer>Report of proof <code>${esc(r.proofId)}</code>, made by empiric ${
    esc(r.empiricVersion === "" ? "" : r.empiricVersion)
  }. Plots drawn by ${PLOT_LIBRARY.name} ${PLOT_LIBRARY.version} into ${DOM_LIBRARY.name} ${DOM_LIBRARY.version} when the report was made; this page loads nothing else.</footer>
</main>`;
  const css = REPORT_CSS.trim();
  return await page(
    `${r.outcome}: ${r.title ?? r.scenario} (${r.proofId.slice(0, 12)})`,
    css,
    body,
  );
}

/** A complete page: the CSP allows this page's own style elements (by hash) and nothing else. */
export async function page(
  title: string,
  css: string,
  body: string,
  formAction = false,
): Promise<string> {
  const styles = new Set<string>([css]);
  for (const m of body.matchAll(/<style>([\s\S]*?)<\/style>/g)) styles.add(m[1]);
  const hashes = await Promise.all(
    [...styles].map(async (s) => `'sha256-${await sha256Base64(s)}'`),
  );
  const csp = [
    "default-src 'none'",
    `style-src ${hashes.join(" ")}`,
    "img-src data:",
    "base-uri 'none'",
    `form-action ${formAction ? "'self'" : "'none'"}`,
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${esc(title)}</title>
<style>${css}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
