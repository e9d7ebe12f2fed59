// The Markdown report against golden files (fixtures/reports/<name>.md), made from the committed
// fixture records. UPDATE_GOLDEN=1 rewrites them (read the diff before committing).
import assert from "node:assert/strict";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { fixtureReport, FIXTURES, REPORTS } from "./support.ts";

const update = Deno.env.get("UPDATE_GOLDEN") === "1";

for (const name of FIXTURES) {
  Deno.test(`Markdown report of ${name} matches its golden file`, async () => {
    const md = renderMarkdown(await fixtureReport(name));
    const golden = `${REPORTS}${name}.md`;
    if (update) await Deno.writeTextFile(golden, md);
    assert.equal(md, await Deno.readTextFile(golden));
    // Job summaries and comments: no links, no raw HTML but <sub>, no huge numbers.
    assert.doesNotMatch(md, /https?:|\]\(|<(?!\/?sub>)[a-z]/i);
    assert.doesNotMatch(md, /e\+?308/);
  });
}

Deno.test("Markdown escapes what a record's text could use to break the table or inject HTML", async () => {
  const { mdText, mdCode } = await import("../../src/report/markdown.ts");
  assert.equal(mdText("a|b <script> [x](y)"), "a\\|b &lt;script&gt; \\[x\\](y)");
  assert.equal(mdCode("a`b"), "``a`b``");
  assert.equal(mdCode("`x"), "`` `x ``");
});
