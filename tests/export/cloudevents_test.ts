// CloudEvents 1.0 envelope: attributes, the official JSON Schema, round trips that keep the
// record verifiable, the HTTP binding in both content modes against a loopback sink, the CLI.
import assert from "node:assert/strict";
import { CloudEvent, HTTP } from "cloudevents";
import {
  CLOUDEVENTS_JSON_MEDIA_TYPE,
  envelopeJson,
  postCloudEvent,
  PROOF_EVENT_DATACONTENTTYPE,
  PROOF_EVENT_DATASCHEMA,
  PROOF_EVENT_EXTENSIONS,
  PROOF_EVENT_TYPE,
  toHttpMessage,
  unwrap,
  unwrapBytes,
  unwrapHttp,
  wrap,
} from "../../src/export/cloudevents.ts";
import { base64Encode } from "../../src/export/common.ts";
import { canonicalBytes, canonicalize } from "../../src/json/canonical.ts";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonObject, JsonValue } from "../../src/json/value.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { runCli } from "../support/run_cli.ts";
import {
  cloudEventsValidator,
  FIXTURE_KEY,
  FIXTURE_KEY_TEXT,
  fixtureText,
  RECORDS,
  resignedFixture,
  ROUND_TRIP_FIXTURES,
  startReceiver,
} from "./support.ts";

const validate = cloudEventsValidator();

async function assertVerifies(record: unknown, original: string): Promise<void> {
  const r = await verifyRecord(record as JsonValue, { key: FIXTURE_KEY });
  assert.equal(r.verified, true, JSON.stringify(r.problems));
  assert.equal(canonicalize(record as JsonValue), canonicalize(parseJson(original)));
}

function assertCode(code: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof EmpiricError, String(e));
    assert.equal(e.code, code, e.message);
    return true;
  };
}

Deno.test("wrap: documented attributes, valid under the official CloudEvents 1.0 schema", async () => {
  const text = fixtureText("valid.json");
  const record = parseJson(text) as JsonObject;
  const ev = await wrap(text, { source: "urn:empiric:test" });
  const json = JSON.parse(envelopeJson(ev));
  assert.deepEqual(validate(json), []);
  assert.equal(json.specversion, "1.0");
  assert.equal(json.type, PROOF_EVENT_TYPE);
  assert.equal(json.source, "urn:empiric:test");
  const id = (record.identity as JsonObject).proof_id;
  assert.equal(json.id, id);
  assert.equal(json.subject, id);
  assert.equal(
    Date.parse(json.time),
    Date.parse((record.identity as JsonObject).created_at as string),
  );
  assert.equal(json.datacontenttype, PROOF_EVENT_DATACONTENTTYPE);
  assert.equal(json.dataschema, PROOF_EVENT_DATASCHEMA);
  assert.equal(json[PROOF_EVENT_EXTENSIONS.outcome], "VALIDATED");
  assert.equal(json[PROOF_EVENT_EXTENSIONS.metric], "latency_p95_ms");
  assert.equal(json[PROOF_EVENT_EXTENSIONS.scenario], "latency-p95");
  assert.equal(json[PROOF_EVENT_EXTENSIONS.substrate], "builtin:echo");
  assert.equal(json[PROOF_EVENT_EXTENSIONS.schemaVersion], "1.0");
  for (const name of Object.keys(json)) {
    if (name === "data_base64") continue;
    assert.match(name, /^[a-z0-9]{1,20}$/, `attribute name ${name}`);
  }
  assert.equal(json.data, undefined);
  // The data is the record's canonical bytes.
  assert.equal(json.data_base64, base64Encode(canonicalBytes(record)));
  // The SDK itself accepts the envelope.
  new CloudEvent(json, true).validate();
});

for (const name of ROUND_TRIP_FIXTURES) {
  Deno.test(`unwrap(wrap(p)) verifies and keeps every value's type: ${name}`, async () => {
    const text = fixtureText(name);
    const back = unwrap(envelopeJson(await wrap(text, { source: "urn:empiric:test" })));
    await assertVerifies(back, text);
    // Sections come back in file order.
    assert.deepEqual(Object.keys(back).slice(0, 2), ["identity", "claim"]);
    // Also through a file written and read as bytes.
    const bytes = new TextEncoder().encode(envelopeJson(await wrap(text, { source: "/x" })));
    await assertVerifies(unwrap(bytes), text);
  });
}

