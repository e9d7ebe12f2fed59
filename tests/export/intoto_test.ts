// in-toto Statement v1 and DSSE: the Statement's shape, signatures recomputed independently
// from the PAE bytes (node:crypto), the DSSE test vectors of notes/standards.md §1.4, the order
// and strictness of verification, the separate inner record check, and the CLI.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";
import {
  DSSE_INTOTO_PAYLOAD_TYPE,
  type DsseEnvelope,
  IN_TOTO_STATEMENT_V1_TYPE,
  pae,
  PROOFSVC_PREDICATE_TYPE_V1,
  signDsse,
  statementBytes,
  toDsseEnvelope,
  toInTotoStatement,
  verifyDsseEnvelope,
  verifyDsseSignature,
  verifyStatementRecord,
} from "../../src/export/intoto.ts";
import { canonicalBytes, canonicalize } from "../../src/json/canonical.ts";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonObject, JsonValue } from "../../src/json/value.ts";
import { prettyJson } from "../../src/json/pretty.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { runCli } from "../support/run_cli.ts";
import {
  FIXTURE_KEY,
  FIXTURE_KEY_TEXT,
  fixtureText,
  RECORDS,
  ROUND_TRIP_FIXTURES,
} from "./support.ts";

const enc = new TextEncoder();
const DSSE_KEY = enc.encode("a-separate-dsse-key-0123456789abcdef");

