// A shared registry on PostgreSQL, end to end with the real entry points: two `http serve`
// processes on one database ingesting concurrently (and running scenarios), concurrent
// `empiric run` processes, `empiric push`, `store migrate`, `store copy` both ways, TLS, and a
// database that cannot be reached.
import assert from "node:assert/strict";
import { prettyJson } from "../../src/json/pretty.ts";
import type { JsonValue } from "../../src/json/value.ts";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
import { openStore } from "../../src/store/store.ts";
import { TEST_SIGN_KEY } from "../support/env.ts";
import { type PgServer, postgresAvailable, startPostgres } from "../support/postgres.ts";
import { makeRecord, manyRecords, recordBytes } from "../support/records.ts";
import { runCli } from "../support/run_cli.ts";
import { startServer } from "../http/support.ts";

const available = await postgresAvailable();
const KEY_TEXT = new TextDecoder().decode(TEST_SIGN_KEY);
const TOKEN = "registry-test-token-0123456789";
const dec = new TextDecoder();

function pgTest(name: string, fn: (pg: PgServer) => Promise<void>) {
  Deno.test({
    name,
    ignore: !available,
    fn: async () => {
      const pg = await startPostgres();
      try {
        await fn(pg);
      } finally {
        await pg.stop();
      }
    },
  });
}

pgTest(
  "two http serve processes on one database ingest concurrently as one registry",
  async (pg) => {
    const url = await pg.database();
    const args = [
      "http",
      "serve",
      "--port",
      "0",
      "--store",
      url,
      "--key",
      KEY_TEXT,
      "--token",
      TOKEN,
    ];
    // Started together on a fresh database: both migrate, under the lock, once.
    const servers = await Promise.all([startServer(args), startServer(args)]);
    try {
      const records = await manyRecords(48, { substrate: "builtin:pushed" });
      // Each record goes to both servers at once, from 8 concurrent clients.
      const jobs = records.flatMap((r, i) =>
        servers.map((s, j) => ({ r, server: s, text: prettyJson(r as unknown as JsonValue), i, j }))
      );
      const statuses: number[] = [];
      let next = 0;
      const client = async () => {
        while (next < jobs.length) {
          const job = jobs[next++];
          const res = await fetch(`${job.server.url}/proofs`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
            body: JSON.stringify({ proof_json: job.text }),
          });
          statuses.push(res.status);
          await res.body?.cancel();
        }
      };
      // Scenario runs on both servers while the ingest goes on.
      const runs = servers.map(async (s) => {
        const res = await fetch(`${s.url}/runs`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ scenario: "arithmetic-accuracy" }),
        });
        assert.equal(res.status, 201);
        return (await res.json()).proof_id as string;
      });
      await Promise.all([...Array.from({ length: 8 }, client), ...runs]);
      const runIds = await Promise.all(runs);
      assert.equal(statuses.filter((s) => s === 201).length, 48, "each record created once");
      assert.equal(statuses.filter((s) => s === 200).length, 48, "and found there once");
      assert.equal(statuses.length, 96);
      // Both servers see the same registry: 48 pushed plus 2 runs, each once.
      for (const s of servers) {
        const page = await (await fetch(`${s.url}/proofs?limit=1000`)).json();
        assert.equal(page.total, 50);
        const ids = page.entries.map((e: { proof_id: string }) => e.proof_id);
        assert.equal(new Set(ids).size, 50);
        for (const id of runIds) assert.ok(ids.includes(id));
      }
      // Every record fetched back (from the other server) is the bytes pushed, and verifies.
      for (const [i, r] of records.entries()) {
        const res = await fetch(`${servers[(i + 1) % 2].url}/proofs/${r.identity.proof_id}`);
        const text = await res.text();
        assert.equal(text, prettyJson(r as unknown as JsonValue));
        assert.equal((await verifyProofImpl(text, { key: TEST_SIGN_KEY })).verified, true);
      }
    } finally {
      for (const s of servers) await s.stop();
    }
  },
);

