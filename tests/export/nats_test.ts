// CloudEvents on a real stream: proof events published to NATS JetStream (a real nats-server
// with JetStream, started per test) in both content modes of the CloudEvents NATS protocol
// binding, consumed back with a JetStream consumer of the official client, unwrapped and
// verified; deduplication on the event id, the operator-facing errors, credentials, the CLI's
// --events-url nats://..., and the producer span's traceparent on the message.
import assert from "node:assert/strict";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { CLOUDEVENTS_JSON_MEDIA_TYPE, wrap } from "../../src/export/cloudevents.ts";
import {
  parseNatsUrl,
  publishNatsCloudEvent,
  toNatsMessage,
  unwrapNats,
} from "../../src/export/nats.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { canonicalBytes } from "../../src/json/canonical.ts";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonValue } from "../../src/json/value.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { type NatsServer, natsServerAvailable, startNatsServer } from "../support/nats.ts";
import { runCli } from "../support/run_cli.ts";
import { TEST_SIGN_KEY } from "../support/env.ts";
import {
  cloudEventsValidator,
  FIXTURE_KEY,
  FIXTURE_KEY_TEXT,
  fixtureText,
  RECORDS,
  resignedFixture,
} from "./support.ts";

const available = await natsServerAvailable();
const validate = cloudEventsValidator();

async function withStream(
  fn: (s: NatsServer, nc: NatsConnection) => Promise<void>,
  auth?: { user: string; pass: string },
): Promise<void> {
  const server = await startNatsServer(auth);
  let nc: NatsConnection | undefined;
  try {
    nc = await connect({ servers: server.server, ...(auth ?? {}) });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "PROOFS", subjects: ["empiric.>"] });
    await fn(server, nc);
  } finally {
    await nc?.close();
    await server.close();
  }
}

/** Read every message of the stream with an ordered consumer (what a subscriber does). */
async function consumeAll(nc: NatsConnection, expected: number): Promise<JsMsg[]> {
  const c = await jetstream(nc).consumers.get("PROOFS");
  const out: JsMsg[] = [];
  while (out.length < expected) {
    const m = await c.next({ expires: 5000 });
    if (!m) throw new Error(`only ${out.length} of ${expected} messages in the stream`);
    out.push(m);
  }
  return out;
}

function codeIs(code: string) {
  return (e: unknown) => e instanceof EmpiricError && e.code === code;
}

Deno.test("parseNatsUrl: server, subject, credentials; bad URLs are usage errors", () => {
  const t = parseNatsUrl("nats://[::1]/empiric.proofs.ci");
  assert.equal(t.server, "[::1]:4222");
  assert.equal(t.host, "::1");
  assert.equal(t.port, 4222);
  assert.equal(parseNatsUrl("nats://tok3n@h:1/s").token, "tok3n");
  for (
    const bad of [
      "nats://h:4222",
      "nats://h:4222/",
      "nats://h/a..b",
      "nats://h/a.>",
      "nats://h/a b",
      "nats://h/s?x=1",
      "http://h/s",
      "nats:///s",
    ]
  ) {
    assert.throws(() => parseNatsUrl(bad), codeIs("usage_error"), bad);
  }
});