/** PAE built here by hand, from the DSSE protocol text, without the code under test. */
function paeByHand(type: string, body: Uint8Array): Buffer {
  const t = Buffer.from(type, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${t.length} `, "ascii"),
    t,
    Buffer.from(` ${body.length} `, "ascii"),
    Buffer.from(body),
  ]);
}

function hmacB64(key: Uint8Array, data: Uint8Array): string {
  return createHmac("sha256", key).update(data).digest("base64");
}

function urlSafe(b64: string): string {
  return b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

Deno.test("DSSE protocol vector: PAE of the HelloWorld example", () => {
  const p = pae("http://example.com/HelloWorld", enc.encode("hello world"));
  assert.equal(
    new TextDecoder().decode(p),
    "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
  );
  assert.equal(Buffer.from("hello world").toString("base64"), "aGVsbG8gd29ybGQ=");
});

Deno.test("standards.md §1.4 HMAC vector (key test-key): standard and URL-safe sig verify", async () => {
  const body =
    '{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"record.json","digest":{"sha256":"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"}}],"predicateType":"https://example.org/epr/v0.1","predicate":{}}';
  const bytes = enc.encode(body);
  assert.equal(bytes.length, 227);
  const p = pae(DSSE_INTOTO_PAYLOAD_TYPE, bytes);
  assert.ok(
    new TextDecoder().decode(p).startsWith("DSSEv1 28 application/vnd.in-toto+json 227 {"),
  );
  assert.deepEqual(Buffer.from(p), paeByHand(DSSE_INTOTO_PAYLOAD_TYPE, bytes));
  const key = enc.encode("test-key");
  const expected = "13sqXeIlFCeNof0Xh+KOKkR5En0wkkk++QJNXlbI3CU=";
  assert.equal(hmacB64(key, p), expected);
  for (const sig of [expected, "13sqXeIlFCeNof0Xh-KOKkR5En0wkkk--QJNXlbI3CU=", urlSafe(expected)]) {
    const env = {
      payload: Buffer.from(bytes).toString("base64"),
      payloadType: DSSE_INTOTO_PAYLOAD_TYPE,
      signatures: [{ sig }],
    };
    const r = await verifyDsseSignature(env, key);
    assert.equal(r.verified, true, `${sig}: ${r.message}`);
    assert.deepEqual(r.payload, bytes);
    // The envelope verifies, but the predicate is not an empiric proof record.
    const full = await verifyDsseEnvelope(env, key);
    assert.equal(full.verified, false);
    assert.equal(full.reason, "schema_invalid");
    assert.match(full.message!, /predicateType/);
  }
  const flipped = {
    payload: Buffer.from(bytes).toString("base64"),
    payloadType: DSSE_INTOTO_PAYLOAD_TYPE,
    signatures: [{ sig: "14sqXeIlFCeNof0Xh+KOKkR5En0wkkk++QJNXlbI3CU=" }],
  };
  assert.equal((await verifyDsseSignature(flipped, key)).reason, "signature_mismatch");
  // Signing refuses a key that short, as record signing does.
  await assert.rejects(
    signDsse(DSSE_INTOTO_PAYLOAD_TYPE, bytes, { key }),
    (e) => e instanceof EmpiricError && e.code === "key_too_short",
  );
});

for (const name of ROUND_TRIP_FIXTURES) {
  Deno.test(`Statement: shape, and predicate.body + signature verify as the record: ${name}`, async () => {
    const text = fixtureText(name);
    const record = parseJson(text) as JsonObject;
    const id = (record.identity as JsonObject).proof_id as string;
    const st = await toInTotoStatement(text);
    assert.equal(st._type, IN_TOTO_STATEMENT_V1_TYPE);
    assert.equal(st._type, "https://in-toto.io/Statement/v1");
    assert.equal(st.predicateType, PROOFSVC_PREDICATE_TYPE_V1);
    assert.match(st.predicateType, /^https:\/\/[a-z0-9.]+\/.*\/v\d+$/);
    assert.deepEqual(st.subject, [
      { name: `${id}.json`, digest: { sha256: id } },
      // The record file by the SHA-256 of its bytes, for blob-based tools.
      {
        name: `${id}.json`,
        digest: { sha256: createHash("sha256").update(enc.encode(text)).digest("hex") },
        mediaType: "application/json",
      },
    ]);
    assert.equal((await toInTotoStatement(text, { fileName: "r.json" })).subject[1].name, "r.json");
    assert.equal(st.predicate.signature, (record.signature as JsonObject).signature);
    const { signature: _s, ...body } = record;
    assert.equal(canonicalize(st.predicate.body), canonicalize(body));
    assert.deepEqual(Object.keys(st.predicate.body), Object.keys(body));
    // The record rebuilt from the predicate verifies under the record key.
    const rebuilt = { ...st.predicate.body, signature: { signature: st.predicate.signature } };
    const v = await verifyRecord(rebuilt as JsonValue, { key: FIXTURE_KEY });
    assert.equal(v.verified, true, JSON.stringify(v.problems));
    // ... also after the Statement's canonical bytes are parsed back.
    const back = parseJson(statementBytes(st)) as JsonObject;
    const inner = await verifyStatementRecord(back, FIXTURE_KEY);
    assert.equal(inner.verified, true);
    assert.equal(inner.subject_matches, true);
    // JSON.stringify works on the Statement (ints are PyInt, exact).
    assert.doesNotThrow(() => JSON.stringify(st));
  });

  Deno.test(`DSSE envelope: sig recomputed independently from the PAE bytes: ${name}`, async () => {
    const text = fixtureText(name);
    const env = await toDsseEnvelope(text, { key: DSSE_KEY, keyid: "ci-2026" });
    assert.deepEqual(Object.keys(env).sort(), ["payload", "payloadType", "signatures"]);
    assert.equal(env.payloadType, "application/vnd.in-toto+json");
    assert.equal(env.signatures.length, 1);
    assert.equal(env.signatures[0].keyid, "ci-2026");
    // payload = standard padded base64 of the Statement's canonical bytes
    const payload = Buffer.from(env.payload, "base64");
    assert.equal(payload.toString("base64"), env.payload);
    assert.deepEqual(
      new Uint8Array(payload),
      canonicalBytes((await toInTotoStatement(text)) as unknown as JsonValue),
    );
    assert.equal(
      env.signatures[0].sig,
      hmacB64(DSSE_KEY, paeByHand(env.payloadType, new Uint8Array(payload))),
    );
    const r = await verifyDsseEnvelope(env, DSSE_KEY);
    assert.equal(r.verified, true, r.message ?? "");
    assert.equal(r.keyid, "ci-2026");
    assert.deepEqual(r.payload, new Uint8Array(payload));
    // Inner check, separate and with the record's own key.
    const inner = await verifyStatementRecord(r.statement!, FIXTURE_KEY);
    assert.equal(inner.verified, true);
    // The DSSE key does not verify the record, nor the record key the envelope.
    assert.equal(
      (await verifyStatementRecord(r.statement!, DSSE_KEY)).reason,
      "signature_mismatch",
    );
    assert.equal((await verifyDsseEnvelope(env, FIXTURE_KEY)).reason, "signature_mismatch");
    // Deterministic: the same record and key give the same envelope.
    assert.deepEqual(await toDsseEnvelope(text, { key: DSSE_KEY, keyid: "ci-2026" }), env);
    // Without keyid the signature still carries one: the key's fingerprint (docs/keys.md),
    // the first 16 hex digits of HMAC-SHA256(key, "empiric keyid").
    const fingerprint = createHmac("sha256", DSSE_KEY).update("empiric keyid").digest("hex");
    assert.equal(
      (await toDsseEnvelope(text, { key: DSSE_KEY })).signatures[0].keyid,
      `hmac-sha256:${fingerprint.slice(0, 16)}`,
    );
  });
}

Deno.test("DSSE verification: substitution, tampering, encodings, several signatures", async () => {
  const text = fixtureText("valid.json");
  const env = await toDsseEnvelope(text, { key: DSSE_KEY, keyid: "k1" });
  const payload = Buffer.from(env.payload, "base64");

  // The payload type is authenticated (PAE): changing it breaks the signature.
  const swapped = { ...env, payloadType: "application/vnd.in-toto.other+json" };
  assert.equal((await verifyDsseEnvelope(swapped, DSSE_KEY)).reason, "signature_mismatch");

  // One changed payload byte breaks it.
  const tampered = Buffer.from(payload);
  tampered[tampered.indexOf("VALIDATED")] = "X".charCodeAt(0);
  const t = { ...env, payload: tampered.toString("base64") };
  assert.equal((await verifyDsseEnvelope(t, DSSE_KEY)).reason, "signature_mismatch");

  // URL-safe, unpadded payload and sig verify too.
  const u = {
    ...env,
    payload: urlSafe(env.payload),
    signatures: [{ keyid: "k1", sig: urlSafe(env.signatures[0].sig) }],
  };
  assert.equal((await verifyDsseEnvelope(u, DSSE_KEY)).verified, true);
  // As text (a file), with unknown fields ignored.
  const asText = JSON.stringify({ ...env, extra: { x: 1 } });
  assert.equal((await verifyDsseEnvelope(asText, DSSE_KEY)).verified, true);

  // The matching signature may be any of several.
  const other = await toDsseEnvelope(text, { key: enc.encode("z".repeat(32)), keyid: "k0" });
  const multi = { ...env, signatures: [other.signatures[0], env.signatures[0]] };
  const m = await verifyDsseEnvelope(multi, DSSE_KEY);
  assert.equal(m.verified, true);
  assert.equal(m.keyid, "k1");

  // Malformed envelopes and encodings.
  const malformed: [string, unknown][] = [
    ["array", []],
    ["no payload", { payloadType: env.payloadType, signatures: env.signatures }],
    ["no payloadType", { payload: env.payload, signatures: env.signatures }],
    ["empty signatures", { ...env, signatures: [] }],
    ["sig not a string", { ...env, signatures: [{ sig: 5 }] }],
    ["keyid not a string", { ...env, signatures: [{ sig: env.signatures[0].sig, keyid: 1 }] }],
    ["payload not base64", {
      ...env,
      payload: env.payload.slice(0, 10) + "*" + env.payload.slice(11),
    }],
    ["mixed alphabets", { ...env, payload: "ab+_" }],
    ["whitespace", { ...env, payload: env.payload.slice(0, 8) + " " + env.payload.slice(8) }],
    ["sig not base64", { ...env, signatures: [{ sig: "%%%" }] }],
  ];
  for (const [what, e] of malformed) {
    const r = await verifyDsseEnvelope(e as DsseEnvelope, DSSE_KEY);
    assert.equal(r.verified, false, what);
    assert.equal(r.reason, "schema_invalid", `${what}: ${r.message}`);
    assert.equal(r.payload, null, what);
  }
  assert.equal((await verifyDsseEnvelope("{", DSSE_KEY)).reason, "syntax_error");
});

Deno.test("the exact payload bytes are verified and parsed, never re-serialized", async () => {
  // A Statement written pretty (not canonical), signed as is: it verifies, and the Statement
  // handed back is parsed from those exact bytes.
  const st = await toInTotoStatement(fixtureText("valid.json"));
  const pretty = enc.encode(prettyJson(st as unknown as JsonValue));
  const env = await signDsse(DSSE_INTOTO_PAYLOAD_TYPE, pretty, { key: DSSE_KEY });
  const r = await verifyDsseEnvelope(env, DSSE_KEY);
  assert.equal(r.verified, true);
  assert.deepEqual(r.payload, pretty);
  assert.equal((await verifyStatementRecord(r.statement!, FIXTURE_KEY)).verified, true);
  // The canonical re-serialization of the same Statement has a different signature.
  const canonical = await signDsse(DSSE_INTOTO_PAYLOAD_TYPE, statementBytes(st), { key: DSSE_KEY });
  assert.notEqual(canonical.signatures[0].sig, env.signatures[0].sig);
});

Deno.test("inner check: an edited body or a foreign subject fails although the envelope verifies", async () => {
  const st = await toInTotoStatement(fixtureText("valid.json"));
  // Float-to-int edit inside the body, re-signed with the DSSE key: the envelope verifies,
  // the record does not (proof_id no longer matches the body).
  const body = parseJson(canonicalize(st.predicate.body)) as JsonObject;
  (((body.claim as JsonObject).threshold) as JsonObject).value = 50n;
  const edited = { ...st, predicate: { ...st.predicate, body } };
  const env = await signDsse(DSSE_INTOTO_PAYLOAD_TYPE, statementBytes(edited as never), {
    key: DSSE_KEY,
  });
  const r = await verifyDsseEnvelope(env, DSSE_KEY);
  assert.equal(r.verified, true);
  const inner = await verifyStatementRecord(r.statement!, FIXTURE_KEY);
  assert.equal(inner.verified, false);
  assert.equal(inner.reason, "proof_id_mismatch");

  const foreign = { ...st, subject: [{ name: "x", digest: { sha256: "0".repeat(64) } }] };
  const f = await verifyStatementRecord(foreign as never, FIXTURE_KEY);
  assert.equal(f.verified, false);
  assert.equal(f.subject_matches, false);
  assert.equal(f.reason, "proof_id_mismatch");

  // Without the record key: structure, proof_id and subject only.
  const noKey = await verifyStatementRecord(st);
  assert.equal(noKey.valid, true);
  assert.equal(noKey.verified, false);
  assert.equal(noKey.checks.signature, "skipped");
});

Deno.test("CLI: export in-toto and dsse, verify-dsse with the envelope and the record keys", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-dsse-" });
  try {
    await Deno.writeTextFile(`${dir}/dsse.key`, "a-separate-dsse-key-0123456789abcdef\n");
    await Deno.writeTextFile(`${dir}/record.key`, FIXTURE_KEY_TEXT + "\n");
    await Deno.writeTextFile(`${dir}/short.key`, "short\n");
    const record = `${RECORDS}valid-refuted-int-threshold.json`;

    const st = await runCli(["export", "in-toto", record]);
    assert.equal(st.code, 0, st.stderr);
    const statement = parseJson(st.stdout) as JsonObject;
    assert.equal(statement._type, IN_TOTO_STATEMENT_V1_TYPE);
    assert.equal((await verifyStatementRecord(statement, FIXTURE_KEY)).verified, true);

    const out = await runCli([
      "export",
      "dsse",
      record,
      "--dsse-key-file",
      `${dir}/dsse.key`,
      "--keyid",
      "ci",
      "--out",
      `${dir}/env.json`,
    ]);
    assert.equal(out.code, 0, out.stderr);
    const env = JSON.parse(await Deno.readTextFile(`${dir}/env.json`));
    assert.equal(env.signatures[0].keyid, "ci");
    assert.equal(
      env.signatures[0].sig,
      hmacB64(DSSE_KEY, paeByHand(env.payloadType, Buffer.from(env.payload, "base64"))),
    );

    const both = await runCli([
      "verify-dsse",
      `${dir}/env.json`,
      "--dsse-key-file",
      `${dir}/dsse.key`,
      "--key-file",
      `${dir}/record.key`,
    ]);
    assert.equal(both.code, 0, both.stdout + both.stderr);
    assert.match(both.stdout, /^OK +envelope: DSSE signature verified \(keyid ci\)/m);
    assert.match(both.stdout, /^OK +record: proof_id [0-9a-f]{64} REFUTED, signature verified/m);

    const envOnly = await runCli([
      "verify-dsse",
      `${dir}/env.json`,
      "--dsse-key-file",
      `${dir}/dsse.key`,
    ]);
    assert.equal(envOnly.code, 0);
    assert.match(envOnly.stdout, /signature not checked \(no record key\)/);

    const wrongDsse = await runCli([
      "verify-dsse",
      `${dir}/env.json`,
      "--dsse-key-file",
      `${dir}/record.key`,
    ]);
    assert.equal(wrongDsse.code, 2);
    assert.match(wrongDsse.stdout, /^FAIL +envelope: signature_mismatch/m);

    const wrongRecord = await runCli([
      "verify-dsse",
      `${dir}/env.json`,
      "--dsse-key-file",
      `${dir}/dsse.key`,
      "--key",
      "y".repeat(40),
      "--json",
    ]);
    assert.equal(wrongRecord.code, 2);
    const j = JSON.parse(wrongRecord.stdout);
    assert.equal(j.ok, false);
    assert.equal(j.envelope.verified, true);
    assert.equal(j.record.reason, "signature_mismatch");

    const short = await runCli(["export", "dsse", record, "--dsse-key-file", `${dir}/short.key`]);
    assert.equal(short.code, 64);
    assert.match(short.stderr, /^empiric: key_too_short: /m);

    const missing = await runCli(["export", "dsse", record]);
    assert.equal(missing.code, 64);
    assert.match(missing.stderr, /--dsse-key-file/);

    const garbage = await runCli(["verify-dsse", "-", "--dsse-key-file", `${dir}/dsse.key`], {
      stdin: "not json",
    });
    assert.equal(garbage.code, 2);
    assert.match(garbage.stdout, /FAIL +envelope: syntax_error/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
