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
import { prettyJson } from "../../src/json/pretty.ts";
import type { JsonObject } from "../../src/json/value.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { runCli } from "../support/run_cli.ts";
import {
  FIXTURE_KEY,
  fixtureText,
  plain,
  RECORDS,
  resignedFixture,
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
const haveRoCratePy = await pythonModule("rocrate", "rocrate");
const CONTEXT_FILE = `${SHARED_SCHEMAS}ro-crate/ro-crate-1.2-context.jsonld`;

/** Run roc-validator (PyPI) offline on a crate; fails loudly when it is not installed. */
async function rocValidate(
  dir: string,
  args: string[] = [],
): Promise<{ code: number; report: Record<string, unknown> }> {
  let out;
  try {
    out = await new Deno.Command("python3", {
      args: [PY_HELPER, CONTEXT_FILE, dir, ...args],
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

// ---------------------------------------------------------------------------------------------
// RECOMMENDED level, Process Run Crate, the proof bundle, ro-crate-py

/** Root metadata naming everything RO-Crate 1.2 recommends: publisher, creator, contacts. */
const FULL_ROOT_METADATA = {
  publisher: {
    "@id": "https://ror.org/03yrm5c26",
    "@type": "Organization",
    name: "Example Research Institute",
    url: "https://example.org/",
    contactPoint: {
      "@type": "ContactPoint",
      name: "Data steward",
      contactType: "data steward",
      email: "data@example.org",
      identifier: "data@example.org",
    },
  },
  creator: {
    "@id": "https://orcid.org/0000-0002-1825-0097",
    "@type": "Person",
    name: "Josiah Carberry",
    affiliation: { "@id": "https://ror.org/03yrm5c26" },
    contactPoint: { "@id": "#contactPoint" },
  },
};

type Issue = {
  severity: string;
  message: string;
  violatingEntity?: string;
  check: { profile: string };
};

function issuesOf(report: Record<string, unknown>): Issue[] {
  return (report.issues ?? []) as Issue[];
}

/** A record whose datasets include the run's observations, with a synthetic observations file. */
async function bundleRecord() {
  const observations = new TextEncoder().encode(
    '{"id":"q1","latency_ms":12.5,"ok":true}\n{"id":"q2","latency_ms":48.0,"ok":true}\n',
  );
  const scenario = new TextEncoder().encode('{"name":"latency-p95","claim":{}}\n');
  const hash = createHash("sha256").update(observations).digest("hex");
  const record = await resignedFixture("valid.json", (r) => {
    ((r.data as JsonObject).datasets as JsonObject[]).push({
      name: "observations",
      content_hash: hash,
      n_records: 2n as unknown as JsonObject,
      source: "proof.observations.jsonl",
      // "observations" once the record schema has that kind (issue 14); the match is by hash.
      kind: "synthetic",
    } as unknown as JsonObject);
  });
  const files: BundleFile[] = [
    {
      name: "proof.observations.jsonl",
      bytes: observations,
      encodingFormat: "application/jsonl",
      description: "Per-item measurements of the run",
      relation: "output",
    },
    {
      name: "scenario/proof.scenario.json",
      bytes: scenario,
      encodingFormat: "application/json",
      description: "The scenario the run followed",
      relation: "input",
    },
  ];
  return { record, files, hash };
}

Deno.test("RO-Crate bundle files: packed, hashed, linked to the run; a packed dataset is its file", async () => {
  const { record, files, hash } = await bundleRecord();
  const g = graphOf(plain(await toRoCrateMetadata(record, { bundleFiles: files })));
  const id = record.identity.proof_id;
  const root = g.get("./")!;
  const parts = (root.hasPart as { "@id": string }[]).map((p) => p["@id"]);
  assert.ok(parts.includes("proof.observations.jsonl"));
  assert.ok(parts.includes("scenario/proof.scenario.json"));
  // The observations dataset of section 4 is the bundled file (same SHA-256).
  assert.ok(!g.has(`#dataset-sha256-${hash}`));
  const obs = g.get("proof.observations.jsonl")!;
  assert.deepEqual(types(obs), ["File"]);
  assert.equal(obs.sha256, hash);
  assert.equal(obs.additionalType, "synthetic");
  assert.equal(obs.encodingFormat, "application/jsonl");
  assert.equal(obs.contentSize, String(files[0].bytes.length));
  const sc = g.get("scenario/proof.scenario.json")!;
  assert.equal(sc.sha256, createHash("sha256").update(files[1].bytes).digest("hex"));
  assert.equal(sc.description, "The scenario the run followed");
  const run = g.get(`#run-${id}`)!;
  assert.deepEqual(run.result, [ref("proof.json"), ref("proof.observations.jsonl")]);
  const objects = (run.object as { "@id": string }[]).map((o) => o["@id"]);
  assert.ok(objects.includes("scenario/proof.scenario.json"));
  assert.ok(!objects.includes("proof.observations.jsonl"));

  const code = (c: string) => (e: unknown) => e instanceof EmpiricError && e.code === c;
  for (
    const bad of [
      [{ ...files[0], name: "proof.json" }], // clashes with the proof file
      [files[0], files[0]],
      [{ ...files[0], name: "../x" }],
      [{ ...files[0], relation: "sideways" as never }],
      [{ ...files[0], encodingFormat: "" }],
    ]
  ) {
    await assert.rejects(toRoCrateMetadata(record, { bundleFiles: bad }), code("usage_error"));
  }

  // writeRoCrate writes them, byte for byte.
  const parent = await Deno.makeTempDir({ prefix: "empiric-bundle-" });
  try {
    const dir = await writeRoCrate(record, `${parent}/crate`, { bundleFiles: files });
    assert.deepEqual(await Deno.readFile(`${dir}/proof.observations.jsonl`), files[0].bytes);
    assert.deepEqual(await Deno.readFile(`${dir}/scenario/proof.scenario.json`), files[1].bytes);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("RO-Crate root metadata: nested entities are flattened, licences become named entities", async () => {
  const text = fixtureText("valid.json");
  const g = graphOf(plain(
    await toRoCrateMetadata(text, {
      extraRootMetadata: {
        ...FULL_ROOT_METADATA,
        author: [{ "@type": "Person", name: "A" }, { "@type": "Person", name: "B" }],
        license: "Apache-2.0",
      },
    }),
  ));
  const root = g.get("./")!;
  assert.deepEqual(root.publisher, ref("https://ror.org/03yrm5c26"));
  assert.deepEqual(root.author, [ref("#author"), ref("#author-1")]);
  assert.equal(g.get("#author-1")!.name, "B");
  const org = g.get("https://ror.org/03yrm5c26")!;
  assert.deepEqual(org.contactPoint, ref("#contactPoint"));
  assert.equal(g.get("#contactPoint")!.email, "data@example.org");
  assert.deepEqual(root.license, ref("https://spdx.org/licenses/Apache-2.0"));
  assert.equal(g.get("https://spdx.org/licenses/Apache-2.0")!.name, "Apache-2.0");
  // The first creator ran it.
  const id = JSON.parse(text).identity.proof_id;
  assert.deepEqual(g.get(`#run-${id}`)!.agent, ref("https://orcid.org/0000-0002-1825-0097"));
  for (const e of g.values()) {
    for (const r of references(e)) {
      if (r !== RO_CRATE_CONFORMS_TO_V1_2) assert.ok(g.has(r), `${e["@id"]} -> ${r}`);
    }
  }
  // A licence URL and free text.
  const byUrl = graphOf(plain(
    await toRoCrateMetadata(text, { extraRootMetadata: { license: "https://example.org/terms" } }),
  ));
  assert.equal(byUrl.get("https://example.org/terms")!.name, "https://example.org/terms");
  const byText = graphOf(plain(
    await toRoCrateMetadata(text, {
      extraRootMetadata: { license: "All rights reserved by the lab" },
    }),
  ));
  assert.deepEqual(byText.get("./")!.license, ref("#license"));
  assert.equal(byText.get("#license")!.name, "All rights reserved by the lab");

  const code = (c: string) => (e: unknown) => e instanceof EmpiricError && e.code === c;
  await assert.rejects(
    toRoCrateMetadata(text, {
      extraRootMetadata: { publisher: { "@id": "#empiric", "@type": "Organization", name: "x" } },
    }),
    code("usage_error"),
  );
  await assert.rejects(
    toRoCrateMetadata(text, {
      extraRootMetadata: {
        publisher: { "@id": "https://ror.org/1", "@type": "Organization", name: "x" },
        funder: { "@id": "https://ror.org/1", "@type": "Organization", name: "y" },
      },
    }),
    code("usage_error"),
  );
});

Deno.test({
  name:
    "roc-validator at RECOMMENDED: a default crate misses only a publisher; with one named, nothing",
  ignore: !haveValidator,
}, async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-rocv-" });
  try {
    for (const name of ROUND_TRIP_FIXTURES) {
      const dir = await writeRoCrate(fixtureText(name), `${parent}/${name}`);
      const { report } = await rocValidate(dir, ["--requirement-severity", "RECOMMENDED"]);
      assert.deepEqual(
        issuesOf(report).map((i) => `${i.severity} ${i.message}`),
        [
          "RECOMMENDED The Root Data Entity SHOULD have a `publisher` property (Organization or Person)",
        ],
        name,
      );
    }
    // The CLI with --root-metadata (nested, flattened) and --license.
    const { record, files } = await bundleRecord();
    const recordFile = `${parent}/record.json`;
    await Deno.writeTextFile(recordFile, prettyJson(record as unknown as JsonObject));
    await Deno.writeTextFile(`${parent}/root.json`, JSON.stringify(FULL_ROOT_METADATA));
    const dir = `${parent}/full`;
    const cli = await runCli([
      "export",
      "ro-crate",
      recordFile,
      "--out",
      dir,
      "--root-metadata",
      `${parent}/root.json`,
      "--license",
      "CC-BY-4.0",
    ]);
    assert.equal(cli.code, 0, cli.stderr);
    const full = await rocValidate(dir, ["--requirement-severity", "RECOMMENDED"]);
    assert.deepEqual(issuesOf(full.report).map((i) => i.message), []);
    assert.equal(full.report.passed, true);
    assert.equal(full.code, 0);
    // --publisher, --publisher-name and --contact leave nothing recommended unmet; the CLI says
    // what a crate lacks when they are not all given.
    const named = `${parent}/named`;
    const r = await runCli([
      "export",
      "ro-crate",
      recordFile,
      "--out",
      named,
      "--publisher",
      "https://ror.org/03yrm5c26",
      "--publisher-name",
      "Example Research Institute",
      "--contact",
      "data@example.org",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const v = await rocValidate(named, ["--requirement-severity", "RECOMMENDED"]);
    assert.deepEqual(issuesOf(v.report).map((i) => i.message), []);
    const nameOnly = await runCli([
      "export",
      "ro-crate",
      recordFile,
      "--out",
      `${parent}/name-only`,
      "--publisher",
      "Example Lab",
    ]);
    assert.match(nameOnly.stderr, /lacks: a URL for the publisher \(--publisher URL\), a contact/);
    const badContact = await runCli([
      "export",
      "ro-crate",
      recordFile,
      "--out",
      `${parent}/bad`,
      "--contact",
      "nobody",
    ]);
    assert.equal(badContact.code, 64);
    assert.match(badContact.stderr, /--contact must be an e-mail address/);
    const viaEnv = await runCli(["export", "ro-crate", recordFile, "--out", `${parent}/env`], {
      env: { EMPIRIC_PUBLISHER: "https://orcid.org/0000-0002-1825-0097" },
    });
    assert.match(viaEnv.stderr, /lacks: a contact \(--contact\)$/m);
    const envCrate = JSON.parse(await Deno.readTextFile(`${parent}/env/ro-crate-metadata.json`));
    const person = envCrate["@graph"].find((e: { "@id": string }) =>
      e["@id"] === "https://orcid.org/0000-0002-1825-0097"
    );
    assert.equal(person["@type"], "Person");
    const none = await runCli(["export", "ro-crate", recordFile, "--out", `${parent}/none`]);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /lacks: a publisher \(--publisher\), a contact/);
    // The same with the bundle files packed (library call).
    const bundled = await writeRoCrate(record, `${parent}/bundled`, {
      extraRootMetadata: { ...FULL_ROOT_METADATA, license: "CC-BY-4.0" },
      bundleFiles: files,
    });
    const b = await rocValidate(bundled, ["--requirement-severity", "RECOMMENDED"]);
    assert.deepEqual(issuesOf(b.report).map((i) => i.message), []);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test({
  name:
    "roc-validator with the process-run-crate-0.5 profile: no REQUIRED issue; RECOMMENDED only what the SPEC's fixed ids impose",
  ignore: !haveValidator,
}, async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-rocv-" });
  try {
    const { record, files } = await bundleRecord();
    const dir = await writeRoCrate(record, `${parent}/crate`, {
      extraRootMetadata: FULL_ROOT_METADATA,
      bundleFiles: files,
    });
    // Its own checks (-nh: the profile is based on RO-Crate 1.1; the 1.2 checks run above).
    const args = ["--profile-identifier", "process-run-crate-0.5", "-nh"];
    const required = await rocValidate(dir, args);
    assert.deepEqual(issuesOf(required.report).map((i) => i.message), []);
    assert.equal(required.report.passed, true);
    const recommended = await rocValidate(dir, [...args, "--requirement-severity", "RECOMMENDED"]);
    const messages = issuesOf(recommended.report).map((i) =>
      `${i.check.profile}: ${i.message} (${i.violatingEntity})`
    ).sort();
    // #empiric, #substrate-... and #reproduction are local ids, and #empiric carries both version
    // (RO-Crate 1.2 REQUIRED) and softwareVersion (the SPEC's mapping).
    assert.deepEqual(messages, [
      "process-run-crate-0.5: Process Run Crate SoftwareApplication should not have both version and softwareVersion (./#empiric)",
      "process-run-crate-0.5: The SoftwareApplication id SHOULD be an absolute URI (http://schema.org/SoftwareApplication)",
      "process-run-crate-0.5: The SoftwareApplication id SHOULD be an absolute URI (http://schema.org/SoftwareApplication)",
      "process-run-crate-0.5: The SoftwareApplication id SHOULD be an absolute URI (http://schema.org/SoftwareSourceCode)",
    ]);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

const RO_CRATE_PY = `
import json, sys
from rocrate.rocrate import ROCrate
crate = ROCrate(sys.argv[1])
root = crate.root_dataset
run = next(e for e in crate.get_entities() if e.type == "CreateAction")
as_list = lambda v: v if isinstance(v, list) else [v]
print(json.dumps({
    "version": crate.version,
    "identifier": root["identifier"]["value"],
    "license": root["license"]["name"],
    "conformsTo": [p.id for p in as_list(root["conformsTo"])],
    "instrument": run["instrument"].id,
    "instrument_type": run["instrument"].type,
    "object": [o.id for o in as_list(run["object"])],
    "result": [r.id for r in as_list(run["result"])],
    "agent": run["agent"].id if run.get("agent") else None,
    "data_entities": sorted(e.id for e in crate.data_entities),
    "observations": open(crate.dereference("proof.observations.jsonl").source, "rb").read().decode(),
}))
`;

Deno.test({
  name:
    "ro-crate-py reads the crate: root identifier and licence, the CreateAction, the bundle files",
  ignore: !haveRoCratePy,
}, async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-rocpy-" });
  try {
    const { record, files } = await bundleRecord();
    const dir = await writeRoCrate(record, `${parent}/crate`, {
      extraRootMetadata: FULL_ROOT_METADATA,
      bundleFiles: files,
    });
    const out = await new Deno.Command("python3", {
      args: ["-c", RO_CRATE_PY, dir],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(r.version, "1.2");
    assert.equal(r.identifier, record.identity.proof_id);
    assert.equal(r.license, "NOASSERTION");
    assert.deepEqual(r.conformsTo, [PROCESS_RUN_CRATE_PROFILE]);
    assert.equal(r.instrument, "#empiric");
    assert.equal(r.instrument_type, "SoftwareApplication");
    assert.ok(r.object.includes("scenario/proof.scenario.json"));
    assert.deepEqual(r.result, ["proof.json", "proof.observations.jsonl"]);
    assert.equal(r.agent, "https://orcid.org/0000-0002-1825-0097");
    assert.deepEqual(r.data_entities, [
      "proof.json",
      "proof.observations.jsonl",
      "scenario/proof.scenario.json",
    ]);
    assert.equal(r.observations, new TextDecoder().decode(files[0].bytes));
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("CLI: export ro-crate packs a run's bundle (observations and scenario beside the record)", async () => {
  const parent = await Deno.makeTempDir({ prefix: "empiric-crate-bundle-" });
  try {
    const env = { EMPIRIC_SIGN_KEY: "k".repeat(40) };
    const run = await runCli(
      ["run", "arithmetic-accuracy", "--out", `${parent}/run.json`, "--no-store", "-q"],
      { env },
    );
    assert.equal(run.code, 0, run.stderr);
    const cli = await runCli(["export", "ro-crate", `${parent}/run.json`, "--out", `${parent}/c`]);
    assert.equal(cli.code, 0, cli.stderr);
    for (
      const [inCrate, beside] of [
        ["proof.observations.jsonl", "run.observations.jsonl"],
        ["proof.scenario.json", "run.scenario.json"],
      ]
    ) {
      assert.deepEqual(
        await Deno.readFile(`${parent}/c/${inCrate}`),
        await Deno.readFile(`${parent}/${beside}`),
        inCrate,
      );
    }
    const meta = JSON.parse(await Deno.readTextFile(`${parent}/c/${RO_CRATE_METADATA_FILENAME}`));
    const obs = meta["@graph"].find((e: Entity) => e["@id"] === "proof.observations.jsonl");
    assert.ok(obs, "the observations file is an entity of the crate");
    assert.equal(obs.encodingFormat, "application/jsonl");
    const record = JSON.parse(await Deno.readTextFile(`${parent}/run.json`));
    const ds = record.data.datasets.find((d: { kind: string }) => d.kind === "observations");
    assert.equal(
      obs.sha256,
      ds.content_hash,
      "the packed file is the record's observations dataset",
    );
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