pgTest(
  "concurrent runs into PostgreSQL: no lost or doubled row, one predecessor for all",
  async (pg) => {
    const url = await pg.database();
    // Two earlier proofs of the scenario on the same substrate, created in the same second:
    // the predecessor is the one with the greater proof_id, whatever the interleaving.
    const store = await openStore(url);
    let winner: string;
    try {
      const seeds = [
        await makeRecord({ createdAt: "2031-01-01T00:00:00Z", outcome: "VALIDATED" }),
        await makeRecord({ createdAt: "2031-01-01T00:00:00Z", outcome: "REFUTED" }),
      ];
      for (const s of seeds) await store.put(s);
      winner = seeds.map((s) => s.identity.proof_id).sort().at(-1)!;
    } finally {
      await store.close();
    }
    // Runs dated before the seeds (SOURCE_DATE_EPOCH), so the seeds stay the newest. Three runs
    // are identical (one proof_id: one row), three differ by substrate name.
    const names = ["same", "same", "same", "calc-a", "calc-b", "calc-c"];
    const results = await Promise.all(names.map((n) =>
      runCli(
        [
          "run",
          "arithmetic-accuracy",
          "--store",
          url,
          "-q",
          "--json",
          "--substrate-name",
          n,
          "--substrate-commit",
          "abc",
        ],
        { env: { EMPIRIC_SIGN_KEY: KEY_TEXT, SOURCE_DATE_EPOCH: "1790000000" } },
      )
    ));
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const ids = results.map((r) => JSON.parse(r.stdout).proof_id as string);
    assert.equal(new Set(ids).size, 4);
    const list = await runCli(["proofs", "list", "--store", url, "--json", "--limit", "100"]);
    assert.equal(list.code, 0, list.stderr);
    const page = JSON.parse(list.stdout);
    assert.equal(page.total, 6, "two seeds and four distinct runs");
    assert.doesNotMatch(list.stdout, /empiric-test-password/, "no password in the output");
    assert.match(page.store, /^postgresql:\/\/empiric@127\.0\.0\.1:\d+\/t/);
    for (const id of new Set(ids)) {
      const show = await runCli(["proofs", "show", id, "--store", url]);
      assert.equal(show.code, 0, show.stderr);
      const rec = JSON.parse(show.stdout);
      assert.deepEqual(rec.reproduction.lineage_chain, [winner]);
    }
  },
);

