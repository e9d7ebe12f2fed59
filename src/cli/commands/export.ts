/**
 * `empiric export cloudevent|in-toto|dsse|ro-crate|openlineage`, `empiric import cloudevent`
 * and `empiric verify-dsse` (docs/exports.md).
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { EXIT } from "../../errors/codes.ts";
import { KeyError, RecordError, UsageError } from "../../errors/errors.ts";
import type { ErrorCode } from "../../errors/codes.ts";
import { resolveKey } from "../../crypto/keys.ts";
import { parseJson } from "../../json/parse.ts";
import { prettyJson } from "../../json/pretty.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/value.ts";
import { toPlainJson } from "../../json/plain.ts";
import { verifyRecord } from "../../record/verify.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { DEFAULT_EVENT_SOURCE } from "../../export/common.ts";
import { checkEventsUrlAsync, sendCloudEvent } from "../../export/sink.ts";
import {
  DSSE_INTOTO_PAYLOAD_TYPE,
  dsseSigners,
  statementBytes,
  toInTotoStatement,
  verifyDsseEnvelope,
  verifyDsseSignature,
  verifyStatementRecord,
} from "../../export/intoto.ts";
import { toTestResultStatement } from "../../export/test_result.ts";
import { verifyAttestation } from "../../attest/verify.ts";
import { isSigstoreBundle, publicKeySigner, signEnvelope } from "../../attest/dsse.ts";
import { collect, readPolicyFile, readPublicKeys, readSigningKeys } from "./keys.ts";
import { DEFAULT_PROOF_FILENAME, writeRoCrate } from "../../export/rocrate.ts";
import { bundlePaths } from "../../run/bundle_paths.ts";
import {
  DEFAULT_NAMESPACE,
  postOpenLineageEvent,
  toOpenLineageEvent,
} from "../../export/openlineage.ts";
import { cliKey, formatProblem, readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { keyFileOption, keyOption } from "../options.ts";

async function emit(host: CliHost, text: string, out: string | undefined): Promise<void> {
  if (out) {
    await writeFileAtomic(out, text);
    host.stderr(`empiric: wrote ${out}\n`);
  } else host.stdout(text);
}

/** A key read from a file, as `--key-file` reads it (one trailing newline dropped). */
async function keyFromFile(host: CliHost, path: string, what: string): Promise<Uint8Array> {
  const k = await resolveKey({ keyFile: path, readFile: (p) => host.readFile(p) });
  if (!k) throw new KeyError("key_invalid", `${what} is missing`);
  return k.bytes;
}

/** Check that an option's value is an http(s) URL (`usage_error` otherwise). */
export function httpUrl(url: string, option: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return url;
  } catch {
    // fall through
  }
  throw new UsageError(`${option} needs an http(s) URL, got ${JSON.stringify(url)}`);
}

const PREDICATES = ["proof-record", "test-result"] as const;
type Predicate = typeof PREDICATES[number];

function baseName(path: string): string | undefined {
  return path === "-" ? undefined : path.slice(path.lastIndexOf("/") + 1);
}

/** The Statement of a record file with the chosen predicate; the file's name is its subject's. */
async function statementOf(
  host: CliHost,
  path: string,
  predicate: Predicate,
  url: string | undefined,
): Promise<{ _type: string }> {
  const input = await readInput(host, path);
  const fileName = baseName(path);
  if (predicate === "test-result") return await toTestResultStatement(input, { fileName, url });
  if (url !== undefined) throw new UsageError("--url is for --predicate test-result");
  return await toInTotoStatement(input, { fileName });
}

/** Sets the exit code of a failed check, or (when the caller gave no setter) throws. */
type Fail = (code: ErrorCode | null, message: string | null) => void;

function failer(setExit: ((code: number) => void) | undefined): Fail {
  return (code, message) => {
    if (setExit) setExit(EXIT.failed);
    else throw new RecordError(code ?? "signature_mismatch", message ?? "verification failed");
  };
}

