/**
 * The proofs page (`GET /ui`): the store's index as a table people can filter by scenario,
 * substrate and outcome, each row linking to its report. Plain HTML with a GET form: no script,
 * nothing from any other host, every link relative (it works behind a path-prefixing proxy).
 *
 * @module
 */
import { esc, page, REPORT_CSS } from "./html.ts";
import { formatNumber } from "./model.ts";

/** One row of the list (an index entry). */
export interface ProofListEntry {
  proof_id: string;
  scenario: string;
  substrate: string;
  outcome: string;
  metric: string;
  observed_value: number | null;
  created_at: string;
}

/** What the page shows. */
export interface ProofList {
  entries: ProofListEntry[];
  total: number;
  limit: number;
  offset: number;
  filters: { scenario?: string; substrate?: string; outcome?: string };
  /** Scenario and substrate names to suggest in the filters. */
  scenarios: string[];
  substrates: string[];
}

const UI_CSS = `
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin: 1rem 0; }
form.filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
form.filters input, form.filters select, form.filters button { font: inherit; padding: .3rem .5rem;
  border: 1px solid #8c959f; border-radius: 4px; color: var(--fg); background: #fff; min-width: 10rem; }
form.filters button { background: var(--accent); color: #fff; border-color: var(--accent); min-width: 0; cursor: pointer; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
h1.page { font-size: 1.5rem; margin: 1.5rem 0 .5rem; }
`;

function query(filters: ProofList["filters"], offset: number, limit: number): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  if (offset) q.set("offset", String(offset));
  if (limit !== 50) q.set("limit", String(limit));
  const s = q.toString();
  return s ? `ui?${s}` : "ui";
}

/**
 * The page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderProofList } from "./ui.ts";
 * const html = await renderProofList({
 *   entries: [], total: 0, limit: 50, offset: 0, filters: {}, scenarios: [], substrates: [],
 * });
 * assert.match(html, /No proofs/);
 * ```
 */
export async function renderProofList(list: ProofList): Promise<string> {
  const f = list.filters;
  const option = (v: string, label: string) =>
    `<option value="${esc(v)}"${(f.outcome ?? "") === v ? " selected" : ""}>${label}</option>`;
  const rows = list.entries.map((e) =>
    `<tr><td>${esc(e.created_at)}</td><td><span class="outcome-${esc(e.outcome)}">${
      esc(e.outcome)
    }</span></td><td>${esc(e.scenario)}</td><td><code>${esc(e.substrate)}</code></td><td>${
      esc(e.metric)
    }</td><td class="num">${esc(formatNumber(e.observed_value))}</td><td><a href="proofs/${
      esc(e.proof_id)
    }/report">report</a> · <a href="proofs/${esc(e.proof_id)}">JSON</a><br><code>${
      esc(e.proof_id.slice(0, 12))
    }…</code></td></tr>`
  );
  const first = list.total === 0 ? 0 : list.offset + 1;
  const last = list.offset + list.entries.length;
  const pager = [
    list.offset > 0
      ? `<a href="${
        esc(query(f, Math.max(0, list.offset - list.limit), list.limit))
      }" rel="prev">← newer</a>`
      : "",
    last < list.total ? `<a href="${esc(query(f, last, list.limit))}" rel="next">older →</a>` : "",
  ].filter(Boolean).join("");
  const body = `<main>
<h1 class="page">Proofs</h1>
<form class="filters" method="get" action="ui" role="search" aria-label="Filter proofs">
<label>scenario<input name="scenario" list="scenarios" value="${esc(f.scenario ?? "")}"></label>
<datalist id="scenarios">${
    list.scenarios.map((s) => `<option value="${esc(s)}">`).join("")
  }</datalist>
<label>substrate<input name="substrate" list="substrates" value="${esc(f.substrate ?? "")}"></label>
<datalist id="substrates">${
    list.substrates.map((s) => `<option value="${esc(s)}">`).join("")
  }</datalist>
<label>outcome<select name="outcome">${option("", "any")}${option("VALIDATED", "VALIDATED")}${
    option("REFUTED", "REFUTED")
  }${option("INCONCLUSIVE", "INCONCLUSIVE")}</select></label>
<button type="submit">Filter</button>
</form>
<p class="note" aria-live="polite">${
    list.total === 0
      ? "No proofs match."
      : `Proofs ${first} to ${last} of ${list.total}, newest first.`
  }</p>
${
    list.total === 0 ? "" : `<div class="scroll"><table>
<thead><tr><th scope="col">created</th><th scope="col">verdict</th><th scope="col">scenario</th><th scope="col">substrate</th><th scope="col">metric</th><th scope="col" class="num">observed</th><th scope="col">proof</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody></table></div>`
  }
${pager ? `<nav class="pager" aria-label="Pages">${pager}</nav>` : ""}
<footer>empiric proof store. Each report is a self-contained page; this page loads nothing from any other host.</footer>
</main>`;
  return await page("empiric proofs", (REPORT_CSS + UI_CSS).trim(), body, true);
}
