// OpenLineage 2.0: every event and every facet validated against the official schemas (and
// empiric's facet schemas), the SPEC's mapping, the lifecycle functions, posting to a
// loopback collector, and `empiric run --lineage-url` (START, RUNNING..., COMPLETE / FAIL).
import assert from "node:assert/strict";
import { validate as uuidValidate, version as uuidVersion } from "uuid";
import {
  DEFAULT_NAMESPACE,
  FACET_SCHEMA_URLS,
  newRunId,
  OPENLINEAGE_PRODUCER,
  OPENLINEAGE_PRODUCER_URL_BASE,
  OPENLINEAGE_SCHEMA_URL,
  openLineageEventJson,
  OpenLineageRunEmitter,
  postOpenLineageEvent,
  proofRunId,
  PROOFS_NAMESPACE,
  PROOFSVC_RUNID_NAMESPACE,
  toOpenLineageCompleteEvent,
  toOpenLineageEvent,
  toOpenLineageFailEvent,
  toOpenLineageRunningEvent,
  toOpenLineageStartEvent,
} from "../../src/export/openlineage.ts";
import { parseJson } from "../../src/json/parse.ts";
import type { JsonObject } from "../../src/json/value.ts";
import { EmpiricError } from "../../src/errors/errors.ts";
import { runCli } from "../support/run_cli.ts";
import {
  fixtureText,
  openLineageValidator,
  plain,
  RECORDS,
  resignedFixture,
  ROUND_TRIP_FIXTURES,
  startReceiver,
} from "./support.ts";

const ol = openLineageValidator();

type Ev = Record<string, unknown> & {
  eventType: string;
  eventTime: string;
  run: { runId: string; facets: Record<string, Record<string, unknown>> };
  job: { namespace: string; name: string; facets?: Record<string, Record<string, unknown>> };
  inputs?: { namespace: string; name: string; facets: Record<string, Record<string, unknown>> }[];
  outputs?: { namespace: string; name: string; facets: Record<string, Record<string, unknown>> }[];
};

/** Validate an event and each of its facets against the schema its _schemaURL names. */
function assertValidEvent(event: unknown): Ev {
  // Schemas see the JSON as any consumer parses it; the checks below read exact values.
  const parsed = JSON.parse(openLineageEventJson(event as never));
  const ev = plain(event) as Ev;
  assert.deepEqual(ol.event(parsed), [], "RunEvent schema");
  assert.equal(ev.schemaURL, OPENLINEAGE_SCHEMA_URL);
  assert.equal(ev.producer, OPENLINEAGE_PRODUCER);
  const p = parsed as Ev;
  const containers: [string, Record<string, Record<string, unknown>> | undefined][] = [
    ["run", p.run.facets],
    ["job", p.job.facets],
    ...(p.inputs ?? []).map((d) => [`input ${d.name}`, d.facets] as [string, typeof d.facets]),
    ...(p.outputs ?? []).map((d) => [`output ${d.name}`, d.facets] as [string, typeof d.facets]),
  ];
  let n = 0;
  for (const [where, facets] of containers) {
    for (const [key, f] of Object.entries(facets ?? {})) {
      n++;
      assert.equal(typeof f._producer, "string", `${where}.${key}._producer`);
      assert.equal(typeof f._schemaURL, "string", `${where}.${key}._schemaURL`);
      assert.equal(f._schemaURL, FACET_SCHEMA_URLS[key as keyof typeof FACET_SCHEMA_URLS]);
      const [file, pointer] = (f._schemaURL as string).split("#");
      // The facet file wraps the facet under its key; validate through the file itself.
      assert.deepEqual(ol.facet(file, { [key]: f }), [], `${where}.${key} against ${file}`);
      assert.match(pointer, /^\/\$defs\/\w+Facet$/);
    }
  }
  assert.ok(n > 0);
  return ev;
}

Deno.test("constants", () => {
  assert.equal(DEFAULT_NAMESPACE, "empiric");
  assert.equal(PROOFS_NAMESPACE, "empiric.proofs");
  assert.equal(
    OPENLINEAGE_SCHEMA_URL,
    "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
  );
  assert.ok(OPENLINEAGE_PRODUCER.startsWith(OPENLINEAGE_PRODUCER_URL_BASE + "/"));
  assert.ok(uuidValidate(PROOFSVC_RUNID_NAMESPACE));
});