Deno.test("the int threshold and the big int survive the envelope exactly", async () => {
  const text = fixtureText("valid-refuted-int-threshold.json");
  const back = unwrap(envelopeJson(await wrap(text, { source: "urn:x" }))) as unknown as JsonObject;
  const t = (back.claim as JsonObject).threshold as JsonObject;
  assert.equal(typeof t.value, "bigint");
  const canon = canonicalize(back as JsonValue);
  assert.match(canon, /"value":30[,}]/);
  // n_records is 2^53 + 1: a JavaScript number would round it.
  assert.ok(text.includes('"n_records": 9007199254740993'));
  assert.ok(canon.includes('"n_records":9007199254740993'));
  const v = fixtureText("valid.json");
  assert.match(
    canonicalize(unwrap(envelopeJson(await wrap(v, { source: "x" }))) as never),
    /"value":50\.0/,
  );
});

Deno.test("unwrap reads data given as a JSON string or a JSON value (typed), too", async () => {
  const text = fixtureText("valid.json");
  const base = JSON.parse(envelopeJson(await wrap(text, { source: "urn:x" })));
  delete base.data_base64;
  // data as a JSON string holding the record text
  await assertVerifies(unwrap(JSON.stringify({ ...base, data: text })), text);
  // data as a JSON object: the envelope text must then be read with the typed parser
  const envelopeText = JSON.stringify(base).slice(0, -1) + `,"data":${text}}`;
  await assertVerifies(unwrap(envelopeText), text);
});

Deno.test("unwrap rejects envelopes that are not proof events, with stable codes", async () => {
  const good = JSON.parse(envelopeJson(await wrap(fixtureText("valid.json"), { source: "urn:x" })));
  const cases: [string, unknown][] = [
    ["not an object", [1, 2]],
    ["no id", { ...good, id: undefined }],
    ["empty source", { ...good, source: "" }],
    ["old specversion", { ...good, specversion: "0.3" }],
    ["foreign type", { ...good, type: "com.example.other" }],
    ["bad time", { ...good, time: "yesterday" }],
    ["XML data", { ...good, datacontenttype: "application/xml" }],
    ["bad base64", { ...good, data_base64: "!!!" }],
    ["both data forms", { ...good, data: "{}" }],
    ["no data", { ...good, data_base64: undefined }],
    ["bad extension name", { ...good, Empiric_Outcome: "x" }],
  ];
  for (const [what, value] of cases) {
    assert.throws(() => unwrap(JSON.stringify(value)), assertCode("schema_invalid"), what);
  }
  assert.throws(() => unwrap("{"), assertCode("syntax_error"));
  assert.throws(() => unwrap('{"id":1,"id":2}'), assertCode("duplicate_key"));
  await assert.rejects(wrap(fixtureText("valid.json"), { source: "" }), assertCode("usage_error"));
  await assert.rejects(
    wrap(fixtureText("tampered-float-to-int.json"), { source: "urn:x" }),
    assertCode("proof_id_mismatch"),
  );
});

Deno.test("HTTP binding: structured and binary mode POSTed to a loopback sink", async () => {
  // A record whose scenario and substrate need percent-encoding in binary-mode headers.
  const record = await resignedFixture("valid.json", (r) => {
    (r.reproduction as JsonObject).command =
      'empiric run café-claim --substrate cmd:python3 "my service.py" 100%';
  });
  const recordText = canonicalize(record as unknown as JsonValue);
  const sink = startReceiver();
  try {
    const ev = await wrap(record, { source: "urn:empiric:test" });
    assert.equal(await postCloudEvent(`${sink.url}/events`, ev, { mode: "structured" }), 200);
    assert.equal(await postCloudEvent(`${sink.url}/events`, ev, { mode: "binary" }), 200);
    const [structured, binary] = sink.requests;

    assert.equal(structured.method, "POST");
    assert.match(structured.headers["content-type"], /^application\/cloudevents\+json/);
    const body = JSON.parse(structured.text);
    assert.deepEqual(validate(body), []);
    assert.equal(body.id, record.identity.proof_id);
    assert.equal(body.empiricscenario, "café-claim");
    await assertVerifies(unwrapHttp(structured), recordText);

    assert.equal(binary.headers["content-type"], "application/json");
    assert.equal(binary.headers["ce-id"], record.identity.proof_id);
    assert.equal(binary.headers["ce-specversion"], "1.0");
    assert.equal(binary.headers["ce-type"], PROOF_EVENT_TYPE);
    assert.equal(binary.headers["ce-source"], "urn:empiric:test");
    assert.equal(binary.headers["ce-empiricoutcome"], "VALIDATED");
    assert.equal(binary.headers["ce-empiricscenario"], "caf%C3%A9-claim");
    assert.equal(
      binary.headers["ce-empiricsubstrate"],
      "cmd:python3%20%22my%20service.py%22%20100%25",
    );
    assert.equal(binary.headers["ce-datacontenttype"], undefined);
    // The body is exactly the record's canonical bytes.
    assert.deepEqual(binary.body, canonicalBytes(record as unknown as JsonValue));
    const back = unwrapHttp(binary);
    await assertVerifies(back, recordText);
    // The SDK reads the same message as a valid event.
    const sdkEvent = HTTP.toEvent({ headers: binary.headers, body: binary.body }) as CloudEvent;
    sdkEvent.validate();
    assert.equal(sdkEvent.id, record.identity.proof_id);
  } finally {
    await sink.close();
  }
});