Deno.test({
  name: "NATS JetStream: structured and binary events are stored, consumed and unwrapped",
  ignore: !available,
  fn: () =>
    withStream(async (s, nc) => {
      // Attribute values that need percent-encoding in binary mode.
      const record = await resignedFixture("valid.json", (r) => {
        (r.reproduction as Record<string, unknown>).command =
          'empiric run café-claim --substrate cmd:python3 "my service.py" 100%';
      });
      const structured = await wrap(record, { source: "urn:empiric:nats-test" });
      const other = await wrap(fixtureText("valid-refuted-int-threshold.json"), {
        source: "urn:empiric:nats-test",
      });
      const url = `nats://${s.server}/empiric.proofs`;
      const a1 = await publishNatsCloudEvent(url, structured);
      const a2 = await publishNatsCloudEvent(url, other, { mode: "binary" });
      assert.deepEqual([a1.stream, a1.seq, a1.duplicate], ["PROOFS", 1, false]);
      assert.deepEqual([a2.seq, a2.duplicate], [2, false]);
      // The same event again: JetStream drops it (Nats-Msg-Id = the proof_id).
      const a3 = await publishNatsCloudEvent(url, structured);
      assert.deepEqual([a3.seq, a3.duplicate], [1, true]);

      const [m1, m2] = await consumeAll(nc, 2);
      assert.equal(m1.subject, "empiric.proofs");
      assert.equal(
        m1.headers?.get("Content-Type"),
        `${CLOUDEVENTS_JSON_MEDIA_TYPE}; charset=utf-8`,
      );
      assert.equal(m1.headers?.get("Nats-Msg-Id"), structured.id);
      const envelope = JSON.parse(new TextDecoder().decode(m1.data));
      assert.deepEqual(validate(envelope), []);
      assert.equal(envelope.empiricscenario, "café-claim");
      const back1 = unwrapNats({ headers: m1.headers, data: m1.data });
      assert.equal(
        (await verifyRecord(back1 as unknown as JsonValue, { key: FIXTURE_KEY })).verified,
        true,
      );
      assert.equal(back1.identity.proof_id, record.identity.proof_id);

      assert.equal(m2.headers?.get("Content-Type"), "");
      assert.equal(m2.headers?.get("ce-id"), other.id);
      assert.equal(m2.headers?.get("ce-specversion"), "1.0");
      assert.equal(m2.headers?.get("ce-datacontenttype"), "application/json");
      assert.equal(m2.headers?.get("ce-type"), "dev.empiric.proof.v1");
      // Binary mode: the payload is the record's canonical bytes, exactly.
      assert.deepEqual(
        new Uint8Array(m2.data),
        canonicalBytes(parseJson(fixtureText("valid-refuted-int-threshold.json"))),
      );
      const back2 = unwrapNats({ headers: m2.headers, data: m2.data });
      assert.equal(
        (await verifyRecord(back2 as unknown as JsonValue, { key: FIXTURE_KEY })).verified,
        true,
      );
    }),
});

Deno.test("unwrapNats: modes by header, percent-encoded values, a message without headers, bad input", async () => {
  const record = await resignedFixture("valid.json", (r) => {
    (r.reproduction as Record<string, unknown>).command =
      'empiric run café --substrate cmd:x "y" 100%';
  });
  const ev = await wrap(record, { source: "urn:x" });
  const b = toNatsMessage(ev, "binary");
  assert.equal(b.headers["ce-empiricscenario"], "caf%C3%A9");
  assert.equal(b.headers["ce-empiricsubstrate"], "cmd:x%20%22y%22%20100%25");
  assert.equal(unwrapNats(b).identity.proof_id, ev.id);
  // Header names are case-insensitive in NATS.
  const upper = Object.fromEntries(Object.entries(b.headers).map(([k, v]) => [k.toUpperCase(), v]));
  assert.equal(unwrapNats({ headers: upper, data: b.data }).identity.proof_id, ev.id);
  // A publisher from before NATS headers: the payload is the JSON event format.
  const st = toNatsMessage(ev, "structured");
  assert.equal(unwrapNats({ data: st.data }).identity.proof_id, ev.id);
  assert.throws(
    () =>
      unwrapNats({
        headers: { "content-type": "application/cloudevents-batch+json" },
        data: st.data,
      }),
    codeIs("schema_invalid"),
  );
  assert.throws(
    () => unwrapNats({ headers: { "ce-specversion": "1.0", "ce-id": "x" }, data: b.data }),
    codeIs("schema_invalid"),
  );
  assert.throws(
    () => unwrapNats({ headers: { ...b.headers, "ce-source": "%C0%A0" }, data: b.data }),
    codeIs("schema_invalid"),
  );
});

Deno.test({
  name:
    "NATS: no stream for the subject, no server, wrong credentials are io_errors naming the server",
  ignore: !available,
  fn: async () => {
    const ev = await wrap(fixtureText("valid.json"), { source: "urn:x" });
    await withStream(async (s) => {
      await assert.rejects(
        publishNatsCloudEvent(`nats://${s.server}/other.subject`, ev, { timeoutMs: 3000 }),
        (e) =>
          codeIs("io_error")(e) &&
          /no JetStream stream on 127\.0\.0\.1:\d+ captures the subject other\.subject/.test(
            (e as Error).message,
          ),
      );
    });
    await withStream(async (s) => {
      const ok = await publishNatsCloudEvent(`nats://ci:s3cret@${s.server}/empiric.proofs`, ev);
      assert.equal(ok.seq, 1);
      // Repeatedly: the server resets each refused connection, which must never surface as an
      // uncaught ECONNRESET after the io_error (it did, about once in a hundred).
      for (let i = 0; i < 100; i++) {
        await assert.rejects(
          publishNatsCloudEvent(`nats://ci:wrong@${s.server}/empiric.proofs`, ev, {
            timeoutMs: 3000,
          }),
          (e) => codeIs("io_error")(e) && (e as Error).message.includes(s.server),
        );
      }
    }, { user: "ci", pass: "s3cret" });
    const closed = await startNatsServer();
    const where = closed.server;
    await closed.close();
    await assert.rejects(
      publishNatsCloudEvent(`nats://${where}/empiric.proofs`, ev, { timeoutMs: 3000 }),
      (e) =>
        codeIs("io_error")(e) &&
        (e as Error).message.startsWith(`cannot connect to the NATS server ${where}`),
    );
  },
});