for (const name of ROUND_TRIP_FIXTURES) {
  Deno.test(`toOpenLineageEvent: the SPEC's mapping, valid against the schemas: ${name}`, async () => {
    const text = fixtureText(name);
    const record = parseJson(text) as JsonObject;
    const id = (record.identity as JsonObject).proof_id as string;
    const ev = assertValidEvent(await toOpenLineageEvent(text));
    const verdict = record.verdict as JsonObject;
    assert.equal(ev.eventType, "COMPLETE"); // VALIDATED and REFUTED both complete
    assert.equal(ev.eventTime, (record.identity as JsonObject).created_at);
    // runId: UUIDv5 of the proof_id under the pinned namespace, the same every time.
    assert.equal(ev.run.runId, proofRunId(id));
    assert.equal(uuidVersion(ev.run.runId), 5);
    assert.equal((await toOpenLineageEvent(text)).run.runId, ev.run.runId);
    assert.equal(ev.job.namespace, "empiric");
    assert.equal(ev.job.name, (record.evidence as JsonObject[])[0].pillar);
    // inputs: one per dataset with dataSource and empiric_dataset
    const datasets = (record.data as JsonObject).datasets as JsonObject[];
    assert.equal(ev.inputs!.length, datasets.length);
    for (const [i, d] of datasets.entries()) {
      const input = ev.inputs![i];
      assert.equal(input.facets.dataSource.name, d.name);
      assert.equal(input.facets.empiric_dataset.content_hash, d.content_hash);
      assert.equal(String(input.facets.empiric_dataset.n_records), String(d.n_records));
      assert.equal(input.facets.empiric_dataset.source, d.source);
    }
    // outputs: exactly one, the proof, with a schema facet of the nine sections
    assert.equal(ev.outputs!.length, 1);
    assert.equal(ev.outputs![0].namespace, "empiric.proofs");
    assert.equal(ev.outputs![0].name, id);
    const fields = (ev.outputs![0].facets.schema.fields as { name: string }[]).map((f) => f.name);
    assert.deepEqual(fields, [
      "identity",
      "claim",
      "pre_registration",
      "data",
      "evidence",
      "verdict",
      "reproduction",
      "provenance",
      "signature",
    ]);
    // custom facets: claim, verdict with the section 9 signature
    const claim = ev.run.facets.empiric_claim;
    assert.equal(claim.statement, (record.claim as JsonObject).statement);
    assert.equal(claim.config_hash, (record.pre_registration as JsonObject).config_hash);
    const v = ev.run.facets.empiric_verdict;
    assert.equal(v.outcome, verdict.outcome);
    assert.equal(v.proof_id, id);
    assert.equal(v.signature, (record.signature as JsonObject).signature);
    assert.equal(v.reasoning, verdict.reasoning);
    assert.equal(ev.job.facets!.jobType.processingType, "BATCH");
  });
}

Deno.test("INCONCLUSIVE gives FAIL; options job name, namespace, event time", async () => {
  const inconclusive = await resignedFixture("valid.json", (r) => {
    (r.verdict as JsonObject).outcome = "INCONCLUSIVE";
  });
  const ev = assertValidEvent(
    await toOpenLineageEvent(inconclusive, {
      jobName: "nightly",
      namespace: "team-a",
      eventTime: "2026-11-23T10:00:00Z",
    }),
  );
  assert.equal(ev.eventType, "FAIL");
  assert.equal(ev.run.facets.empiric_verdict.outcome, "INCONCLUSIVE");
  assert.equal(ev.run.facets.empiric_error, undefined);
  assert.equal(ev.job.name, "nightly");
  assert.equal(ev.job.namespace, "team-a");
  assert.equal(ev.eventTime, "2026-11-23T10:00:00Z");
  const refuted = await toOpenLineageEvent(fixtureText("valid-refuted-int-threshold.json"));
  assert.equal(refuted.eventType, "COMPLETE");
  await assert.rejects(
    toOpenLineageEvent(fixtureText("valid.json"), { namespace: "" }),
    (e) => e instanceof EmpiricError && e.code === "usage_error",
  );
  await assert.rejects(
    toOpenLineageEvent(fixtureText("tampered-float-to-int.json")),
    (e) => e instanceof EmpiricError && e.code === "proof_id_mismatch",
  );
});

