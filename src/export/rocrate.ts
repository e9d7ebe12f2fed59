/**
 * RO-Crate 1.2 packaging of a proof record (SPEC "RO-Crate 1.2 mapping"):
 * `toRoCrateMetadata` builds the `ro-crate-metadata.json` document, `writeRoCrate` writes a
 * crate directory holding the proof file and that document, atomically.
 *
 * @module
 */
import { IoError, UsageError } from "../errors/errors.ts";
import { prettyJson } from "../json/pretty.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import { sha256Hex } from "../crypto/hash.ts";
import type { ProofRecord } from "../record/types.ts";
import {
  loadProof,
  type ProofInput,
  reproductionParts,
  requireText,
  withPyInts,
} from "./common.ts";

/** The RO-Crate 1.2 JSON-LD context. */
export const RO_CRATE_CONTEXT_V1_2 = "https://w3id.org/ro/crate/1.2/context";
/** What the metadata descriptor `conformsTo`: the RO-Crate 1.2 specification. */
export const RO_CRATE_CONFORMS_TO_V1_2 = "https://w3id.org/ro/crate/1.2";
/** File name of the proof inside a crate, unless `proofFilename` says otherwise. */
export const DEFAULT_PROOF_FILENAME = "proof.json";
/** File name of the metadata document of an attached crate. */
export const RO_CRATE_METADATA_FILENAME = "ro-crate-metadata.json";
/**
 * The root `license` when none is given: the SPDX value `NOASSERTION` (the producer states no
 * licence). Give a real one with `extraRootMetadata: { license: ... }` (`--license`).
 */
export const DEFAULT_LICENSE = "NOASSERTION";
/** `url` of the `#empiric` SoftwareApplication entity. */
export const EMPIRIC_SOFTWARE_URL = "https://empiric.dev/";

/** The Process Run Crate profile the crates conform to (a `CreateAction` for the run). */
export const PROCESS_RUN_CRATE_PROFILE = "https://w3id.org/ro/wfrun/process/0.5";
/** `@id` of the PropertyValue the root `identifier` points to (the proof_id). */
export const PROOF_ID_ENTITY = "#proof-id";
/** `@id` of the licence entity when no licence is stated: SPDX 3's NoAssertionLicense. */
export const NO_ASSERTION_LICENSE =
  "https://spdx.org/rdf/3.0.1/terms/ExpandedLicensing/NoAssertionLicense";
/** Where the reproduction command goes when it is written out as a script (`localPath`). */
export const REPRODUCTION_LOCAL_PATH = "reproduce.sh";
/** `@id` of the ComputerLanguage of the reproduction command (a POSIX shell command line). */
export const SHELL_LANGUAGE_ENTITY = "#posix-shell";

/** How a bundled file relates to the run the crate describes (Process Run Crate). */
export type BundleRelation = "input" | "output";

/**
 * A file of the proof bundle packed into the crate beside the proof (for instance the run's
 * `<record>.observations.jsonl` and `<record>.scenario.json`).
 */
export interface BundleFile {
  /** Path inside the crate (relative, `/`-separated). */
  name: string;
  /** The file's bytes, written as they are. */
  bytes: Uint8Array;
  /** Media type (`encodingFormat`), e.g. `application/jsonl`. */
  encodingFormat: string;
  /** What the file is, for a person. */
  description: string;
  /**
   * `input`: something the run read (its scenario, a corpus): the `object` of the run's
   * CreateAction. `output`: something the run produced (its observations): a `result`.
   */
  relation: BundleRelation;
}

/** Options of {@link toRoCrateMetadata}. */
export interface RoCrateOptions {
  /** Name of the proof file in the crate (default {@link DEFAULT_PROOF_FILENAME}). */
  proofFilename?: string;
  /**
   * Properties merged into the Root Dataset (e.g. `license`, `creator`, `publisher`,
   * `keywords`); they replace the defaults of the same name; `@id` cannot be changed. Nested
   * entities (`{"@type": "Organization", "name": ...}`) are flattened into the graph (with a
   * local `#` identifier when they have no `@id`); a `license` given as text becomes a licence
   * entity with a name.
   */
  extraRootMetadata?: Record<string, unknown>;
  /** More entities appended to `@graph` (e.g. the licence or the creator they reference). */
  extraEntities?: Record<string, unknown>[];
  /**
   * More files of the proof bundle, packed into the crate ({@link writeRoCrate} writes them),
   * listed in the root's `hasPart` and linked to the run's CreateAction. A file whose SHA-256
   * equals a section 4 dataset's `content_hash` is that dataset: its entity is the file.
   */
  bundleFiles?: readonly BundleFile[];
}