Deno.test({
  name: "NATS: the producer span's traceparent travels as a message header",
  ignore: !available,
  fn: () =>
    withStream(async (s, nc) => {
      const exporter = new InMemorySpanExporter();
      const provider = new TracerProvider({
        spanProcessors: [new SimpleSpanProcessor({ exporter })],
      });
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(provider);
      let spans;
      try {
        const ev = await wrap(fixtureText("valid.json"), { source: "urn:x" });
        await publishNatsCloudEvent(`nats://${s.server}/empiric.proofs`, ev);
        await provider.forceFlush();
        spans = exporter.getFinishedSpans(); // (shutting the exporter down empties it)
      } finally {
        await provider.shutdown();
        trace.disable();
        context.disable();
        propagation.disable();
      }
      assert.equal(spans.length, 1);
      const [span] = spans;
      assert.equal(span.name, "publish empiric.proofs");
      assert.equal(span.attributes["messaging.system"], "nats");
      assert.equal(span.attributes["server.port"], s.port);
      const [m] = await consumeAll(nc, 1);
      assert.equal(
        m.headers?.get("traceparent"),
        `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
      );
    }),
});

Deno.test({
  name: "CLI: run --events-url nats://..., export cloudevent --post nats://... --mode binary",
  ignore: !available,
  fn: () =>
    withStream(async (s, nc) => {
      const url = `nats://${s.server}/empiric.proofs.ci`;
      const run = await runCli([
        "run",
        "arithmetic-accuracy",
        "--substrate",
        "builtin:calculator",
        "--no-store",
        "-q",
        "--json",
        "--events-url",
        url,
        "--events-mode",
        "binary",
      ], { env: { EMPIRIC_SIGN_KEY: new TextDecoder().decode(TEST_SIGN_KEY) } });
      assert.equal(run.code, 0, run.stderr);
      const proofId = JSON.parse(run.stdout).proof_id;
      const posted = await runCli([
        "export",
        "cloudevent",
        `${RECORDS}valid.json`,
        "--post",
        url,
      ]);
      assert.equal(posted.code, 0, posted.stderr);
      assert.match(
        posted.stdout,
        /^published [0-9a-f]{64} to nats:\/\/127\.0\.0\.1:\d+\/empiric\.proofs\.ci \(structured mode\): stream PROOFS seq 2\n$/,
      );
      const [m1, m2] = await consumeAll(nc, 2);
      const r1 = unwrapNats({ headers: m1.headers, data: m1.data });
      assert.equal(r1.identity.proof_id, proofId);
      assert.equal(
        (await verifyRecord(r1 as unknown as JsonValue, {
          key: TEST_SIGN_KEY,
        })).verified,
        true,
      );
      assert.equal(m1.headers?.get("ce-id"), proofId);
      const r2 = unwrapNats({ headers: m2.headers, data: m2.data });
      assert.equal(
        (await verifyRecord(r2 as unknown as JsonValue, { key: FIXTURE_KEY })).verified,
        true,
      );
      // Usage errors come before any work.
      const bad = await runCli([
        "export",
        "cloudevent",
        `${RECORDS}valid.json`,
        "--post",
        `nats://${s.server}`,
      ]);
      assert.equal(bad.code, 64, bad.stderr);
      assert.match(bad.stderr, /--post: the NATS URL .* names no subject/);
      const ok = await runCli(["import", "cloudevent", "-", "--key", FIXTURE_KEY_TEXT], {
        stdin: new TextDecoder().decode(
          toNatsMessage(
            await wrap(fixtureText("valid.json"), {
              source: "urn:x",
            }),
          ).data,
        ),
      });
      assert.equal(ok.code, 0, ok.stderr);
    }),
});
