// RO-Crate 1.2: the metadata document (context, descriptor, every mapped entity, flattened
// JSON-LD, references resolving), writeRoCrate (atomic, refusal, overwrite), the real
// roc-validator (PyPI) with the ro-crate-1.2 profile at REQUIRED level, and the CLI.
import assert from "node:assert/strict";
import { pythonModule } from "../support/peers.ts";
import { createHash } from "node:crypto";
import {
  type BundleFile,
  DEFAULT_LICENSE,
  DEFAULT_PROOF_FILENAME,
  NO_ASSERTION_LICENSE,
  PROCESS_RUN_CRATE_PROFILE,
  PROOF_ID_ENTITY,
  RO_CRATE_CONFORMS_TO_V1_2,
  RO_CRATE_CONTEXT_V1_2,
  RO_CRATE_METADATA_FILENAME,
  toRoCrateMetadata,
  writeRoCrate,
} from "../../src/export/rocrate.ts";
import { EmpiricError, IoError } from "../../src/errors/errors.ts";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonObject } from "../../src/json/value.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { runCli } from "../support/run_cli.ts";
import {
  FIXTURE_KEY,
  fixtureText,
  plain,
  RECORDS,
  ROOT,
  ROUND_TRIP_FIXTURES,
  SHARED_SCHEMAS,
} from "./support.ts";

type Entity = Record<string, unknown> & { "@id": string; "@type": string | string[] };

function graphOf(doc: unknown): Map<string, Entity> {
  const g = (doc as { "@graph": Entity[] })["@graph"];
  const m = new Map<string, Entity>();
  for (const e of g) {
    assert.ok(typeof e["@id"] === "string" && e["@type"], `entity without @id/@type`);
    assert.ok(!m.has(e["@id"]), `duplicate @id ${e["@id"]}`);
    m.set(e["@id"], e);
  }
  return m;
}

function types(e: Entity): string[] {
  return Array.isArray(e["@type"]) ? e["@type"] : [e["@type"]];
}

function ref(id: string): { "@id": string } {
  return { "@id": id };
}

/** Every nested object is a bare reference (flattened JSON-LD); collect the references. */
function references(e: Entity): string[] {
  const out: string[] = [];
  const visit = (v: unknown, top: boolean) => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, false));
    else if (v !== null && typeof v === "object") {
      if (top) {
        for (const [k, x] of Object.entries(v)) if (k !== "@id" && k !== "@type") visit(x, false);
        return;
      }
      const keys = Object.keys(v);
      assert.deepEqual(keys, ["@id"], `nested object in ${e["@id"]}: ${JSON.stringify(v)}`);
      out.push((v as { "@id": string })["@id"]);
    }
  };
  visit(e, true);
  return out;
}

const PY_HELPER = `${ROOT}tests/export/rocrate_validate.py`;
const haveValidator = await pythonModule("rocrate_validator", "roc-validator");
const CONTEXT_FILE = `${SHARED_SCHEMAS}ro-crate/ro-crate-1.2-context.jsonld`;