Deno.test("lifecycle functions: START, RUNNING, COMPLETE, FAIL under one runId", async () => {
  const runId = newRunId();
  assert.ok(uuidValidate(runId));
  assert.equal(uuidVersion(runId), 7);
  assert.notEqual(newRunId(), runId);
  const record = parseJson(fixtureText("valid.json")) as JsonObject;
  const claim = record.claim as never;
  const start = assertValidEvent(
    toOpenLineageStartEvent({
      runId,
      scenario: "latency-p95",
      claim,
      datasets: [
        { name: "requests", source: "fixtures/corpora/requests.jsonl", kind: "corpus" },
        { name: "remote", source: "https://data.example/x/y.jsonl?v=2", kind: "reference" },
      ],
      analysisPlan: "statistic=quantile(p=0.95)",
    }),
  );
  assert.equal(start.eventType, "START");
  assert.equal(start.job.name, "latency-p95");
  assert.equal(start.run.facets.empiric_claim.analysis_plan, "statistic=quantile(p=0.95)");
  assert.equal(start.run.facets.empiric_claim.scenario, "latency-p95");
  assert.deepEqual(start.inputs!.map((i) => [i.namespace, i.name]), [
    ["file", "fixtures/corpora/requests.jsonl"],
    ["https://data.example", "/x/y.jsonl?v=2"],
  ]);
  assert.equal(start.inputs![1].facets.dataSource.uri, "https://data.example/x/y.jsonl?v=2");
  assert.equal(start.outputs, undefined);

  const running = assertValidEvent(
    toOpenLineageRunningEvent({
      runId,
      scenario: "latency-p95",
      progress: {
        percent_complete: 0.25,
        cycles_completed: 50,
        cycles_total: 200,
        message: "measure: 50 of 200",
      },
    }),
  );
  assert.equal(running.eventType, "RUNNING");
  assert.deepEqual(
    { ...running.run.facets.empiric_progress, _producer: 0, _schemaURL: 0 },
    {
      _producer: 0,
      _schemaURL: 0,
      percent_complete: 0.25,
      cycles_completed: 50,
      cycles_total: 200,
      message: "measure: 50 of 200",
    },
  );

  const complete = assertValidEvent(
    await toOpenLineageCompleteEvent({ runId, proof: fixtureText("valid.json") }),
  );
  assert.equal(complete.eventType, "COMPLETE");
  assert.equal(complete.run.runId, runId);
  assert.equal(complete.job.name, "latency-p95"); // the scenario, as in START
  assert.equal(complete.outputs![0].name, (record.identity as JsonObject).proof_id);

  const fail = assertValidEvent(
    toOpenLineageFailEvent({
      runId,
      scenario: "latency-p95",
      errorMessage: "cannot start nope",
      errorType: "substrate_unavailable",
    }),
  );
  assert.equal(fail.eventType, "FAIL");
  assert.deepEqual(
    { ...fail.run.facets.empiric_error, _producer: 0, _schemaURL: 0 },
    {
      _producer: 0,
      _schemaURL: 0,
      error_message: "cannot start nope",
      error_type: "substrate_unavailable",
    },
  );
  assert.equal(fail.run.facets.errorMessage.message, "cannot start nope");
  assert.ok(Date.parse(fail.eventTime) > 0);
});

Deno.test("event JSON keeps floats as floats and big ints exact", async () => {
  const json = openLineageEventJson(await toOpenLineageEvent(fixtureText("valid.json")));
  assert.match(json, /"value":50\.0/);
  const big = openLineageEventJson(
    await toOpenLineageEvent(fixtureText("valid-refuted-int-threshold.json")),
  );
  assert.match(big, /"n_records":9007199254740993/);
  assert.match(big, /"value":30[,}]/);
  // JSON.stringify works as well (ints are PyInt).
  assert.match(
    JSON.stringify(await toOpenLineageEvent(fixtureText("valid.json"))),
    /"n_records":200/,
  );
});

