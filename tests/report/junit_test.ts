// JUnit XML read by a real JUnit consumer (Python's junitparser from PyPI): one suite per record,
// one case per pillar and one for the verdict, REFUTED and INCONCLUSIVE failing unless told.
import assert from "node:assert/strict";
import { type JunitFailOn, renderJunit } from "../../src/report/junit.ts";
import { buildReport } from "../../src/report/model.ts";
import { pythonModule } from "../support/peers.ts";
import { type FixtureName, fixtureReport, loadFixture } from "./support.ts";

const haveJunitparser = await pythonModule("junitparser");
const CHECK = new URL("./junit_check.py", import.meta.url).pathname;

interface Parsed {
  tests: number;
  failures: number;
  suites: {
    name: string;
    tests: number;
    failures: number;
    skipped: number;
    properties: Record<string, string>;
    cases: {
      name: string;
      classname: string;
      result: string;
      messages: string[];
      system_out: string;
    }[];
  }[];
}

async function parse(xml: string): Promise<Parsed> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/report.xml`, xml);
    const out = await new Deno.Command("python3", { args: [CHECK, `${dir}/report.xml`] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function junitOf(name: FixtureName, failOn?: JunitFailOn): Promise<Parsed> {
  return await parse(renderJunit(await fixtureReport(name), failOn));
}

Deno.test({
  name: "junitparser reads one suite per record, a case per pillar and one for the verdict",
  ignore: !haveJunitparser,
  fn: async () => {
    for (
      const name of ["arithmetic-validated", "sentiment-refuted", "arithmetic-failures"] as const
    ) {
      const f = await loadFixture(name);
      const p = await junitOf(name);
      assert.equal(p.suites.length, 1);
      const s = p.suites[0];
      assert.equal(s.properties.proof_id, f.record.identity.proof_id);
      assert.equal(s.properties.outcome, f.record.verdict.outcome);
      const verdict = s.cases.find((c) => c.name.startsWith("verdict"))!;
      const pillars = s.cases.filter((c) => c.classname.endsWith(".pillars"));
      assert.equal(pillars.length, f.record.evidence.length);
      assert.deepEqual(
        pillars.map((c) => c.name).sort(),
        f.record.evidence.map((e) => `pillar ${e.pillar}`).sort(),
      );
      // + the signature case (the fixtures' reports are verified).
      assert.equal(s.tests, f.record.evidence.length + 2);
      const fails = f.record.verdict.outcome !== "VALIDATED";
      assert.equal(verdict.result, fails ? "failure" : "passed", name);
      if (fails) assert.match(verdict.messages[0], new RegExp(`^${f.record.verdict.outcome}`));
      const deciding = pillars.find((c) => c.name === `pillar ${f.record.claim.threshold.metric}`)!;
      assert.equal(deciding.result, fails ? "failure" : "passed");
      assert.equal(s.failures, fails ? 2 : 0);
      assert.equal(p.failures, s.failures);
    }
  },
});

Deno.test({
  name: "--junit-fail-on decides which verdicts fail",
  ignore: !haveJunitparser,
  fn: async () => {
    const verdict = async (name: FixtureName, failOn: JunitFailOn) =>
      (await junitOf(name, failOn)).suites[0].cases.find((c) => c.name.startsWith("verdict"))!
        .result;
    assert.equal(await verdict("sentiment-refuted", "none"), "passed");
    assert.equal(await verdict("sentiment-refuted", "inconclusive"), "passed");
    assert.equal(await verdict("sentiment-refuted", "refuted"), "failure");
    assert.equal(await verdict("arithmetic-failures", "refuted"), "passed");
    assert.equal(await verdict("arithmetic-failures", "inconclusive"), "failure");
    assert.equal(await verdict("arithmetic-validated", "not-validated"), "passed");
  },
});

Deno.test({
  name: "a bad signature is a failing case, and hostile text stays well-formed XML",
  ignore: !haveJunitparser,
  fn: async () => {
    const f = await loadFixture("arithmetic-validated");
    const record = structuredClone(f.record);
    record.claim.statement = `<&"'\u0001> ]]> \ud800 end`;
    const report = buildReport({
      record,
      verification: {
        state: "failed",
        structure: true,
        summary: "the signature does not match <key>.",
      },
    });
    const p = await parse(renderJunit(report));
    const sig = p.suites[0].cases.find((c) => c.name === "signature")!;
    assert.equal(sig.result, "failure");
    assert.match(sig.messages[0], /does not verify/);
  },
});