// Characters of an IRI fragment we keep as they are; anything else is percent-encoded (UTF-8).
function fragment(s: string): string {
  let out = "";
  for (const ch of s) {
    if (/^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]$/.test(ch)) out += ch;
    else {
      for (const b of new TextEncoder().encode(ch)) {
        out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
      }
    }
  }
  return out;
}

function pathId(name: string): string {
  // A relative path IRI: percent-encode what is not allowed (space, %, #, ?...), keep '/'.
  return name.split("/").map((seg) =>
    [...seg].map((ch) =>
      /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/.test(ch)
        ? ch
        : [...new TextEncoder().encode(ch)].map((b) =>
          "%" + b.toString(16).toUpperCase().padStart(2, "0")
        ).join("")
    ).join("")
  ).join("/");
}

/**
 * The content-addressed `@id` of a dataset: `#dataset-sha256-<content_hash>`. The datasets are
 * not packed into the crate, so their entities use local (`#`) identifiers, which RO-Crate 1.2
 * provides for data described but deliberately absent; `url` says where the data came from.
 */
export function datasetId(contentHashHex: string): string {
  return `#dataset-sha256-${contentHashHex}`;
}

/** `@id` of the substrate entity: `#substrate-<name>@<commit>` (percent-encoded as needed). */
export function substrateId(record: ProofRecord): string {
  return `#substrate-${fragment(record.data.substrate_name)}@${
    fragment(record.data.substrate_git_commit)
  }`;
}

function checkFilename(name: string, what = "proofFilename"): string {
  if (
    typeof name !== "string" ||
    name === "" || name.startsWith("/") || name.includes("\\") ||
    name.split("/").some((s) => s === "" || s === "." || s === "..") ||
    name === RO_CRATE_METADATA_FILENAME || name.startsWith("ro-crate-preview")
  ) {
    throw new UsageError(
      `${what} must be a relative path inside the crate, not ${
        JSON.stringify(name)
      } (and not the metadata or preview file)`,
    );
  }
  return name;
}

function isUrl(s: string): boolean {
  return /^https?:\/\/[^\s]+$/.test(s);
}

/** A run's start and end as the record's provenance graph gives them (the scenario-run activity). */
function runTimes(record: ProofRecord): { start?: string; end?: string } {
  const activities = (record.provenance as JsonObject | undefined)?.activity;
  if (!activities || typeof activities !== "object" || Array.isArray(activities)) return {};
  const all = Object.values(activities as JsonObject).filter((a): a is JsonObject =>
    a !== null && typeof a === "object" && !Array.isArray(a)
  );
  const isRun = (a: JsonObject) => JSON.stringify(a["prov:type"] ?? "").includes("ScenarioRun");
  const run = all.find(isRun) ?? all.find((a) => typeof a["prov:endTime"] === "string");
  if (!run) return {};
  const text = (v: JsonValue | undefined) => typeof v === "string" ? v : undefined;
  return { start: text(run["prov:startTime"]), end: text(run["prov:endTime"]) };
}

/**
 * An RFC 3339 UTC time as the Process Run Crate profile's checks read ISO 8601: a `+00:00` offset
 * instead of `Z`, and at most milliseconds. Anything else is returned unchanged.
 */
function offsetTime(t: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(t);
  if (!m) return t;
  const frac = m[2] ? (m[2] + "000").slice(0, 4) : "";
  return `${m[1]}${frac}+00:00`;
}

const SPDX_ID = /^[A-Za-z0-9][A-Za-z0-9.+-]*$/;