/** Run roc-validator (PyPI) offline on a crate; fails loudly when it is not installed. */
async function rocValidate(
  dir: string,
): Promise<{ code: number; report: Record<string, unknown> }> {
  let out;
  try {
    out = await new Deno.Command("python3", {
      args: [PY_HELPER, CONTEXT_FILE, dir],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    throw new Error(`python3 is needed to run roc-validator: ${(e as Error).message}`);
  }
  const stderr = new TextDecoder().decode(out.stderr);
  const stdout = new TextDecoder().decode(out.stdout);
  if (
    /ModuleNotFoundError|No such file or directory: 'rocrate-validator'|command not found/.test(
      stderr,
    )
  ) {
    throw new Error(
      `roc-validator is not installed: run \`python3 -m pip install roc-validator\`\n${stderr}`,
    );
  }
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new Error(`roc-validator gave no JSON report (exit ${out.code}):\n${stdout}\n${stderr}`);
  }
  return { code: out.code, report };
}

Deno.test("RO-Crate metadata: 1.2 context, descriptor, every mapped entity", async () => {
  const text = fixtureText("valid.json");
  const record = parseJson(text) as JsonObject;
  const id = (record.identity as JsonObject).proof_id as string;
  const doc = plain(await toRoCrateMetadata(text)) as Record<string, unknown>;
  assert.equal(doc["@context"], RO_CRATE_CONTEXT_V1_2);
  assert.equal(RO_CRATE_CONTEXT_V1_2, "https://w3id.org/ro/crate/1.2/context");
  const g = graphOf(doc);

  const descriptor = g.get(RO_CRATE_METADATA_FILENAME)!;
  assert.equal(RO_CRATE_METADATA_FILENAME, "ro-crate-metadata.json");
  assert.deepEqual(types(descriptor), ["CreativeWork"]);
  assert.deepEqual(descriptor.about, ref("./"));
  assert.deepEqual(descriptor.conformsTo, ref(RO_CRATE_CONFORMS_TO_V1_2));
  assert.equal(RO_CRATE_CONFORMS_TO_V1_2, "https://w3id.org/ro/crate/1.2");

  const root = g.get("./")!;
  assert.deepEqual(types(root), ["Dataset"]);
  assert.equal(typeof root.name, "string");
  assert.equal(typeof root.description, "string");
  assert.equal(root.datePublished, "2026-11-22T00:00:00Z");
  // The proof_id as a PropertyValue (the Science On Schema.org form RO-Crate 1.2 recommends).
  assert.deepEqual(root.identifier, ref(PROOF_ID_ENTITY));
  const pid = g.get(PROOF_ID_ENTITY)!;
  assert.deepEqual(types(pid), ["PropertyValue"]);
  assert.equal(pid.value, id);
  assert.equal(pid.name, "proof_id");
  // No licence stated: SPDX 3's NoAssertionLicense, a named entity.
  assert.equal(DEFAULT_LICENSE, "NOASSERTION");
  assert.deepEqual(root.license, ref(NO_ASSERTION_LICENSE));
  assert.equal(g.get(NO_ASSERTION_LICENSE)!.name, "NOASSERTION");
  assert.equal(typeof g.get(NO_ASSERTION_LICENSE)!.description, "string");
  assert.equal(root.publisher, undefined); // nobody to name by default
  // Process Run Crate: the profile, and the run as a CreateAction.
  assert.deepEqual(root.conformsTo, ref(PROCESS_RUN_CRATE_PROFILE));
  assert.deepEqual(types(g.get(PROCESS_RUN_CRATE_PROFILE)!), ["CreativeWork", "Profile"]);
  const run = g.get(`#run-${id}`)!;
  assert.deepEqual(types(run), ["CreateAction"]);
  assert.deepEqual(run.instrument, ref("#empiric"));
  assert.deepEqual(run.result, ref("proof.json"));
  assert.equal(run.startTime, "2026-11-22T00:00:00+00:00");
  assert.equal(run.endTime, "2026-11-22T00:00:01+00:00");
  assert.equal(run.actionStatus, "http://schema.org/CompletedActionStatus");
  assert.equal(run.description, "empiric run latency-p95 --substrate builtin:echo");
  assert.equal(run.agent, undefined);
  assert.ok((root.mentions as { "@id": string }[]).some((m) => m["@id"] === run["@id"]));

  assert.equal(DEFAULT_PROOF_FILENAME, "proof.json");
  const file = g.get("proof.json")!;
  assert.deepEqual(types(file), ["File"]);
  assert.equal(file.encodingFormat, "application/json");
  assert.equal(file.contentSize, String(new TextEncoder().encode(text).length));
  assert.equal(file.sha256, createHash("sha256").update(text).digest("hex"));
  assert.equal(file.identifier, id);

  const datasets = (record.data as JsonObject).datasets as JsonObject[];
  assert.deepEqual(run.object, ref(`#dataset-sha256-${datasets[0].content_hash}`));
  for (const d of datasets) {
    const e = g.get(`#dataset-sha256-${d.content_hash}`)!;
    assert.ok(e, `dataset ${d.name}`);
    assert.deepEqual(types(e), ["Dataset"]);
    assert.equal(e.url, d.source);
    assert.equal(e.size, Number(d.n_records));
    assert.equal(e.name, d.name);
    assert.equal(e.sha256, d.content_hash);
  }
  const hasPart = root.hasPart as { "@id": string }[];
  assert.deepEqual(hasPart, [
    ref("proof.json"),
    ...datasets.map((d) => ref(`#dataset-sha256-${d.content_hash}`)),
  ]);

  const subId = "#substrate-echo-service@1111111111111111111111111111111111111111";
  const sub = g.get(subId)!;
  assert.deepEqual(types(sub), ["SoftwareApplication"]);
  assert.equal(sub.name, "echo-service");
  assert.equal(sub.version, "1111111111111111111111111111111111111111");
  assert.equal(typeof sub.url, "string");

  const verdict = g.get("#verdict")!;
  assert.deepEqual(types(verdict), ["AssessAction"]);
  assert.match(verdict.name as string, /VALIDATED/);
  const results = (verdict.result as { "@id": string }[]).map((r) => g.get(r["@id"])!);
  const observed = results.find((r) =>
    types(r).includes("PropertyValue") && r.name === "latency_p95_ms"
  )!;
  assert.equal(observed.value, 41.25);
  assert.equal(observed.unitText, "ms");
  assert.ok(results.some((r) => r.value === "VALIDATED"));
  assert.deepEqual(verdict.agent, ref("#empiric"));

  const repro = g.get("#reproduction")!;
  assert.deepEqual(types(repro), ["File", "SoftwareSourceCode"]);
  assert.equal(repro.text, "empiric run latency-p95 --substrate builtin:echo");
  assert.equal(repro.localPath, "reproduce.sh");
  assert.deepEqual(repro.programmingLanguage, ref("#posix-shell"));
  assert.deepEqual(types(g.get("#posix-shell")!), ["ComputerLanguage"]);

  const empiric = g.get("#empiric")!;
  assert.deepEqual(types(empiric), ["SoftwareApplication"]);
  assert.equal(empiric.softwareVersion, "0.1.0");
  assert.equal(empiric.identifier, "0000000000000000000000000000000000000000");
  assert.equal(typeof empiric.url, "string");
  assert.equal(typeof empiric.version, "string");

  // Flattened: nested objects are bare references, and every reference resolves, except
  // the RO-Crate specification the descriptor conforms to.
  for (const e of g.values()) {
    for (const r of references(e)) {
      if (r === RO_CRATE_CONFORMS_TO_V1_2) continue;
      assert.ok(g.has(r), `${e["@id"]} references ${r}, which is not in the graph`);
    }
  }
  // Every entity is reachable from the root.
  const seen = new Set<string>(["./"]);
  const queue = ["./"];
  while (queue.length) {
    for (const r of references(g.get(queue.pop()!)!)) {
      if (g.has(r) && !seen.has(r)) {
        seen.add(r);
        queue.push(r);
      }
    }
  }
  for (const k of g.keys()) {
    if (k !== RO_CRATE_METADATA_FILENAME) assert.ok(seen.has(k), `${k} is not reachable from ./`);
  }
  // Only terms of the RO-Crate 1.2 context are used (it has no @vocab).
  const context = JSON.parse(await Deno.readTextFile(CONTEXT_FILE))["@context"];
  for (const e of g.values()) {
    for (const k of Object.keys(e)) {
      if (!k.startsWith("@")) assert.ok(k in context, `${e["@id"]}: ${k} is not an RO-Crate term`);
    }
    for (const t of types(e)) assert.ok(t in context, `${e["@id"]}: type ${t}`);
  }
});

Deno.test("RO-Crate metadata: extra root metadata, proof file name, refusals", async () => {
  const text = fixtureText("valid-refuted-int-threshold.json");
  const doc = plain(
    await toRoCrateMetadata(text, {
      proofFilename: "records/my proof.json",
      extraRootMetadata: {
        license: { "@id": "https://spdx.org/licenses/CC-BY-4.0" },
        creator: { "@id": "https://orcid.org/0000-0002-1825-0097" },
        name: "A custom name",
      },
      extraEntities: [
        {
          "@id": "https://spdx.org/licenses/CC-BY-4.0",
          "@type": "CreativeWork",
          name: "CC BY 4.0",
        },
        { "@id": "https://orcid.org/0000-0002-1825-0097", "@type": "Person", name: "J. Carberry" },
      ],
    }),
  );
  const g = graphOf(doc);
  const root = g.get("./")!;
  assert.deepEqual(root.license, ref("https://spdx.org/licenses/CC-BY-4.0"));
  assert.equal(root.name, "A custom name");
  assert.ok(g.has("records/my%20proof.json"));
  assert.deepEqual((root.hasPart as unknown[])[0], ref("records/my%20proof.json"));
  // The int threshold and the big n_records stay exact.
  const ds = [...g.values()].find((e) => e["@id"].startsWith("#dataset-"))!;
  assert.equal(String(ds.size), "9007199254740993");

  const code = (c: string) => (e: unknown) => e instanceof EmpiricError && e.code === c;
  await assert.rejects(
    toRoCrateMetadata(text, { extraRootMetadata: { "@id": "x" } }),
    code("usage_error"),
  );
  for (const bad of ["", "/abs.json", "../up.json", "a/../b.json", "ro-crate-metadata.json"]) {
    await assert.rejects(toRoCrateMetadata(text, { proofFilename: bad }), code("usage_error"), bad);
  }
  await assert.rejects(
    toRoCrateMetadata(text, { extraEntities: [{ "@id": "./", "@type": "Dataset" }] }),
    code("usage_error"),
  );
  await assert.rejects(
    toRoCrateMetadata(fixtureText("tampered-float-to-int.json")),
    code("proof_id_mismatch"),
  );
});

Deno.test("writeRoCrate: files, atomic write, refusal with already_exists, overwrite", async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-crate-" });
  try {
    const text = fixtureText("valid.json");
    const dir = `${parent}/crate`;
    const path = await writeRoCrate(text, dir);
    assert.equal(path, dir);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, [DEFAULT_PROOF_FILENAME, RO_CRATE_METADATA_FILENAME]);
    // The proof file is the record's bytes, and it verifies.
    assert.equal(await Deno.readTextFile(`${dir}/proof.json`), text);
    const v = await verifyRecord(await Deno.readFile(`${dir}/proof.json`), { key: FIXTURE_KEY });
    assert.equal(v.verified, true);
    const meta = JSON.parse(await Deno.readTextFile(`${dir}/${RO_CRATE_METADATA_FILENAME}`));
    assert.equal(meta["@context"], RO_CRATE_CONTEXT_V1_2);
    // Nothing but the crate is left beside it.
    assert.deepEqual([...Deno.readDirSync(parent)].map((e) => e.name), ["crate"]);

    // An existing directory is refused, even an empty one.
    await assert.rejects(writeRoCrate(text, dir), (e) => {
      assert.ok(e instanceof IoError);
      assert.equal(e.code, "already_exists");
      assert.equal(e.exitCode, 73);
      return true;
    });
    await Deno.mkdir(`${parent}/empty`);
    await assert.rejects(
      writeRoCrate(text, `${parent}/empty`),
      (e) => e instanceof IoError && e.code === "already_exists",
    );
    assert.deepEqual([...Deno.readDirSync(`${parent}/empty`)], []);

    // overwrite replaces the directory as a whole (stray files go).
    await Deno.writeTextFile(`${dir}/stray.txt`, "x");
    const other = fixtureText("valid-refuted-int-threshold.json");
    assert.equal(await writeRoCrate(other, dir, { overwrite: true }), dir);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      DEFAULT_PROOF_FILENAME,
      RO_CRATE_METADATA_FILENAME,
    ]);
    assert.equal(await Deno.readTextFile(`${dir}/proof.json`), other);
    assert.deepEqual([...Deno.readDirSync(parent)].map((e) => e.name).sort(), ["crate", "empty"]);

    // A relative directory gives an absolute path; a typed record is written as pretty JSON.
    const cwd = Deno.cwd();
    Deno.chdir(parent);
    try {
      const rel = await writeRoCrate(parseJson(other) as JsonObject, "rel-crate", {
        proofFilename: "nested/p.json",
      });
      assert.equal(rel, `${parent}/rel-crate`);
      const written = await Deno.readTextFile(`${rel}/nested/p.json`);
      assert.match(written, /"value": 30,/);
      assert.equal((await verifyRecord(written, { key: FIXTURE_KEY })).verified, true);
    } finally {
      Deno.chdir(cwd);
    }
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