Deno.test("posting: JSON to a loopback collector; the emitter keeps order and throttles heartbeats", async () => {
  const collector = startReceiver((r) => r.path === "/broken" ? 500 : 201);
  try {
    const ev = await toOpenLineageEvent(fixtureText("valid.json"));
    assert.equal(
      await postOpenLineageEvent(`${collector.url}/api/v1/lineage`, ev, { apiKey: "k" }),
      201,
    );
    const r0 = collector.requests[0];
    assert.equal(r0.path, "/api/v1/lineage");
    assert.equal(r0.headers["content-type"], "application/json");
    assert.equal(r0.headers.authorization, "Bearer k");
    assertValidEvent(parseJson(r0.body));
    await assert.rejects(
      postOpenLineageEvent(`${collector.url}/broken`, ev),
      (e) => e instanceof EmpiricError && e.code === "io_error",
    );

    let clock = 0;
    const errors: Error[] = [];
    const em = new OpenLineageRunEmitter(`${collector.url}/api/v1/lineage`, {
      heartbeatMs: 1000,
      monotonic: () => clock,
      onError: (e) => errors.push(e),
    });
    const record = parseJson(fixtureText("valid.json")) as JsonObject;
    em.progress({ phase: "measure", done: 1, total: 10, failures: 0 }); // before START: ignored
    await em.start({
      scenario: "latency-p95",
      claim: record.claim as never,
      datasets: [{ name: "requests", source: "a.jsonl", kind: "corpus" }],
      analysis_plan: "plan",
    });
    for (let i = 1; i <= 10; i++) {
      clock += 300;
      em.progress({ phase: "measure", done: i, total: 10, failures: i > 8 ? 1 : 0 });
    }
    em.progress({ phase: "analyze", done: 0, total: 2000, failures: 0 });
    em.progress({ phase: "done", done: 1, total: 1, failures: 0 });
    await em.complete(fixtureText("valid.json"));
    await em.fail(new Error("after the end: ignored"));
    assert.equal(errors.length, 0, errors.map((e) => e.message).join());
    const events = collector.requests.slice(2).map((r) => assertValidEvent(parseJson(r.body)));
    assert.deepEqual(events.map((e) => e.eventType), [
      "START",
      "RUNNING", // measure begins (t = 300 ms)
      "RUNNING", // first progress at least 1000 ms later (t = 1500)
      "RUNNING", // ... and again (t = 2700)
      "RUNNING", // analyze begins
      "COMPLETE",
    ]);
    assert.ok(events.every((e) => e.run.runId === em.runId));
    const progress = events.slice(1, 5).map((e) => e.run.facets.empiric_progress);
    assert.deepEqual(progress.map((p) => p.cycles_completed), [1, 5, 9, 0]);
    assert.deepEqual(progress.map((p) => p.phase), ["measure", "measure", "measure", "analyze"]);
    assert.equal(progress[0].percent_complete, 0.1);

    // A collector that fails does not stop the run: the error is reported.
    const failing = new OpenLineageRunEmitter(`${collector.url}/broken`, {
      onError: (e) => errors.push(e),
    });
    await failing.start({
      scenario: "s",
      claim: record.claim as never,
      datasets: [],
      analysis_plan: "",
    });
    await failing.fail(new EmpiricError("substrate_unavailable", "no such program"));
    assert.equal(errors.length, 2);
    assert.match(errors[0].message, /answered 500 to the START event/);
    const last = assertValidEvent(parseJson(collector.requests.at(-1)!.body));
    assert.equal(last.eventType, "FAIL");
    assert.equal(last.run.facets.empiric_error.error_type, "substrate_unavailable");
  } finally {
    await collector.close();
  }
});