/** The licence entity of a `license` value given as text (an SPDX id, a URL, or free text). */
function licenseEntity(value: string): JsonObject {
  if (value === DEFAULT_LICENSE) {
    return {
      "@id": NO_ASSERTION_LICENSE,
      "@type": "CreativeWork",
      name: "NOASSERTION",
      identifier: "NOASSERTION",
      description:
        "No licence was stated when this crate was exported (the SPDX value NOASSERTION): ask the publisher before reusing it.",
    };
  }
  if (isUrl(value)) {
    const spdx = /^https?:\/\/spdx\.org\/licenses\/([A-Za-z0-9.+-]+?)(\.html|\.json)?$/.exec(value);
    return {
      "@id": value,
      "@type": "CreativeWork",
      name: spdx ? spdx[1] : value,
      ...(spdx ? { identifier: spdx[1] } : {}),
      description: spdx
        ? `The licence with SPDX identifier ${spdx[1]}.`
        : `The licence published at ${value}.`,
    };
  }
  if (SPDX_ID.test(value)) {
    return {
      "@id": `https://spdx.org/licenses/${value}`,
      "@type": "CreativeWork",
      name: value,
      identifier: value,
      description:
        `The licence with SPDX identifier ${value} (https://spdx.org/licenses/${value}.html).`,
    };
  }
  return { "@id": "#license", "@type": "CreativeWork", name: value, description: value };
}

/** A one-element list as its element (RO-Crate 1.2 prefers single values to singleton arrays). */
function one(list: JsonObject[]): JsonValue {
  return list.length === 1 ? list[0] : list;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/**
 * Flatten the root metadata given by the caller: every nested object that is more than a
 * reference becomes an entity of its own (keeping its `@id`, or `#<property>[-n]`), recursively,
 * and is replaced by `{"@id": ...}`. JSON-LD value objects (`@value`) stay as they are.
 */
function flattenRootMetadata(
  extra: Record<string, unknown>,
  taken: Set<string>,
): { root: Record<string, unknown>; entities: JsonObject[] } {
  const entities = new Map<string, JsonObject>();
  const counters = new Map<string, number>();
  const localId = (prop: string) => {
    const base = `#${fragment(prop)}`;
    let n = counters.get(base) ?? 0;
    let id = n === 0 ? base : `${base}-${n}`;
    while (taken.has(id) || entities.has(id)) id = `${base}-${++n}`;
    counters.set(base, n + 1);
    return id;
  };
  const visit = (v: unknown, prop: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => visit(x, prop));
    if (!isPlainObject(v)) return v;
    const keys = Object.keys(v);
    if ("@value" in v || (keys.length === 1 && keys[0] === "@id")) return v;
    const id = typeof v["@id"] === "string" && v["@id"] !== "" ? v["@id"] as string : localId(prop);
    if (taken.has(id)) {
      throw new UsageError(`the root metadata entity ${id} duplicates an @id of the crate`);
    }
    const entity: JsonObject = { "@id": id };
    for (const [k, x] of Object.entries(v)) if (k !== "@id") entity[k] = visit(x, k) as JsonValue;
    const seen = entities.get(id);
    if (seen && JSON.stringify(seen) !== JSON.stringify(entity)) {
      throw new UsageError(`the root metadata describes the entity ${id} twice, differently`);
    }
    entities.set(id, entity);
    return { "@id": id };
  };
  const root: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) root[k] = visit(v, k);
  return { root, entities: [...entities.values()] };
}