Deno.test("toHttpMessage and unwrapHttp agree; a sink error is io_error", async () => {
  const text = fixtureText("valid-refuted-int-threshold.json");
  const ev = await wrap(text, { source: "urn:x" });
  for (const mode of ["structured", "binary"] as const) {
    const m = toHttpMessage(ev, mode);
    await assertVerifies(unwrapHttp(m), text);
    await assertVerifies(unwrapHttp({ headers: new Headers(m.headers), body: m.body }), text);
  }
  assert.equal(
    toHttpMessage(ev).headers["content-type"].startsWith(CLOUDEVENTS_JSON_MEDIA_TYPE),
    true,
  );
  assert.throws(
    () => unwrapHttp({ headers: { "content-type": "application/json", "ce-id": "x" }, body: "{}" }),
    assertCode("schema_invalid"),
  );
  const sink = startReceiver(() => 503);
  try {
    await assert.rejects(postCloudEvent(sink.url, ev), assertCode("io_error"));
  } finally {
    await sink.close();
  }
  await assert.rejects(
    postCloudEvent("http://127.0.0.1:9/", ev, { timeoutMs: 2000 }),
    assertCode("io_error"),
  );
});

Deno.test("unwrapBytes gives the exact carried bytes", async () => {
  const text = fixtureText("valid.json");
  const ev = await wrap(text, { source: "urn:x" });
  assert.deepEqual(unwrapBytes(envelopeJson(ev)), canonicalBytes(parseJson(text)));
});