pgTest("push, store migrate and store copy both ways, every record verified", async (pg) => {
  const url = await pg.database();
  const dir = await Deno.makeTempDir({ prefix: "empiric-copy-" });
  // A directory store with records, one with its observations and scenario.
  const obs = new TextEncoder().encode('{"id":"1","value":2.0}\n');
  const scenario = { name: "copied", minimum: 3n } as unknown as JsonValue;
  const sealed = await makeRecord({ second: 1, observations: obs, scenarioValue: scenario });
  const plain = await manyRecords(5, { substrate: "builtin:copy" });
  const src = await openStore(`${dir}/store`);
  try {
    await src.putBytes(recordBytes(sealed), {
      observations: obs,
      scenario: new TextEncoder().encode(prettyJson(scenario)),
    });
    for (const r of plain) await src.put(r);
  } finally {
    await src.close();
  }
  // store migrate creates the schema; a second time there is nothing to do.
  const m1 = await runCli(["store", "migrate", "--store", url, "--json"]);
  assert.equal(m1.code, 0, m1.stderr);
  assert.deepEqual(JSON.parse(m1.stdout).applied, [1, 2]);
  const m2 = await runCli(["store", "migrate", "--store", url]);
  assert.match(m2.stdout, /schema version 2 \(up to date\)/);
  // Copy into PostgreSQL, twice (the second finds everything there).
  const env = { EMPIRIC_SIGN_KEY: KEY_TEXT };
  const c1 = await runCli(["store", "copy", "--from", `${dir}/store`, "--to", url, "--json"], {
    env,
  });
  assert.equal(c1.code, 0, c1.stderr);
  const r1 = JSON.parse(c1.stdout);
  assert.deepEqual([r1.records, r1.copied, r1.already_there, r1.parts, r1.failed], [
    6,
    6,
    0,
    2,
    [],
  ]);
  const c2 = await runCli(["store", "copy", "--from", `${dir}/store`, "--to", url], { env });
  assert.equal(c2.code, 0, c2.stderr);
  assert.match(c2.stdout, /copied 0 of 6 records .* \(6 already there/);
  // And back into a new directory: the same bytes, parts beside the record.
  const back = `${dir}/back`;
  const c3 = await runCli(["store", "copy", "--from", url, "--to", back], { env });
  assert.equal(c3.code, 0, c3.stderr);
  const id = sealed.identity.proof_id;
  assert.deepEqual(await Deno.readFile(`${back}/${id}.json`), recordBytes(sealed));
  assert.deepEqual(await Deno.readFile(`${back}/${id}.observations.jsonl`), obs);
  assert.equal(await Deno.readTextFile(`${back}/${id}.scenario.json`), prettyJson(scenario));
  for (const r of plain) {
    assert.deepEqual(
      await Deno.readFile(`${back}/${r.identity.proof_id}.json`),
      await Deno.readFile(`${dir}/store/${r.identity.proof_id}.json`),
    );
  }
  // A record that does not verify under the key is listed and left behind (exit 2).
  const tampered = `${dir}/tampered`;
  await Deno.mkdir(tampered);
  const bad = prettyJson({ ...plain[0], signature: { signature: "1".repeat(64) } } as never);
  await Deno.writeTextFile(`${tampered}/${plain[0].identity.proof_id}.json`, bad);
  await Deno.writeTextFile(
    `${tampered}/${plain[1].identity.proof_id}.json`,
    prettyJson(plain[1] as never),
  );
  const other = await pg.database();
  const c4 = await runCli(["store", "copy", "--from", tampered, "--to", other], { env });
  assert.equal(c4.code, 2, c4.stderr);
  assert.match(
    c4.stderr,
    new RegExp(`not copied: ${plain[0].identity.proof_id}: signature_mismatch`),
  );
  assert.match(c4.stdout, /copied 1 of 2 records/);
  // push: a server on the database; the record file with its parts beside it.
  const server = await startServer([
    "http",
    "serve",
    "--port",
    "0",
    "--store",
    other,
    "--key",
    KEY_TEXT,
    "--token",
    TOKEN,
  ]);
  try {
    await Deno.writeFile(`${dir}/rec.json`, recordBytes(sealed));
    await Deno.writeFile(`${dir}/rec.observations.jsonl`, obs);
    await Deno.writeTextFile(`${dir}/rec.scenario.json`, prettyJson(scenario));
    const p1 = await runCli(["push", `${dir}/rec.json`, "--to", server.url], {
      env: { EMPIRIC_HTTP_TOKEN: TOKEN },
    });
    assert.equal(p1.code, 0, p1.stderr);
    assert.match(
      p1.stdout,
      /^stored {2}.*rec\.json \(with observations, scenario\) {2}http:\/\/.*\/proofs\/[0-9a-f]{64}\n$/,
    );
    const p2 = await runCli([
      "push",
      `${dir}/rec.json`,
      "--to",
      server.url,
      "--token",
      TOKEN,
      "--json",
    ]);
    assert.equal(p2.code, 0, p2.stderr);
    assert.equal(JSON.parse(p2.stdout).results[0].created, false);
    const noToken = await runCli(["push", `${dir}/rec.json`, "--to", server.url]);
    assert.equal(noToken.code, 77, noToken.stderr);
    assert.match(noToken.stderr, /not stored: .*rec\.json: unauthorized/);
    await Deno.writeTextFile(`${dir}/bad.json`, bad);
    const p3 = await runCli(["push", `${dir}/bad.json`, "--to", server.url, "--token", TOKEN]);
    assert.equal(p3.code, 2, p3.stderr);
    assert.match(p3.stderr, /signature_mismatch/);
    const got = await fetch(`${server.url}/proofs/${id}`);
    assert.deepEqual(new Uint8Array(await got.arrayBuffer()), recordBytes(sealed));
  } finally {
    await server.stop();
  }
});

pgTest(
  "an unreachable or unprepared database is reported plainly, without the password",
  async (pg) => {
    const url = await pg.database();
    // Read-only commands do not create the schema.
    const list = await runCli(["proofs", "list", "--store", url]);
    assert.equal(list.code, 66, list.stderr);
    assert.match(list.stderr, /^empiric: not_found: no proof store in postgresql:\/\/empiric@127/);
    // Nothing listens on this port.
    const dead = url.replace(/:(\d+)\//, ":1/");
    const r = await runCli(["proofs", "list", "--store", dead]);
    assert.equal(r.code, 69, r.stderr);
    assert.match(
      r.stderr,
      /^empiric: store_unavailable: cannot use the proof store postgresql:\/\/empiric@127\.0\.0\.1:1\//,
    );
    assert.doesNotMatch(r.stderr, /empiric-test-password/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    const wrongPw = url.replace("empiric-test-password", "wrong");
    const w = await runCli(["proofs", "list", "--store", wrongPw]);
    assert.equal(w.code, 69, w.stderr);
    assert.match(w.stderr, /password authentication failed/);
    const unknown = await runCli(["proofs", "list", "--store", `${url}?sslmod=require`]);
    assert.equal(unknown.code, 64, unknown.stderr);
    assert.match(unknown.stderr, /unknown connection parameter sslmod/);
    // A server whose database is unreachable says so at start.
    const s = await runCli(["http", "serve", "--port", "0", "--store", dead, "--key", KEY_TEXT]);
    assert.equal(s.code, 69, s.stderr);
    assert.match(s.stderr, /store_unavailable/);
  },
);

Deno.test({
  name: "TLS: sslmode=verify-full checks the server against sslrootcert; a wrong root is refused",
  ignore: !available,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "empiric-tls-" });
    const ssl = async (...args: string[]) => {
      const out = await new Deno.Command("openssl", { args, cwd: dir, stderr: "piped" }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
    };
    await ssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=empiric-test-ca",
    );
    await ssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=localhost",
    );
    await Deno.writeTextFile(`${dir}/ext.cnf`, "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    await ssl(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.crt",
      "-days",
      "2",
      "-extfile",
      "ext.cnf",
    );
    await ssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "other.key",
      "-out",
      "other.pem",
      "-days",
      "2",
      "-subj",
      "/CN=other-ca",
    );
    const pg = await startPostgres({
      tls: {
        cert: await Deno.readTextFile(`${dir}/server.crt`),
        key: await Deno.readTextFile(`${dir}/server.key`),
      },
    });
    try {
      const good = await pg.database(`sslmode=verify-full&sslrootcert=${dir}/ca.pem`);
      const r = await runCli(["store", "migrate", "--store", good]);
      assert.equal(r.code, 0, r.stderr);
      // The server accepts TCP connections over TLS only (hostssl): this one is encrypted.
      const store = await openStore(good);
      try {
        await store.put(await makeRecord({ second: 3 }));
      } finally {
        await store.close();
      }
      const check = pg.sql(new URL(good).pathname.slice(1));
      try {
        const [{ n }] = await check`SELECT count(*)::int AS n FROM empiric_records`;
        assert.equal(n, 1);
      } finally {
        await check.end();
      }
      const wrong = good.replace("ca.pem", "other.pem");
      const w = await runCli(["proofs", "list", "--store", wrong]);
      assert.equal(w.code, 69, w.stderr);
      assert.match(w.stderr, /store_unavailable: .*(certificate|verify)/i);
      const required = good.replace(/\?.*$/, "?sslmode=require");
      const q = await runCli(["proofs", "list", "--store", required, "--json"]);
      assert.equal(q.code, 0, q.stderr);
      assert.equal(JSON.parse(q.stdout).total, 1);
      const plain = good.replace(/\?.*$/, "?sslmode=disable");
      const p = await runCli(["proofs", "list", "--store", plain]);
      assert.equal(p.code, 69, p.stderr);
      assert.match(p.stderr, /no encryption/);
      const missing = good.replace("ca.pem", "absent.pem");
      const m = await runCli(["proofs", "list", "--store", missing]);
      assert.equal(m.code, 64, m.stderr);
      assert.match(m.stderr, /root certificate \(sslrootcert\) .*absent\.pem does not exist/);
      assert.ok(dec.decode(await Deno.readFile(`${dir}/ca.pem`)).includes("BEGIN CERTIFICATE"));
    } finally {
      await pg.stop();
    }
  },
});