/** The metadata document of a proof's crate, with the proof file's bytes it describes. */
async function buildMetadata(
  record: ProofRecord,
  proofBytes: Uint8Array<ArrayBuffer>,
  options: RoCrateOptions,
): Promise<JsonObject> {
  const proofFilename = checkFilename(options.proofFilename ?? DEFAULT_PROOF_FILENAME);
  const extraIn = options.extraRootMetadata ?? {};
  if (typeof extraIn !== "object" || extraIn === null || Array.isArray(extraIn)) {
    throw new UsageError("extraRootMetadata must be an object");
  }
  if ("@id" in extraIn) throw new UsageError("extraRootMetadata cannot change the root @id");
  const id = record.identity.proof_id;
  const { verdict, claim, data } = record;
  const parts = reproductionParts(record.reproduction.command);
  const subId = substrateId(record);
  const fileId = pathId(proofFilename);
  const runId = `#run-${id}`;

  // Bundle files: checked, hashed, and matched to the datasets they are.
  const bundle: { file: BundleFile; id: string; sha256: string }[] = [];
  const names = new Set([proofFilename]);
  for (const f of options.bundleFiles ?? []) {
    const name = checkFilename(f?.name, "a bundle file name");
    if (names.has(name)) {
      throw new UsageError(`the crate would hold two files named ${JSON.stringify(name)}`);
    }
    names.add(name);
    if (!(f.bytes instanceof Uint8Array)) {
      throw new UsageError(`the bundle file ${name} has no bytes`);
    }
    if (f.relation !== "input" && f.relation !== "output") {
      throw new UsageError(`the bundle file ${name} must relate to the run as input or output`);
    }
    requireText(f.encodingFormat, `the encodingFormat of the bundle file ${name}`);
    requireText(f.description, `the description of the bundle file ${name}`);
    bundle.push({ file: f, id: pathId(name), sha256: await sha256Hex(new Uint8Array(f.bytes)) });
  }
  const bundleByHash = new Map(bundle.map((b) => [b.sha256, b]));

  const datasets: JsonObject[] = [];
  const seen = new Set<string>();
  for (const d of data.datasets) {
    const packed = bundleByHash.get(d.content_hash);
    const dsId = packed ? packed.id : datasetId(d.content_hash);
    if (seen.has(dsId)) continue;
    seen.add(dsId);
    datasets.push({
      "@id": dsId,
      "@type": packed ? "File" : "Dataset",
      name: d.name,
      description: packed
        ? `${packed.file.description} (${d.kind} dataset of ${d.n_records} records, ${d.source})`
        : `${d.kind} dataset of ${d.n_records} records, ${d.source}`,
      url: d.source,
      size: d.n_records,
      sha256: d.content_hash,
      identifier: d.content_hash,
      additionalType: d.kind,
      ...(packed
        ? {
          encodingFormat: packed.file.encodingFormat,
          contentSize: String(packed.file.bytes.length),
        }
        : {}),
    });
  }
  const datasetFiles = new Set(datasets.map((d) => d["@id"] as string));
  const bundleEntities: JsonObject[] = bundle.filter((b) => !datasetFiles.has(b.id)).map((b) => ({
    "@id": b.id,
    "@type": "File",
    name: b.file.name.slice(b.file.name.lastIndexOf("/") + 1),
    description: b.file.description,
    encodingFormat: b.file.encodingFormat,
    contentSize: String(b.file.bytes.length),
    sha256: b.sha256,
  }));

  const ref = (x: string) => ({ "@id": x });
  const fixedIds = new Set<string>([
    RO_CRATE_METADATA_FILENAME,
    "./",
    fileId,
    ...datasets.map((d) => d["@id"] as string),
    ...bundleEntities.map((b) => b["@id"] as string),
    subId,
    "#verdict",
    "#observed-value",
    "#outcome",
    "#reproduction",
    "http://schema.org/CompletedActionStatus",
    "#empiric",
    PROOF_ID_ENTITY,
    SHELL_LANGUAGE_ENTITY,
    runId,
    PROCESS_RUN_CRATE_PROFILE,
  ]);

  // The caller's root metadata, flattened; a licence given as text becomes an entity.
  const extra: Record<string, unknown> = { ...extraIn };
  const licenseEntities: JsonObject[] = [];
  const userEntityIds = new Set(
    (options.extraEntities ?? []).map((e) => (isPlainObject(e) ? e["@id"] : undefined)),
  );
  const license = extra.license ?? DEFAULT_LICENSE;
  if (typeof license === "string") {
    const e = licenseEntity(license);
    licenseEntities.push(e);
    extra.license = ref(e["@id"] as string);
  } else if (
    isPlainObject(license) && Object.keys(license).length === 1 &&
    typeof license["@id"] === "string" && !userEntityIds.has(license["@id"])
  ) {
    const e = licenseEntity(license["@id"]);
    e["@id"] = license["@id"];
    licenseEntities.push(e);
  }
  for (const e of licenseEntities) fixedIds.add(e["@id"] as string);
  const flat = flattenRootMetadata(extra, fixedIds);

  const inputs = bundle.filter((b) => b.file.relation === "input").map((b) => ref(b.id));
  const outputs = bundle.filter((b) => b.file.relation === "output").map((b) => ref(b.id));
  const times = runTimes(record);
  const endTime = offsetTime(times.end ?? record.identity.created_at);

  const root: JsonObject = {
    "@id": "./",
    "@type": "Dataset",
    name: `Empirical Proof Record ${id.slice(0, 12)}: ${verdict.outcome}`,
    description: `${claim.statement} Verdict: ${verdict.outcome}. ${verdict.reasoning}`,
    datePublished: record.identity.created_at,
    identifier: ref(PROOF_ID_ENTITY),
    conformsTo: ref(PROCESS_RUN_CRATE_PROFILE),
    hasPart: one([
      ref(fileId),
      ...datasets.map((d) => ref(d["@id"] as string)),
      ...bundleEntities.map((b) => ref(b["@id"] as string)),
    ]),
    mentions: [ref(runId), ref("#verdict"), ref("#reproduction")],
    about: ref(subId),
  };
  for (const [k, v] of Object.entries(flat.root)) root[k] = v as JsonValue;
  // Who ran it: the crate's first creator, else its author or publisher, when the caller names one.
  const firstRef = (v: JsonValue | undefined): JsonValue | undefined => {
    const x = Array.isArray(v) ? v[0] : v;
    return isPlainObject(x) && typeof x["@id"] === "string" ? ref(x["@id"]) : undefined;
  };
  const agent = firstRef(root.creator) ?? firstRef(root.author) ?? firstRef(root.publisher);

  const graph: JsonObject[] = [
    {
      "@id": RO_CRATE_METADATA_FILENAME,
      "@type": "CreativeWork",
      conformsTo: ref(RO_CRATE_CONFORMS_TO_V1_2),
      about: ref("./"),
    },
    root,
    {
      "@id": PROOF_ID_ENTITY,
      "@type": "PropertyValue",
      name: "proof_id",
      propertyID: "empiric:proof_id",
      value: id,
      description:
        "identity.proof_id of the record: the SHA-256 of its canonical body, the same on every machine.",
    },
    {
      "@id": PROCESS_RUN_CRATE_PROFILE,
      "@type": ["CreativeWork", "Profile"],
      name: "Process Run Crate",
      version: "0.5",
    },
    {
      "@id": fileId,
      "@type": "File",
      name: "Signed Empirical Proof Record",
      description:
        `The signed proof record ${id}: claim, pre-registration, data, evidence, verdict, reproduction, provenance and HMAC-SHA256 signature.`,
      encodingFormat: "application/json",
      contentSize: String(proofBytes.length),
      sha256: await sha256Hex(proofBytes),
      identifier: id,
      dateCreated: record.identity.created_at,
    },
    ...datasets,
    ...bundleEntities,
    {
      "@id": subId,
      "@type": "SoftwareApplication",
      name: data.substrate_name,
      description: parts.substrate
        ? `The system under test (substrate ${parts.substrate}).`
        : "The system under test.",
      url: parts.substrate && isUrl(parts.substrate)
        ? parts.substrate
        : (parts.substrate ?? data.substrate_name),
      version: data.substrate_git_commit,
    },
    {
      "@id": runId,
      "@type": "CreateAction",
      name: `Run of ${parts.scenario ?? "the scenario"} against ${data.substrate_name}`,
      description: record.reproduction.command,
      ...(times.start ? { startTime: offsetTime(times.start) } : {}),
      endTime,
      actionStatus: "http://schema.org/CompletedActionStatus",
      ...(agent ? { agent } : {}),
      instrument: ref("#empiric"),
      object: one([
        ...datasets.filter((d) => !outputs.some((o) => o["@id"] === d["@id"])).map((d) =>
          ref(d["@id"] as string)
        ),
        ...inputs.filter((i) => !datasetFiles.has(i["@id"])),
      ]),
      result: one([ref(fileId), ...outputs]),
    },
    {
      "@id": "#verdict",
      "@type": "AssessAction",
      name: `Verdict: ${verdict.outcome}`,
      description: verdict.reasoning,
      actionStatus: ref("http://schema.org/CompletedActionStatus"),
      startTime: record.identity.created_at,
      agent: ref("#empiric"),
      instrument: ref("#reproduction"),
      object: one([ref(subId), ...datasets.map((d) => ref(d["@id"] as string))]),
      result: [ref("#observed-value"), ref("#outcome")],
    },
    {
      "@id": "#observed-value",
      "@type": "PropertyValue",
      name: verdict.threshold.metric,
      propertyID: verdict.threshold.metric,
      value: verdict.observed_value,
      unitText: verdict.threshold.units,
      description:
        `Observed ${verdict.threshold.metric}; the claim's threshold is ${verdict.threshold.comparator} ${
          String(verdict.threshold.value)
        } ${verdict.threshold.units}`.trimEnd(),
    },
    {
      "@id": "#outcome",
      "@type": "PropertyValue",
      name: "outcome",
      propertyID: "empiric:outcome",
      value: verdict.outcome,
    },
    {
      "@id": "#reproduction",
      "@type": ["File", "SoftwareSourceCode"],
      name: "Reproduction command",
      description:
        `The command that reproduces this run (in text); written out as a script it is ${REPRODUCTION_LOCAL_PATH}, which the crate does not hold.`,
      text: record.reproduction.command,
      encodingFormat: "text/x-shellscript",
      contentSize: String(new TextEncoder().encode(record.reproduction.command).length),
      localPath: REPRODUCTION_LOCAL_PATH,
      programmingLanguage: ref(SHELL_LANGUAGE_ENTITY),
      runtimePlatform: `empiric ${record.identity.empiric_version}`,
      version: record.identity.empiric_version,
      url: EMPIRIC_SOFTWARE_URL,
    },
    {
      "@id": SHELL_LANGUAGE_ENTITY,
      "@type": "ComputerLanguage",
      name: "POSIX shell command language",
      alternateName: "sh",
      version: "POSIX.1-2024",
      url: "https://pubs.opengroup.org/onlinepubs/9799919799/utilities/V3_chap02.html",
    },
    {
      "@id": "http://schema.org/CompletedActionStatus",
      "@type": "ActionStatusType",
      name: "Completed",
    },
    {
      "@id": "#empiric",
      "@type": "SoftwareApplication",
      name: "empiric",
      description:
        "empiric tests falsifiable claims about systems and keeps each result as a signed Empirical Proof Record.",
      url: EMPIRIC_SOFTWARE_URL,
      // `version` is REQUIRED by RO-Crate 1.2 for a SoftwareApplication; `softwareVersion` is the
      // SPEC's mapping (Process Run Crate would rather have one of the two).
      version: record.identity.empiric_version,
      softwareVersion: record.identity.empiric_version,
      identifier: record.identity.empiric_git_commit,
    },
    ...licenseEntities,
    ...flat.entities,
  ];
  for (const e of options.extraEntities ?? []) {
    if (typeof e !== "object" || e === null || typeof e["@id"] !== "string") {
      throw new UsageError("every extra entity must be an object with an @id");
    }
    if (graph.some((g) => g["@id"] === e["@id"])) {
      throw new UsageError(`extra entity ${e["@id"]} duplicates an @id of the crate`);
    }
    graph.push(e as JsonObject);
  }
  return withPyInts({ "@context": RO_CRATE_CONTEXT_V1_2, "@graph": graph });
}

