// A record verified over HTTP (the real server, on a loopback port) gives the same answer as
// verifyProofImpl, the CLI (`schema validate --json`) and the Rust and Python ports, for every
// valid, tampered and malformed record of fixtures/records/.
import assert from "node:assert/strict";
import { verifyProofImpl } from "../../src/ops/verify_proof.ts";
import {
  childEnv,
  FIXTURE_KEY,
  FIXTURE_KEY_TEXT,
  PROBLEM_MEMBERS,
  RECORDS,
  ROOT,
  runEntry,
  startServer,
} from "./support.ts";
import { buildRustPort, cargoAvailable, RUST_PORT_BIN } from "../support/peers.ts";

const manifest = JSON.parse(await Deno.readTextFile(`${RECORDS}cases.json`)) as {
  cases: { file: string; key: string | null; expect: string }[];
};
const files = [...new Set(manifest.cases.map((c) => c.file))].sort();
// The ports name a missing section record_structure; the TypeScript core says schema_invalid.
const sameReason = (a: string | null, b: string | null) =>
  (a === "record_structure" ? "schema_invalid" : a) ===
    (b === "record_structure" ? "schema_invalid" : b);

Deno.test({
  name: "POST /verify over HTTP = verifyProofImpl = CLI = Rust and Python ports, for every record",
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const server = await startServer(["http", "serve", "--port", "0", "--store", `${dir}/s`], {
      env: { EMPIRIC_SIGN_KEY: FIXTURE_KEY_TEXT },
      cwd: dir,
    });
    const http: Record<string, { status: number; result: Record<string, unknown> }> = {};
    try {
      for (const file of files) {
        const text = await Deno.readTextFile(`${RECORDS}${file}`);
        const res = await fetch(`${server.url}/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ proof_json: text }),
        });
        const body = await res.json() as Record<string, unknown>;
        const result = Object.fromEntries(
          Object.entries(body).filter(([k]) => res.status === 200 || !PROBLEM_MEMBERS.includes(k)),
        );
        http[file] = { status: res.status, result };
        // 1. The shared implementation: the same object, member for member.
        assert.deepEqual(result, await verifyProofImpl(text, { key: FIXTURE_KEY }), file);
        const checks = result.checks as Record<string, string>;
        const expected = checks.parse === "fail" ? 400 : checks.schema === "fail" ? 422 : 200;
        assert.equal(res.status, expected, `${file}: status`);
      }
    } finally {
      assert.equal((await server.stop()).code, 0);
    }

    // 2. The CLI: `schema validate --recursive --json` prints the same object plus path and ok.
    const cli = await runEntry([
      "schema",
      "validate",
      RECORDS,
      "--recursive",
      "--json",
      "--key",
      FIXTURE_KEY_TEXT,
    ]);
    const byFile = new Map<string, Record<string, unknown>>();
    for (const line of cli.stdout.trim().split("\n")) {
      const o = JSON.parse(line) as Record<string, unknown>;
      if (typeof o.path === "string") {
        const { path, ok: _ok, ...rest } = o;
        byFile.set((path as string).split("/").at(-1)!, rest);
      }
    }
    for (const file of files) assert.deepEqual(http[file].result, byFile.get(file), `CLI ${file}`);

    // 3. The ports: OK exactly when verified, and the same failure code.
    const ports: Record<string, [string, string[], Record<string, string>]> = {
      python: ["python3", ["-m", "empiric_proof"], { PYTHONPATH: `${ROOT}ports/python/src` }],
    };
    if (await cargoAvailable()) {
      await buildRustPort();
      ports.rust = [RUST_PORT_BIN, [], {}];
    }
    for (const [port, [cmd, pre, env]] of Object.entries(ports)) {
      const out = await new Deno.Command(cmd, {
        args: [...pre, "verify", ...files.map((f) => `${RECORDS}${f}`), "--key", FIXTURE_KEY_TEXT],
        env: childEnv(env),
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
      assert.equal(lines.length, files.length, `${port}: ${new TextDecoder().decode(out.stderr)}`);
      for (const line of lines) {
        const m = /^(OK|FAIL) (\S+?):? (?:(\S+?): )?/.exec(line)!;
        const file = m[2].split("/").at(-1)!;
        const r = http[file].result;
        assert.equal(m[1] === "OK", r.verified, `${port} ${file}: ${line}`);
        if (m[1] === "FAIL") {
          assert.ok(sameReason(m[3], r.reason as string), `${port} ${file}: ${line}`);
        }
      }
    }

    // 4. The fixture manifest's expectations for the server's key.
    for (const c of manifest.cases.filter((c) => c.key === "test")) {
      const r = http[c.file].result;
      if (c.expect === "valid") assert.equal(r.verified, true, c.file);
      else assert.ok(sameReason(r.reason as string, c.expect), `${c.file}: ${r.reason}`);
    }
  },
});