/** The `export` command group. */
function exportCommand(host: CliHost): AnyCommand {
  const cmd = new Command("export").summary(
    "Export a record as CloudEvent, in-toto, DSSE, RO-Crate or OpenLineage",
  ).description(
    "Export a signed proof record as a CloudEvent, an in-toto Statement, a DSSE envelope, " +
      "an RO-Crate 1.2 directory, or an OpenLineage RunEvent (docs/exports.md). " +
      "PROOF is a record file, or - for standard input.",
  );

  cmd.command("cloudevent")
    .description(
      "Wrap the record in a CloudEvents 1.0 event (JSON event format; the record travels as " +
        "data_base64 of its canonical bytes). With --post, send it to a sink: an http(s) URL, " +
        "or nats://host:port/subject for NATS JetStream.",
    )
    .argument("<proof>", "record file, or -")
    .option("--source <uri>", "the event's source (a URI-reference)", DEFAULT_EVENT_SOURCE)
    .option("--out <file>", "write the event to a file instead of standard output")
    .option(
      "--post <url>",
      "send the event to a CloudEvents sink (http(s) URL, or nats://host:port/subject) instead of printing it",
    )
    .addOption(
      new Option("--mode <mode>", "content mode for --post (HTTP or NATS)").choices(
        ["structured", "binary"] as const,
      ).default("structured" as const),
    )
    .action(async (path, opts) => {
      // The CloudEvents SDK is loaded only by the commands that use it (CLI start-up time).
      const { envelopeJson, wrap } = await import("../../export/cloudevents.ts");
      if (opts.post) await checkEventsUrlAsync(opts.post, "--post");
      const event = await wrap(await readInput(host, path), { source: opts.source });
      if (opts.post) {
        const d = await sendCloudEvent(opts.post, event, { mode: opts.mode });
        host.stdout(
          d.transport === "http"
            ? `posted ${event.id} to ${d.url} (${opts.mode} mode): HTTP ${d.status}\n`
            : `published ${event.id} to ${d.url} (${opts.mode} mode): stream ${d.stream} seq ${d.seq}${
              d.duplicate ? " (duplicate: the stream already had this event)" : ""
            }\n`,
        );
        if (opts.out) await emit(host, envelopeJson(event) + "\n", opts.out);
        return;
      }
      await emit(host, envelopeJson(event) + "\n", opts.out);
    });

  const predicateOption = () =>
    new Option(
      "--predicate <type>",
      "proof-record: empiric's predicate (body and HMAC); test-result: the in-toto vetted " +
        "test-result predicate (the claim as a test)",
    ).choices(PREDICATES).default("proof-record" as Predicate);

  cmd.command("in-toto")
    .description("Print the in-toto Statement v1 of the record (predicate: body and signature)")
    .argument("<proof>", "record file, or -")
    .addOption(predicateOption())
    .option("--url <url>", "test-result: a link to the test run")
    .option("--out <file>", "write to a file instead of standard output")
    .action(async (path, opts) => {
      const st = await statementOf(host, path, opts.predicate as Predicate, opts.url);
      await emit(host, prettyJson(st as unknown as JsonValue), opts.out);
    });

  cmd.command("dsse")
    .description(
      "Sign the record's in-toto Statement into a DSSE envelope: with Ed25519 or ECDSA P-256 " +
        "private keys (--signing-key, repeatable: one signature each, verifiable by anyone with " +
        "the public key), and/or with an HMAC DSSE key (--dsse-key-file) that may differ from the " +
        "record's key. Every signature carries its key id (docs/keys.md).",
    )
    .argument("<proof>", "record file, or -")
    .option(
      "--signing-key <path>",
      "PKCS#8 PEM private key (PREFIX.key from empiric keygen); repeatable",
      collect,
    )
    .option("--dsse-key-file <path>", "file holding an HMAC DSSE key (at least 32 bytes)")
    .option("--keyid <id>", "key id written into the HMAC signature")
    .addOption(predicateOption())
    .option("--url <url>", "test-result: a link to the test run")
    .option("--out <file>", "write to a file instead of standard output")
    .action(async (path, opts) => {
      if (!opts.signingKey && !opts.dsseKeyFile) {
        throw new UsageError("give --signing-key (public-key signature) or --dsse-key-file (HMAC)");
      }
      if (opts.keyid !== undefined && !opts.dsseKeyFile) {
        throw new UsageError("--keyid names the HMAC signature: give --dsse-key-file too");
      }
      const key = opts.dsseKeyFile
        ? await keyFromFile(host, opts.dsseKeyFile, "--dsse-key-file")
        : undefined;
      const signingKeys = await readSigningKeys(host, opts.signingKey);
      const signers = await dsseSigners({ key, keyid: opts.keyid, signingKeys });
      const st = await statementOf(host, path, opts.predicate as Predicate, opts.url);
      const env = await signEnvelope(DSSE_INTOTO_PAYLOAD_TYPE, statementBytes(st), signers);
      await emit(host, prettyJson(env as unknown as JsonValue), opts.out);
      for (const s of signers) {
        host.stderr(`empiric: signed with ${s.algorithm} key ${s.keyid}\n`);
      }
    });

  cmd.command("sigstore-bundle")
    .description(
      "Sign the record's in-toto Statement with an Ed25519 or ECDSA P-256 key and write a " +
        "Sigstore bundle v0.3 (public-key verification material, no transparency log entry): " +
        "`cosign verify-blob-attestation --key PREFIX.pub --bundle FILE --insecure-ignore-tlog " +
        "RECORD` verifies it (docs/keys.md).",
    )
    .argument("<proof>", "record file, or -")
    .requiredOption("--signing-key <path>", "PKCS#8 PEM private key (PREFIX.key)")
    .addOption(predicateOption())
    .option("--url <url>", "test-result: a link to the test run")
    .option("--out <file>", "write to a file instead of standard output")
    .action(async (path, opts) => {
      const { toSigstoreBundle } = await import("../../attest/sigstore.ts");
      const [key] = await readSigningKeys(host, [opts.signingKey]);
      const st = await statementOf(host, path, opts.predicate as Predicate, opts.url);
      const signer = publicKeySigner(key);
      const env = await signEnvelope(DSSE_INTOTO_PAYLOAD_TYPE, statementBytes(st), [signer]);
      await emit(host, prettyJson(toSigstoreBundle(env)), opts.out);
      host.stderr(`empiric: signed with ${key.algorithm} key ${key.keyid}\n`);
    });

  cmd.command("ro-crate")
    .description(
      "Write an RO-Crate 1.2 directory holding the proof file, its bundle (the observations and " +
        "scenario files beside it, when there) and ro-crate-metadata.json. Refuses an existing " +
        "directory unless --overwrite.",
    )
    .argument("<proof>", "record file, or -")
    .requiredOption("--out <dir>", "the crate directory to create")
    .option("--overwrite", "replace the directory if it exists")
    .option(
      "--proof-filename <name>",
      "name of the proof file in the crate",
      DEFAULT_PROOF_FILENAME,
    )
    .option("--license <license>", "root license: an SPDX id, a licence URL, or text")
    .option(
      "--publisher <who>",
      "who publishes the crate: a URL (ROR, ORCID, web site) or a name; also EMPIRIC_PUBLISHER",
    )
    .option("--publisher-name <name>", "the publisher's name, when --publisher is a URL")
    .option("--contact <email>", "the publisher's contact e-mail; also EMPIRIC_CONTACT")
    .option(
      "--root-metadata <file>",
      "JSON object merged into the Root Dataset (e.g. creator, publisher, keywords); nested " +
        "entities are flattened into the crate's graph",
    )
    .action(async (path, opts) => {
      const extra: Record<string, unknown> = {};
      if (opts.rootMetadata) {
        const v = parseJson(await readInput(host, opts.rootMetadata));
        if (!isJsonObject(v)) throw new UsageError("--root-metadata must hold a JSON object");
        Object.assign(extra, toPlainJson(v));
      }
      // An SPDX id, a licence URL or text: the library writes it as a named licence entity.
      if (opts.license) extra.license = opts.license;
      const publisher = opts.publisher ?? host.env("EMPIRIC_PUBLISHER");
      const contact = opts.contact ?? host.env("EMPIRIC_CONTACT");
      if (contact !== undefined && !/^[^\s@]+@[^\s@]+$/.test(contact)) {
        throw new UsageError(`--contact must be an e-mail address, got ${JSON.stringify(contact)}`);
      }
      if (publisher) extra.publisher = publisherEntity(publisher, opts.publisherName, contact);
      const missing = extra.publisher === undefined
        ? ["a publisher (--publisher)", "a contact (--contact)"]
        : publisher === undefined
        ? []
        : [
          ...(/^https?:\/\//i.test(publisher) ? [] : ["a URL for the publisher (--publisher URL)"]),
          ...(contact ? [] : ["a contact (--contact)"]),
        ];
      if (missing.length > 0) {
        host.stderr(
          `empiric: note: RO-Crate 1.2 recommends what this crate lacks: ${missing.join(", ")}\n`,
        );
      }
      // The bundle beside the record (R.observations.jsonl, R.scenario.json) goes in too.
      const bundleFiles = [];
      if (path !== "-") {
        const beside = bundlePaths(path);
        const stem = opts.proofFilename.replace(/\.json$/, "");
        const parts = [
          {
            file: beside.observations,
            name: `${stem}.observations.jsonl`,
            encodingFormat: "application/jsonl",
            description:
              "The run's observations: one canonical JSON object per measured item (the record's observations dataset)",
            relation: "output" as const,
          },
          {
            file: beside.scenario,
            name: `${stem}.scenario.json`,
            encodingFormat: "application/json",
            description:
              "The normalized scenario the run registered (its SHA-256 is the record's config_hash)",
            relation: "input" as const,
          },
        ];
        for (const { file, ...f } of parts) {
          if (await host.stat(file) === "file") {
            bundleFiles.push({ ...f, bytes: await readInput(host, file) });
          }
        }
      }
      const dir = await writeRoCrate(await readInput(host, path), opts.out, {
        overwrite: opts.overwrite === true,
        proofFilename: opts.proofFilename,
        extraRootMetadata: extra,
        bundleFiles,
      });
      host.stdout(dir + "\n");
    });

  cmd.command("openlineage")
    .description(
      "Print one OpenLineage RunEvent for the record (COMPLETE for VALIDATED and REFUTED, " +
        "FAIL for INCONCLUSIVE). With --post, send it to a lineage collector.",
    )
    .argument("<proof>", "record file, or -")
    .option("--job-name <name>", "job name (default: the first evidence pillar)")
    .option("--namespace <ns>", "job namespace", DEFAULT_NAMESPACE)
    .option("--out <file>", "write to a file instead of standard output")
    .option(
      "--post <url>",
      "POST the event to a collector (e.g. http://localhost:5000/api/v1/lineage)",
    )
    .action(async (path, opts) => {
      const ev = await toOpenLineageEvent(await readInput(host, path), {
        jobName: opts.jobName,
        namespace: opts.namespace,
      });
      if (opts.post) {
        const status = await postOpenLineageEvent(httpUrl(opts.post, "--post"), ev, {
          apiKey: host.env("OPENLINEAGE_API_KEY") || undefined,
        });
        host.stdout(`posted ${ev.eventType} ${ev.run.runId} to ${opts.post}: HTTP ${status}\n`);
        if (opts.out) await emit(host, prettyJson(ev), opts.out);
        return;
      }
      await emit(host, prettyJson(ev), opts.out);
    });
  return cmd;
}

/**
 * The Root Dataset's `publisher` from `--publisher`, `--publisher-name` and `--contact`: a URL
 * becomes an entity of that id and URL (an ORCID a Person, anything else an Organization), a
 * name a local Organization; a contact becomes its ContactPoint.
 */
function publisherEntity(who: string, name?: string, contact?: string): Record<string, unknown> {
  const entity: Record<string, unknown> = /^https?:\/\/\S+$/i.test(who)
    ? {
      "@id": who,
      "@type": /^https?:\/\/orcid\.org\//i.test(who) ? "Person" : "Organization",
      name: name ?? who.replace(/^https?:\/\//i, ""),
      url: who,
    }
    : { "@id": "#publisher", "@type": "Organization", name: name ?? who };
  if (contact) {
    entity.contactPoint = {
      "@type": "ContactPoint",
      name: `Contact: ${contact}`,
      contactType: "general",
      email: contact,
      identifier: contact,
    };
  }
  return entity;
}

/** The `import` command group. */
function importCommand(host: CliHost, setExit?: (code: number) => void): AnyCommand {
  const fail = failer(setExit);
  const cmd = new Command("import").description("Recover records from export formats");
  cmd.command("cloudevent")
    .description(
      "Read a CloudEvent (JSON event format) carrying a proof record, check the record, and " +
        "print it. Exit 0 when it is valid (and verifies under the key, when one is given), 2 " +
        "otherwise; a record that fails is not printed.",
    )
    .argument("<file>", "event file, or -")
    .addOption(keyOption("record key as text; also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption("read the record key from a file"))
    .option("--out <file>", "write the record to a file instead of standard output")
    .action(async (path, opts) => {
      const { unwrap } = await import("../../export/cloudevents.ts");
      const record = unwrap(await readInput(host, path));
      const key = await cliKey(host, opts);
      const r = await verifyRecord(record as unknown as JsonValue, { key: key?.bytes });
      if (!r.valid) {
        host.stderr(`empiric: the record in ${path} does not verify:\n`);
        for (const p of r.problems.slice(0, 20)) host.stderr(`  ${formatProblem(p)}\n`);
        fail(r.reason, r.problems[0]?.message ?? null);
        return;
      }
      await emit(host, prettyJson(record as unknown as JsonValue), opts.out);
      host.stderr(
        key
          ? `empiric: record ${r.proof_id} verified under the ${
            key.source === "env" ? "EMPIRIC_SIGN_KEY" : "given"
          } key${r.demo_key ? " (the public demo key!)" : ""}\n`
          : `empiric: record ${r.proof_id}: structure and proof_id valid; signature not checked (no key)\n`,
      );
    });
  return cmd;
}

/** The `verify-dsse` command. */
function verifyDsseCommand(host: CliHost, setExit?: (code: number) => void): AnyCommand {
  const fail = failer(setExit);
  return new Command("verify-dsse")
    .summary("Check a DSSE envelope and the Statement inside it")
    .description(
      "Check a DSSE envelope of an in-toto Statement: with --public-key / --policy, its Ed25519 " +
        "or ECDSA P-256 signatures and the trust policy (docs/keys.md); with --dsse-key-file, its " +
        "HMAC signature. Then the record inside: its proof_id and subject digest, and with " +
        "--key/--key-file its signature under the record key (which may differ from the DSSE " +
        "key). Exit 0 when every check passes, 2 otherwise.",
    )
    .argument("<file>", "envelope file, or -")
    .option(
      "--public-key <path>",
      "public key (PREFIX.pub) to verify Ed25519 / ECDSA P-256 signatures with; repeatable",
      collect,
    )
    .option(
      "--policy <file>",
      "trust policy: trusted keys or key ids, min_signatures, predicate_types, outcomes",
    )
    .option("--dsse-key-file <path>", "file holding an HMAC DSSE key")
    .addOption(keyOption("record key as text; also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption("read the record key from a file"))
    .option("--json", "print the result as one JSON object")
    .action(async (path, opts) => {
      if (opts.publicKey || opts.policy) {
        await verifyPublicKeyEnvelope(host, path, opts, fail);
        return;
      }
      if (!opts.dsseKeyFile) {
        throw new UsageError(
          "give --public-key or --policy (public-key signatures), or --dsse-key-file (HMAC)",
        );
      }
      const dsseKey = await keyFromFile(host, opts.dsseKeyFile, "--dsse-key-file");
      const bytes = await readInput(host, path);
      const recordKey = await cliKey(host, opts);
      const env = await verifyDsseEnvelope(bytes, dsseKey);
      const envelope = {
        verified: env.verified,
        reason: env.reason,
        message: env.message,
        keyid: env.keyid,
        payloadType: env.payloadType,
      };
      if (!env.verified || !env.statement) {
        if (opts.json) host.stdout(JSON.stringify({ ok: false, envelope, record: null }) + "\n");
        else host.stdout(`FAIL  envelope: ${env.reason}: ${env.message}\n`);
        fail(env.reason, env.message);
        return;
      }
      const inner = await verifyStatementRecord(env.statement, recordKey?.bytes);
      const ok = inner.valid && (recordKey === undefined || inner.verified);
      if (opts.json) {
        host.stdout(
          JSON.stringify({
            ok,
            envelope,
            record: {
              valid: inner.valid,
              verified: inner.verified,
              proof_id: inner.proof_id,
              outcome: inner.verdict?.outcome ?? null,
              reason: inner.reason,
              checks: inner.checks,
              subject_matches: inner.subject_matches,
              key: recordKey?.source ?? null,
              problems: inner.problems,
            },
          }) + "\n",
        );
      } else {
        host.stdout(
          `OK    envelope: DSSE signature verified${
            env.keyid ? ` (keyid ${env.keyid})` : ""
          }, payloadType ${env.payloadType}\n`,
        );
        if (ok) {
          host.stdout(
            `OK    record: proof_id ${inner.proof_id} ${inner.verdict?.outcome ?? ""}, ${
              recordKey
                ? "signature verified under the record key"
                : "structure, proof_id and subject valid; signature not checked (no record key)"
            }\n`,
          );
        } else {
          const [first, ...rest] = inner.problems;
          host.stdout(`FAIL  record: ${first ? formatProblem(first) : inner.reason}\n`);
          for (const p of rest.slice(0, 20)) host.stdout(`        ${formatProblem(p)}\n`);
        }
      }
      if (!ok) fail(inner.reason, inner.problems[0]?.message ?? null);
    });
}

function parseJsonOrNull(bytes: Uint8Array): JsonValue | null {
  try {
    return parseJson(bytes);
  } catch {
    return null; // verification reports the parse error with its code
  }
}

interface VerifyDsseOptions {
  publicKey?: string[];
  policy?: string;
  dsseKeyFile?: string;
  key?: string;
  keyFile?: string;
  json?: boolean;
}

/** `verify-dsse` with public keys and/or a policy (and the HMAC key too, when given). */
async function verifyPublicKeyEnvelope(
  host: CliHost,
  path: string,
  opts: VerifyDsseOptions,
  fail: Fail,
): Promise<void> {
  const publicKeys = await readPublicKeys(host, opts.publicKey);
  const policy = await readPolicyFile(host, opts.policy);
  const recordKey = await cliKey(host, opts);
  const hmacKey = opts.dsseKeyFile
    ? await keyFromFile(host, opts.dsseKeyFile, "--dsse-key-file")
    : undefined;
  let bytes: Uint8Array | JsonObject = await readInput(host, path);
  const value = parseJsonOrNull(bytes);
  if (value !== null && isSigstoreBundle(value)) {
    const { envelopeFromBundle } = await import("../../attest/sigstore.ts");
    bytes = envelopeFromBundle(value) as unknown as JsonObject;
  }
  const r = await verifyAttestation(bytes, { publicKeys, policy, recordKey: recordKey?.bytes });
  const hmac = hmacKey ? await verifyDsseSignature(bytes, hmacKey) : undefined;
  const ok = r.verified && (hmac === undefined || hmac.verified);
  if (opts.json) {
    const { payload: _p, statement: _s, record, ...rest } = r;
    host.stdout(
      JSON.stringify({
        ok,
        attestation: {
          ...rest,
          record: record
            ? {
              valid: record.valid,
              verified: record.verified,
              proof_id: record.proof_id,
              outcome: record.verdict?.outcome ?? null,
              subject_matches: record.subject_matches,
              key: recordKey?.source ?? null,
              problems: record.problems,
            }
            : null,
        },
        hmac: hmac
          ? {
            verified: hmac.verified,
            reason: hmac.reason,
            message: hmac.message,
            keyid: hmac.keyid,
          }
          : null,
      }) + "\n",
    );
  } else {
    for (const c of r.signatures) {
      host.stdout(
        c.verified_by
          ? `${
            c.trusted ? "OK  " : "WARN"
          }  signature ${c.index}: verified by key ${c.verified_by}${
            c.trusted ? "" : " (not trusted by the policy)"
          }\n`
          : `--    signature ${c.index}: ${
            c.keyid ? `keyid ${c.keyid}` : "no keyid"
          }: verifies under none of the public keys\n`,
      );
    }
    if (r.verified) {
      host.stdout(
        `OK    envelope: ${r.signers.length} trusted signature${
          r.signers.length === 1 ? "" : "s"
        } (${r.min_signatures} required), payloadType ${r.payloadType}\n`,
      );
      host.stdout(
        `OK    statement: ${r.predicateType}${r.outcome ? `, outcome ${r.outcome}` : ""}\n`,
      );
      if (r.record) {
        host.stdout(
          `OK    record: proof_id ${r.record.proof_id}, ${
            recordKey
              ? "signature verified under the record key"
              : "structure, proof_id and subject valid; signature not checked (no record key)"
          }\n`,
        );
      }
    } else host.stdout(`FAIL  ${r.step}: ${r.reason}: ${r.message}\n`);
    if (hmac) {
      host.stdout(
        hmac.verified
          ? `OK    hmac: DSSE HMAC signature verified${
            hmac.keyid ? ` (keyid ${hmac.keyid})` : ""
          }\n`
          : `FAIL  hmac: ${hmac.reason}: ${hmac.message}\n`,
      );
    }
  }
  if (!ok) {
    fail(r.verified ? hmac!.reason : r.reason, r.verified ? hmac!.message : r.message);
  }
}

/**
 * The commands of this module: `export`, `import`, `verify-dsse`. With `setExit`, a record or
 * envelope that fails its check sets exit code 2 after the report; without it, the failure is
 * thrown as a `RecordError` (also exit 2 through `main`).
 *
 * @example
 * ```ts ignore
 * for (const c of exportCommands(host, setExit)) program.addCommand(c);
 * ```
 */
export function exportCommands(
  host: CliHost,
  setExit?: (code: number) => void,
): AnyCommand[] {
  return [exportCommand(host), importCommand(host, setExit), verifyDsseCommand(host, setExit)];
}