/**
 * The RO-Crate 1.2 metadata document of a signed record (SPEC
 * `to_ro_crate_metadata(proof, proof_filename=, extra_root_metadata=)`).
 *
 * | entity | `@id` | content |
 * | --- | --- | --- |
 * | metadata descriptor | `ro-crate-metadata.json` | CreativeWork, `conformsTo` RO-Crate 1.2, `about` the root |
 * | Root Dataset | `./` | name, description, datePublished (`created_at`), identifier → `#proof-id`, `license` → a named licence entity, `conformsTo` the Process Run Crate profile, `hasPart` the proof file, datasets and bundle files, `mentions` the run, #verdict and #reproduction, `about` the substrate, plus `extraRootMetadata` (flattened) |
 * | PropertyValue | `#proof-id` | the proof_id |
 * | File | the proof file name | the signed proof: encodingFormat, contentSize, sha256 of its bytes |
 * | Dataset, per section 4 dataset | `#dataset-sha256-<content_hash>` (content-addressed), or the bundled file with that hash | name, url (= source), size (= n_records), sha256 |
 * | SoftwareApplication | `#substrate-<name>@<commit>` | the substrate: name, url, version |
 * | CreateAction | `#run-<proof_id>` | the run (Process Run Crate): instrument #empiric, object the datasets and input files, result the proof file and output files, start and end times, agent the named creator |
 * | AssessAction | `#verdict` | the verdict: name, description (reasoning), agent #empiric, object the substrate and datasets, `result` the PropertyValues #observed-value and #outcome |
 * | File, SoftwareSourceCode | `#reproduction` | the reproduction command (`text`), in the POSIX shell language, `localPath` reproduce.sh |
 * | SoftwareApplication | `#empiric` | empiric: version, softwareVersion, identifier (its git commit) |
 *
 * Ints in the result are `PyInt` (the document can be written with `JSON.stringify`); write it
 * with `prettyJson` to keep floats such as `50.0` recognisable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RO_CRATE_CONTEXT_V1_2, toRoCrateMetadata } from "./rocrate.ts";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const doc = await toRoCrateMetadata(text, { extraRootMetadata: { license: "CC0-1.0" } });
 * assert.equal(doc["@context"], RO_CRATE_CONTEXT_V1_2);
 * ```
 */