Deno.test("empiric run --lineage-url: START, RUNNING..., COMPLETE as the run goes", async () => {
  const collector = startReceiver();
  const sink = startReceiver();
  try {
    const r = await runCli([
      "run",
      "arithmetic-accuracy",
      "--substrate",
      "builtin:calculator",
      "--no-store",
      "--json",
      "--key",
      "empiric-test-signing-key-0123456789abcdef",
      "--lineage-url",
      `${collector.url}/api/v1/lineage`,
      "--lineage-namespace",
      "ci",
      "--events-url",
      `${sink.url}/events`,
      "--events-mode",
      "binary",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    const events = collector.requests.map((q) => assertValidEvent(parseJson(q.body)));
    const types = events.map((e) => e.eventType);
    assert.equal(types[0], "START");
    assert.equal(types.at(-1), "COMPLETE");
    assert.ok(types.slice(1, -1).length >= 1, `no RUNNING heartbeat: ${types}`);
    assert.ok(types.slice(1, -1).every((t) => t === "RUNNING"), String(types));
    assert.equal(new Set(events.map((e) => e.run.runId)).size, 1);
    assert.equal(uuidVersion(events[0].run.runId), 7);
    assert.ok(
      events.every((e) => e.job.name === "arithmetic-accuracy" && e.job.namespace === "ci"),
    );
    assert.equal(typeof events[0].run.facets.empiric_claim.statement, "string");
    assert.ok(events[0].inputs!.length >= 1);
    assert.equal(events[1].run.facets.empiric_progress.phase !== undefined, true);
    const complete = events.at(-1)!;
    assert.equal(complete.outputs![0].name, result.proof_id);
    assert.equal(complete.run.facets.empiric_verdict.outcome, result.outcome);
    // The CloudEvent of the proof reached the sink in binary mode.
    assert.equal(sink.requests.length, 1);
    assert.equal(sink.requests[0].headers["ce-id"], result.proof_id);
    assert.equal(sink.requests[0].headers["content-type"], "application/json");
  } finally {
    await collector.close();
    await sink.close();
  }
});

Deno.test("empiric run --lineage-url: a substrate that cannot start gives START then FAIL", async () => {
  const collector = startReceiver();
  try {
    const r = await runCli([
      "run",
      "arithmetic-accuracy",
      "--substrate",
      "cmd:empiric-no-such-program-xyz --serve",
      "--no-store",
      "--key",
      "empiric-test-signing-key-0123456789abcdef",
      "--lineage-url",
      `${collector.url}/lineage`,
    ]);
    assert.equal(r.code, 69, r.stderr);
    assert.match(r.stderr, /^empiric: substrate_unavailable: /m);
    const events = collector.requests.map((q) => assertValidEvent(parseJson(q.body)));
    assert.deepEqual(events.map((e) => e.eventType), ["START", "FAIL"]);
    assert.equal(events[0].run.runId, events[1].run.runId);
    const err = events[1].run.facets.empiric_error;
    assert.equal(err.error_type, "substrate_unavailable");
    assert.match(err.error_message as string, /empiric-no-such-program-xyz/);
    assert.equal(events[1].job.name, "arithmetic-accuracy");

    // A lineage collector that is down does not fail the run.
    const down = await runCli([
      "run",
      "arithmetic-accuracy",
      "--substrate",
      "builtin:calculator",
      "--no-store",
      "-q",
      "--key",
      "empiric-test-signing-key-0123456789abcdef",
      "--lineage-url",
      "http://127.0.0.1:9/lineage",
    ]);
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stderr, /warning: lineage: cannot POST the OpenLineage START event/);

    const bad = await runCli(["run", "arithmetic-accuracy", "--lineage-url", "not a url"]);
    assert.equal(bad.code, 64);
  } finally {
    await collector.close();
  }
});

Deno.test("CLI: export openlineage [--job-name] [--namespace] [--post]", async () => {
  const collector = startReceiver();
  try {
    const r = await runCli([
      "export",
      "openlineage",
      `${RECORDS}valid.json`,
      "--job-name",
      "latency",
      "--namespace",
      "prod",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const ev = assertValidEvent(parseJson(r.stdout));
    assert.equal(ev.job.name, "latency");
    assert.equal(ev.job.namespace, "prod");
    assert.match(r.stdout, /"value": 50\.0/);
    const p = await runCli([
      "export",
      "openlineage",
      `${RECORDS}valid.json`,
      "--post",
      `${collector.url}/api/v1/lineage`,
    ]);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^posted COMPLETE [0-9a-f-]{36} to /);
    assertValidEvent(parseJson(collector.requests[0].body));
  } finally {
    await collector.close();
  }
});
