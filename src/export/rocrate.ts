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
import { loadProof, type ProofInput, reproductionParts, withPyInts } from "./common.ts";

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

/** Options of {@link toRoCrateMetadata}. */
export interface RoCrateOptions {
  /** Name of the proof file in the crate (default {@link DEFAULT_PROOF_FILENAME}). */
  proofFilename?: string;
  /**
   * Properties merged into the Root Dataset entity (e.g. `license`, `creator`, `publisher`,
   * `keywords`); they replace the defaults of the same name. Values must be flattened JSON-LD
   * (strings, numbers, `{"@id": ...}` references). `@id` cannot be changed.
   */
  extraRootMetadata?: Record<string, unknown>;
  /** More entities appended to `@graph` (e.g. the licence or the creator they reference). */
  extraEntities?: Record<string, unknown>[];
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

function checkFilename(name: string): string {
  if (
    name === "" || name.startsWith("/") || name.includes("\\") ||
    name.split("/").some((s) => s === "" || s === "." || s === "..") ||
    name === RO_CRATE_METADATA_FILENAME || name.startsWith("ro-crate-preview")
  ) {
    throw new UsageError(
      `proofFilename must be a relative path inside the crate, not ${
        JSON.stringify(name)
      } (and not the metadata or preview file)`,
    );
  }
  return name;
}

function isUrl(s: string): boolean {
  return /^https?:\/\/[^\s]+$/.test(s);
}

/** The metadata document of a proof's crate, with the proof file's bytes it describes. */
async function buildMetadata(
  record: ProofRecord,
  proofBytes: Uint8Array<ArrayBuffer>,
  options: RoCrateOptions,
): Promise<JsonObject> {
  const proofFilename = checkFilename(options.proofFilename ?? DEFAULT_PROOF_FILENAME);
  const extra = options.extraRootMetadata ?? {};
  if (typeof extra !== "object" || extra === null || Array.isArray(extra)) {
    throw new UsageError("extraRootMetadata must be an object");
  }
  if ("@id" in extra) throw new UsageError("extraRootMetadata cannot change the root @id");
  const id = record.identity.proof_id;
  const { verdict, claim, data } = record;
  const parts = reproductionParts(record.reproduction.command);
  const subId = substrateId(record);
  const fileId = pathId(proofFilename);

  const datasets: JsonObject[] = [];
  const seen = new Set<string>();
  for (const d of data.datasets) {
    const dsId = datasetId(d.content_hash);
    if (seen.has(dsId)) continue;
    seen.add(dsId);
    datasets.push({
      "@id": dsId,
      "@type": "Dataset",
      name: d.name,
      description: `${d.kind} dataset of ${d.n_records} records, ${d.source}`,
      url: d.source,
      size: d.n_records,
      sha256: d.content_hash,
      identifier: d.content_hash,
      additionalType: d.kind,
    });
  }

  const root: JsonObject = {
    "@id": "./",
    "@type": "Dataset",
    name: `Empirical Proof Record ${id.slice(0, 12)}: ${verdict.outcome}`,
    description: `${claim.statement} Verdict: ${verdict.outcome}. ${verdict.reasoning}`,
    datePublished: record.identity.created_at,
    identifier: id,
    hasPart: [{ "@id": fileId }, ...datasets.map((d) => ({ "@id": d["@id"] as string }))],
    mentions: [{ "@id": "#verdict" }, { "@id": "#reproduction" }],
    about: { "@id": subId },
    license: DEFAULT_LICENSE,
  };
  for (const [k, v] of Object.entries(extra)) root[k] = v as JsonValue;

  const graph: JsonObject[] = [
    {
      "@id": RO_CRATE_METADATA_FILENAME,
      "@type": "CreativeWork",
      conformsTo: { "@id": RO_CRATE_CONFORMS_TO_V1_2 },
      about: { "@id": "./" },
    },
    root,
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
      softwareVersion: data.substrate_git_commit,
    },
    {
      "@id": "#verdict",
      "@type": "AssessAction",
      name: `Verdict: ${verdict.outcome}`,
      description: verdict.reasoning,
      actionStatus: { "@id": "http://schema.org/CompletedActionStatus" },
      startTime: record.identity.created_at,
      agent: { "@id": "#empiric" },
      instrument: { "@id": "#reproduction" },
      object: [{ "@id": subId }, ...datasets.map((d) => ({ "@id": d["@id"] as string }))],
      result: [{ "@id": "#observed-value" }, { "@id": "#outcome" }],
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
      description: "The command that reproduces this run.",
      text: record.reproduction.command,
      encodingFormat: "text/plain",
      contentSize: String(new TextEncoder().encode(record.reproduction.command).length),
      runtimePlatform: `empiric ${record.identity.empiric_version}`,
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
      version: record.identity.empiric_version,
      softwareVersion: record.identity.empiric_version,
      identifier: record.identity.empiric_git_commit,
    },
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
 * | Root Dataset | `./` | name, description, datePublished (`created_at`), identifier (proof_id), `hasPart` the proof file and datasets, `mentions` #verdict and #reproduction, `about` the substrate, plus `extraRootMetadata` |
 * | File | the proof file name | the signed proof: encodingFormat, contentSize, sha256 of its bytes |
 * | Dataset, per section 4 dataset | `#dataset-sha256-<content_hash>` (content-addressed) | name, url (= source), size (= n_records), sha256 |
 * | SoftwareApplication | `#substrate-<name>@<commit>` | the substrate: name, url, version |
 * | AssessAction | `#verdict` | the verdict: name, description (reasoning), agent #empiric, object the substrate and datasets, `result` the PropertyValues #observed-value and #outcome |
 * | SoftwareSourceCode | `#reproduction` | the reproduction command (`text`) |
 * | SoftwareApplication | `#empiric` | empiric: version, softwareVersion, identifier (its git commit) |
 *
 * Ints in the result are `PyInt` (the document can be written with `JSON.stringify`); write it
 * with `prettyJson` to keep floats such as `50.0` recognisable.
 *
 * @example
 * ```ts
 * import { RO_CRATE_CONTEXT_V1_2, toRoCrateMetadata } from "./rocrate.ts";
 * const text = await Deno.readTextFile(new URL("../../fixtures/records/valid.json", import.meta.url));
 * const doc = await toRoCrateMetadata(text, { extraRootMetadata: { license: "CC0-1.0" } });
 * console.assert(doc["@context"] === RO_CRATE_CONTEXT_V1_2);
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
    const proofFilename = options.proofFilename ?? DEFAULT_PROOF_FILENAME;
    const proofPath = `${tmp}/${proofFilename}`;
    const sub = proofPath.slice(0, proofPath.lastIndexOf("/"));
    if (sub !== tmp) await Deno.mkdir(sub, { recursive: true });
    await Deno.writeFile(proofPath, bytes);
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