export async function toRoCrateMetadata(
  proof: ProofInput,
  options: RoCrateOptions = {},
): Promise<JsonObject> {
  const { record, bytes } = await loadProof(proof);
  return await buildMetadata(record, bytes, options);
}

/** Options of {@link writeRoCrate}. */
export interface WriteRoCrateOptions extends RoCrateOptions {
  /** Replace an existing directory (default false: refuse with `already_exists`). */
  overwrite?: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

function ioError(e: unknown, what: string): IoError {
  return new IoError("io_error", `${what}: ${(e as Error)?.message ?? e}`, { cause: e });
}

function absolute(path: string): string {
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) return path;
  const cwd = Deno.cwd();
  return `${cwd}${cwd.endsWith("/") ? "" : "/"}${path}`.replace(/\/\.\//g, "/");
}

/**
 * Write a crate directory (SPEC `write_ro_crate(proof, directory, extra_root_metadata=,
 * proof_filename=, overwrite=False)`): the proof file (the record's bytes as given, or as
 * empiric writes records) and `ro-crate-metadata.json`. Returns the absolute path of the crate.
 *
 * The crate is written into a temporary directory beside the target and renamed into place,
 * so a reader never sees half a crate. An existing `directory` (even an empty one) is refused
 * with `already_exists` unless `overwrite` is true; then it is replaced as a whole.
 */
export async function writeRoCrate(
  proof: ProofInput,
  directory: string,
  options: WriteRoCrateOptions = {},
): Promise<string> {
  if (typeof directory !== "string" || directory === "") {
    throw new UsageError("the crate directory must be a non-empty path");
  }
  const { record, bytes } = await loadProof(proof);
  const metadata = await buildMetadata(record, bytes, options);
  const target = absolute(directory.replace(/[\\/]+$/, "") || directory);
  if (!options.overwrite && await exists(target)) {
    throw new IoError(
      "already_exists",
      `${directory} already exists: choose a new directory or allow overwriting`,
    );
  }
  const parent = target.slice(0, target.lastIndexOf("/")) || "/";
  const base = target.slice(target.lastIndexOf("/") + 1);
  let tmp: string;
  try {
    await Deno.mkdir(parent, { recursive: true });
    tmp = await Deno.makeTempDir({ dir: parent, prefix: `.${base}.tmp-` });
  } catch (e) {
    throw ioError(e, `cannot create a directory in ${parent}`);
  }
  try {
    const files: [string, Uint8Array][] = [
      [options.proofFilename ?? DEFAULT_PROOF_FILENAME, bytes],
      ...(options.bundleFiles ?? []).map((f): [string, Uint8Array] => [f.name, f.bytes]),
    ];
    for (const [name, content] of files) {
      const path = `${tmp}/${name}`;
      const sub = path.slice(0, path.lastIndexOf("/"));
      if (sub !== tmp) await Deno.mkdir(sub, { recursive: true });
      await Deno.writeFile(path, content);
    }
    await Deno.writeTextFile(
      `${tmp}/${RO_CRATE_METADATA_FILENAME}`,
      prettyJson(metadata as JsonValue),
    );
    await Deno.chmod(tmp, 0o755).catch(() => undefined);
    if (options.overwrite && await exists(target)) {
      const old = `${parent}/.${base}.old-${crypto.randomUUID()}`;
      await Deno.rename(target, old);
      try {
        await Deno.rename(tmp, target);
      } catch (e) {
        await Deno.rename(old, target).catch(() => undefined);
        throw e;
      }
      await Deno.remove(old, { recursive: true }).catch(() => undefined);
    } else {
      try {
        await Deno.rename(tmp, target);
      } catch (e) {
        if (await exists(target)) {
          throw new IoError(
            "already_exists",
            `${directory} already exists: choose a new directory or allow overwriting`,
            { cause: e },
          );
        }
        throw e;
      }
    }
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => undefined);
    if (e instanceof IoError || e instanceof UsageError) throw e;
    throw ioError(e, `cannot write the crate ${directory}`);
  }
  return target;
}