Deno.test("CLI: export cloudevent, --post in both modes, import cloudevent exit codes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "empiric-ce-" });
  const sink = startReceiver();
  try {
    const out = await runCli([
      "export",
      "cloudevent",
      `${RECORDS}valid.json`,
      "--source",
      "urn:ci",
    ]);
    assert.equal(out.code, 0, out.stderr);
    const envelope = JSON.parse(out.stdout);
    assert.deepEqual(validate(envelope), []);
    assert.equal(envelope.source, "urn:ci");
    await Deno.writeTextFile(`${dir}/event.json`, out.stdout);

    const ok = await runCli([
      "import",
      "cloudevent",
      `${dir}/event.json`,
      "--key",
      FIXTURE_KEY_TEXT,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    await assertVerifies(parseJson(ok.stdout), fixtureText("valid.json"));
    assert.match(ok.stdout, /"value": 50\.0/);

    const noKey = await runCli(["import", "cloudevent", `${dir}/event.json`]);
    assert.equal(noKey.code, 0);
    assert.match(noKey.stderr, /signature not checked/);

    const wrong = await runCli([
      "import",
      "cloudevent",
      `${dir}/event.json`,
      "--key",
      "x".repeat(40),
    ]);
    assert.equal(wrong.code, 2);
    assert.equal(wrong.stdout, "");
    assert.match(wrong.stderr, /signature_mismatch/);

    // A tampered record inside a well-formed envelope: exit 2 even without a key.
    const tampered = { ...envelope };
    delete tampered.data_base64;
    tampered.data = fixtureText("tampered-float-to-int.json");
    await Deno.writeTextFile(`${dir}/tampered.json`, JSON.stringify(tampered));
    const bad = await runCli(["import", "cloudevent", `${dir}/tampered.json`]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /proof_id_mismatch/);

    const junk = await runCli(["import", "cloudevent", "-"], { stdin: '{"id": "x"}' });
    assert.equal(junk.code, 2);
    assert.match(junk.stderr, /^empiric: schema_invalid: /m);
    assert.doesNotMatch(junk.stderr, /\bat .*\.ts:\d+/);

    for (const mode of ["structured", "binary"]) {
      const p = await runCli([
        "export",
        "cloudevent",
        `${RECORDS}valid.json`,
        "--post",
        `${sink.url}/sink`,
        "--mode",
        mode,
      ]);
      assert.equal(p.code, 0, p.stderr);
      assert.match(p.stdout, /^posted [0-9a-f]{64} to .* HTTP 200/);
    }
    assert.equal(sink.requests.length, 2);
    await assertVerifies(unwrapHttp(sink.requests[0]), fixtureText("valid.json"));
    await assertVerifies(unwrapHttp(sink.requests[1]), fixtureText("valid.json"));
    assert.equal(sink.requests[1].headers["content-type"], "application/json");

    const badUrl = await runCli([
      "export",
      "cloudevent",
      `${RECORDS}valid.json`,
      "--post",
      "ftp://x",
    ]);
    assert.equal(badUrl.code, 64);
  } finally {
    await sink.close();
    await Deno.remove(dir, { recursive: true });
  }
});

// docs/exports.md "Receiving with the CloudEvents JS SDK": the SDK's two habits that lose the
// record, and the ways around them, as the locked SDK version behaves.
Deno.test("the CloudEvents SDK as a receiver: binary re-parses a string body, structured gives a Uint32Array", async () => {
  const text = fixtureText("valid-refuted-int-threshold.json");
  const ev = await wrap(text, { source: "urn:x" });
  const bytes = canonicalBytes(parseJson(text));
  const binary = toHttpMessage(ev, "binary");

  // A string body: the data is JSON.parse'd; the big int loses its last digit.
  const parsed = HTTP.toEvent({
    headers: binary.headers,
    body: new TextDecoder().decode(binary.body as Uint8Array),
  }) as CloudEvent<{ data: { datasets: { n_records: number }[] } }>;
  assert.equal(typeof parsed.data, "object");
  assert.equal(parsed.data!.data.datasets[0].n_records, 9007199254740992);
  assert.match(text, /"n_records": 9007199254740993/);
  // A float written 50.0 comes back as the number 50, which re-serializes as 50.
  const floats = toHttpMessage(
    await wrap(fixtureText("valid.json"), { source: "urn:x" }),
    "binary",
  );
  const reparsed = HTTP.toEvent({
    headers: floats.headers,
    body: new TextDecoder().decode(floats.body as Uint8Array),
  }) as CloudEvent<{ claim: { threshold: { value: number } } }>;
  assert.equal(JSON.stringify(reparsed.data!.claim.threshold.value), "50");
  assert.match(new TextDecoder().decode(floats.body as Uint8Array), /"value":50\.0/);

  // A bytes body: the data stays the exact bytes.
  const kept = HTTP.toEvent({ headers: binary.headers, body: binary.body }) as CloudEvent<
    Uint8Array
  >;
  assert.ok(kept.data instanceof Uint8Array);
  assert.deepEqual(new Uint8Array(kept.data), bytes);

  // Structured mode with data_base64: a Uint32Array, one byte per element.
  const structured = toHttpMessage(ev, "structured");
  const st = HTTP.toEvent({ headers: structured.headers, body: structured.body }) as CloudEvent<
    ArrayLike<number>
  >;
  assert.equal(st.data!.constructor.name, "Uint32Array");
  assert.notDeepEqual(new Uint8Array((st.data as Uint32Array).buffer), bytes);
  assert.deepEqual(Uint8Array.from(st.data as Uint32Array), bytes);
});

Deno.test("a run's event names its observations file by hash (empiricobservations)", async () => {
  const { runScenarioForTest } = await import("../support/ops.ts");
  const { TEST_SIGN_KEY, testEnv } = await import("../support/env.ts");
  const r = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env: await testEnv(),
    key: TEST_SIGN_KEY,
  });
  const event = await wrap(r.output.record as never, { source: "urn:empiric:test" });
  const { sha256Hex } = await import("../../src/crypto/hash.ts");
  const attrs = event as unknown as Record<string, unknown>;
  assert.equal(
    attrs[PROOF_EVENT_EXTENSIONS.observations],
    `sha256:${await sha256Hex(r.output.bundle.observations)}`,
  );
  assert.deepEqual(cloudEventsValidator()(JSON.parse(event.toString())), []);
  // A record made before observations were kept has no such attribute.
  const old = await wrap(fixtureText("valid.json"), { source: "urn:empiric:test" });
  assert.equal(
    (old as unknown as Record<string, unknown>)[PROOF_EVENT_EXTENSIONS.observations],
    undefined,
  );
});