for (const name of ROUND_TRIP_FIXTURES) {
  Deno.test({
    name: `roc-validator (ro-crate-1.2 profile): no REQUIRED-level issues: ${name}`,
    ignore: !haveValidator,
  }, async () => {
    const parent = await Deno.makeTempDir({ prefix: "empiric-rocv-" });
    try {
      const dir = await writeRoCrate(fixtureText(name), `${parent}/crate`);
      const { code, report } = await rocValidate(dir);
      const issues = (report.issues ?? []) as { severity: string; message: string }[];
      assert.deepEqual(
        issues.filter((i) => i.severity === "REQUIRED").map((i) => i.message),
        [],
      );
      assert.equal(report.passed, true, JSON.stringify(issues, null, 2));
      assert.equal(code, 0);
      const settings = report.validation_settings as Record<string, unknown>;
      assert.equal(settings.profile_identifier, "ro-crate-1.2");
      assert.equal(settings.requirement_severity, "REQUIRED");
      const stats = report.statistics as Record<string, number>;
      assert.ok(stats.total_checks > 30, `only ${stats.total_checks} checks ran`);
    } finally {
      await Deno.remove(parent, { recursive: true });
    }
  });
}

Deno.test({
  name: "roc-validator catches a broken crate (the check is real)",
  ignore: !haveValidator,
}, async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-rocv-" });
  try {
    const dir = await writeRoCrate(fixtureText("valid.json"), `${parent}/crate`);
    const metaPath = `${dir}/${RO_CRATE_METADATA_FILENAME}`;
    const meta = JSON.parse(await Deno.readTextFile(metaPath));
    for (const e of meta["@graph"]) if (e["@id"] === "./") delete e.datePublished;
    await Deno.writeTextFile(metaPath, JSON.stringify(meta));
    await Deno.remove(`${dir}/proof.json`);
    const { report } = await rocValidate(dir);
    assert.equal(report.passed, false);
    const messages = (report.issues as { message: string }[]).map((i) => i.message).join("\n");
    assert.match(messages, /datePublished/);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("CLI: export ro-crate --out DIR [--overwrite] [--license]", async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-crate-cli-" });
  try {
    await Deno.writeTextFile(
      `${parent}/root.json`,
      JSON.stringify({ keywords: "empiric, proof", creator: { "@id": "#me" } }),
    );
    const dir = `${parent}/c`;
    const args = ["export", "ro-crate", `${RECORDS}valid.json`, "--out", dir];
    const first = await runCli([...args, "--license", "https://spdx.org/licenses/CC0-1.0"]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), dir);
    const meta = JSON.parse(await Deno.readTextFile(`${dir}/${RO_CRATE_METADATA_FILENAME}`));
    const root = meta["@graph"].find((e: Entity) => e["@id"] === "./");
    assert.deepEqual(root.license, ref("https://spdx.org/licenses/CC0-1.0"));
    const cc0 = meta["@graph"].find((e: Entity) => e["@id"] === root.license["@id"]);
    assert.equal(cc0.name, "CC0-1.0");

    const again = await runCli(args);
    assert.equal(again.code, 73);
    assert.match(again.stderr, /^empiric: already_exists: /m);
    assert.doesNotMatch(again.stderr, /\bat .*\.ts:\d+/);

    const over = await runCli([
      ...args,
      "--overwrite",
      "--license",
      "MIT",
      "--root-metadata",
      `${parent}/root.json`,
      "--proof-filename",
      "record.json",
    ]);
    assert.equal(over.code, 0, over.stderr);
    assert.ok((await Deno.stat(`${dir}/record.json`)).isFile);
    const meta2 = JSON.parse(await Deno.readTextFile(`${dir}/${RO_CRATE_METADATA_FILENAME}`));
    const root2 = meta2["@graph"].find((e: Entity) => e["@id"] === "./");
    assert.deepEqual(root2.license, ref("https://spdx.org/licenses/MIT"));
    const mit = meta2["@graph"].find((e: Entity) => e["@id"] === "https://spdx.org/licenses/MIT");
    assert.equal(mit.name, "MIT");
    assert.equal(root2.keywords, "empiric, proof");

    const noOut = await runCli(["export", "ro-crate", `${RECORDS}valid.json`]);
    assert.equal(noOut.code, 64);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
