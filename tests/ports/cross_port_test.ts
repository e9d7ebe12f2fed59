// "A record that verifies under any port verifies under all ports": records made by
// `empiric run` verify in the Rust, Python and Node ports; tampered copies fail in all of them;
// and a differential fuzz gives identical canonical bytes (or identical error codes) in
// TypeScript, Rust and Python.
//
// Needs cargo, python3 and node. Without them these tests are reported as ignored, and
// `EMPIRIC_REQUIRE_ALL=1` (CI) turns a missing toolchain into a failure.
import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalize, parseJson, prettyJson } from "../../src/json/mod.ts";
import { runScenarioForTest } from "../support/ops.ts";
import { signRecord } from "../../src/record/mod.ts";
import { wireValue } from "../support/arbitraries.ts";
import { ROOT, testEnv } from "../support/env.ts";
import { buildRustPort, RUST_PORT_BIN } from "../support/peers.ts";

async function has(cmd: string): Promise<boolean> {
  try {
    return (await new Deno.Command(cmd, { args: ["--version"], stdout: "null", stderr: "null" })
      .output()).success;
  } catch {
    return false;
  }
}
const ready = (await has("cargo")) && (await has("python3")) && (await has("node"));
if (!ready && Deno.env.get("EMPIRIC_REQUIRE_ALL") === "1") {
  throw new Error("cargo, python3 and node are required");
}
const KEY_TEXT = "empiric-cross-port-test-key-0123456789";
const KEY = new TextEncoder().encode(KEY_TEXT);
const RUST_BIN = RUST_PORT_BIN;

let built = false;
async function build(): Promise<void> {
  if (built) return;
  await buildRustPort();
  const npm = await new Deno.Command(Deno.execPath(), {
    args: ["task", "build:npm"],
    cwd: ROOT,
    stdout: "null",
    stderr: "inherit",
  }).output();
  assert.ok(npm.success, "deno task build:npm");
  built = true;
}

interface PortRun {
  code: number;
  out: string;
}
async function run(
  cmd: string,
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): Promise<PortRun> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: ROOT,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: opts.env,
  }).spawn();
  // Write and read at once: a child blocked on a full stdout pipe would never drain stdin.
  const feed = opts.stdin === undefined ? Promise.resolve() : (async () => {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  })();
  const [o] = await Promise.all([child.output(), feed]);
  return {
    code: o.code,
    out: new TextDecoder().decode(o.stdout) + new TextDecoder().decode(o.stderr),
  };
}

const PORTS: Record<string, (args: string[], stdin?: string) => Promise<PortRun>> = {
  rust: (a, s) => run(RUST_BIN, a, { stdin: s }),
  python: (a, s) =>
    run("python3", ["-m", "empiric_proof", ...a], {
      stdin: s,
      env: { PYTHONPATH: `${ROOT}ports/python/src` },
    }),
  node: (a, s) => run("node", [`${ROOT}dist/npm/cli.mjs`, ...a], { stdin: s }),
};

async function records(): Promise<Record<string, string>> {
  const dir = await Deno.makeTempDir({ prefix: "empiric-ports-" });
  const env = await testEnv();
  const out: Record<string, string> = {};
  for (const s of ["arithmetic-accuracy", "sentiment-accuracy", "echo-latency"]) {
    const r = await runScenarioForTest({ scenario: s }, { env, key: KEY });
    out[s] = `${dir}/${s}.json`;
    await Deno.writeTextFile(out[s], prettyJson(r.output.record as never));
  }
  const det = await runScenarioForTest({ scenario: "arithmetic-accuracy" }, {
    env: await testEnv({ SOURCE_DATE_EPOCH: "1795000000" }),
    key: KEY,
  });
  out.deterministic = `${dir}/det.json`;
  await Deno.writeTextFile(out.deterministic, canonicalize(det.output.record as never));
  // int threshold, integral floats, big ints and non-ASCII text through every port (the
  // deciding pillar keeps the claim's threshold, so the verdict stays consistent with it)
  const odd = structuredClone(det.output.record) as unknown as Record<
    string,
    Record<string, unknown>
  >;
  (odd.claim.threshold as Record<string, unknown>).value = 0n;
  (odd.verdict.threshold as Record<string, unknown>).value = 0n;
  for (const e of Object.values(odd.provenance.entity as Record<string, Record<string, unknown>>)) {
    if (e["empiric:deciding"] === true) e["empiric:threshold"] = 0n;
  }
  odd.claim.statement = 'Ünïcödé ✓ 😀 claim with "quotes" and \\ backslashes';
  (odd.reproduction.environment as Record<string, unknown>).big = "9223372036854775807";
  const signed = await signRecord(odd as never, KEY);
  out.odd = `${dir}/odd.json`;
  await Deno.writeTextFile(out.odd, prettyJson(signed as never));
  return out;
}

Deno.test({
  name: "records made by empiric run verify in the Rust, Python and Node ports",
  ignore: !ready,
}, async () => {
  await build();
  const files = await records();
  const keyFile = await Deno.makeTempFile();
  await Deno.writeTextFile(keyFile, KEY_TEXT + "\n");
  for (const [port, f] of Object.entries(PORTS)) {
    const r = await f(["verify", ...Object.values(files), "--key-file", keyFile]);
    assert.equal(r.code, 0, `${port}: ${r.out}`);
    assert.equal(r.out.match(/^OK /gm)?.length, Object.keys(files).length, `${port}: ${r.out}`);
    const wrong = await f(["verify", files.odd, "--key", "x".repeat(40)]);
    assert.equal(wrong.code, 2, `${port} rejects the wrong key`);
    assert.match(wrong.out, /signature_mismatch/);
  }
});

// Every leaf of the record changed in turn: all ports must reject every copy.
function leaves(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (v !== null && typeof v === "object" && !(typeof v === "bigint")) {
    return Object.entries(v as object).flatMap(([k, x]) =>
      leaves(x, [...path, Array.isArray(v) ? Number(k) : k])
    );
  }
  return [path];
}
function mutate(v: unknown): unknown {
  if (typeof v === "string") return v + "x";
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v + 1; // a float becomes an int
  if (typeof v === "bigint") return Number(v); // an int becomes a float
  if (typeof v === "boolean") return !v;
  return "tampered";
}

Deno.test(
  { name: "a record tampered in any field fails in every port", ignore: !ready },
  async () => {
    await build();
    const { deterministic } = await records();
    const original = parseJson(await Deno.readTextFile(deterministic)) as Record<string, unknown>;
    const dir = await Deno.makeTempDir();
    const paths = leaves(original).filter((p) => p[0] !== "signature");
    const files: string[] = [];
    for (const [i, p] of paths.entries()) {
      const copy = structuredClone(original);
      let cur = copy as Record<string | number, unknown>;
      for (const s of p.slice(0, -1)) cur = cur[s] as Record<string | number, unknown>;
      const last = p.at(-1)!;
      cur[last] = mutate(cur[last]);
      files.push(`${dir}/t${i}.json`);
      await Deno.writeTextFile(files.at(-1)!, canonicalize(copy as never));
    }
    assert.ok(files.length > 60, `${files.length} tampered copies`);
    for (const [port, f] of Object.entries(PORTS)) {
      const r = await f(["verify", ...files, "--key", KEY_TEXT]);
      assert.equal(r.code, 2, port);
      const fails = r.out.match(/^FAIL /gm)?.length ?? 0;
      assert.equal(
        fails,
        files.length,
        `${port}: every tampered copy fails (${fails}/${files.length})\n${
          r.out.split("\n").filter((l) => l.startsWith("OK")).join("\n")
        }`,
      );
    }
  },
);

Deno.test({
  name:
    "differential: 10,000 random values give identical canonical bytes in TypeScript, Rust and Python",
  ignore: !ready,
}, async () => {
  await build();
  const values = fc.sample(wireValue, { numRuns: 10_000, seed: 424242 });
  const texts = values.map((v, i) =>
    i % 2 === 0 ? canonicalize(v) : prettyJson(v).replace(/\n\s*/g, " ")
  );
  // plus invalid inputs, which must give the same error code everywhere
  const invalid = [
    '{"a":1,"a":2}',
    "[1e400]",
    '"\\ud800"',
    "9223372036854775808",
    "[01]",
    "[NaN]",
    '{"a":1,"a":1e400}',
    "[".repeat(600),
  ];
  const all = [...texts, ...invalid];
  const expected = all.map((t) => {
    try {
      return canonicalize(parseJson(t));
    } catch (e) {
      return "!" + (e as { code: string }).code;
    }
  });
  const input = all.join("\n") + "\n";
  for (const port of ["rust", "python"] as const) {
    const r = await PORTS[port](["canon-lines"], input);
    assert.equal(r.code, 0, port);
    const lines = r.out.split("\n").slice(0, all.length);
    let same = 0;
    for (let i = 0; i < all.length; i++) {
      assert.equal(lines[i], expected[i], `${port} line ${i}: ${all[i].slice(0, 200)}`);
      same++;
    }
    assert.equal(same, 10_008);
  }
});

Deno.test({
  name: "public-key DSSE envelopes: every port gives the shared vectors' verdicts and codes",
  ignore: !ready,
  fn: async () => {
    await build();
    const dir = `${ROOT}fixtures/attestations/`;
    const manifest = JSON.parse(await Deno.readTextFile(`${dir}cases.json`)) as {
      cases: {
        envelope: string;
        public_keys: string[];
        expect: { verified: boolean; reason: string | null; signers: string[] };
      }[];
    };
    for (const c of manifest.cases) {
      const args = ["verify-dsse", `${dir}${c.envelope}`];
      for (const k of c.public_keys) args.push("--public-key", `${dir}${k}`);
      for (const [port, exec] of Object.entries(PORTS)) {
        const r = await exec(args);
        const what = `${port}: ${c.envelope} with ${c.public_keys.join(", ")}: ${r.out}`;
        if (c.expect.verified) {
          assert.equal(r.code, 0, what);
          assert.match(
            r.out,
            new RegExp(`^OK .* signed by ${c.expect.signers.join(", ")}\\n`),
            what,
          );
        } else {
          assert.equal(r.code, 2, what);
          assert.match(r.out, new RegExp(`^FAIL .*: ${c.expect.reason}: `), what);
        }
      }
    }
  },
});

Deno.test({
  name: "fixtures/records: every port's verifying CLI gives each case's result (verdict flips too)",
  ignore: !ready,
  fn: async () => {
    await build();
    const dir = `${ROOT}fixtures/records/`;
    const manifest = JSON.parse(await Deno.readTextFile(`${dir}cases.json`)) as {
      keys_utf8: Record<string, string>;
      cases: { file: string; key: string | null; expect: string }[];
    };
    assert.ok(manifest.cases.some((c) => c.expect === "verdict_inconsistent" && c.key === null));
    for (const c of manifest.cases) {
      const args = ["verify", `${dir}${c.file}`];
      if (c.key !== null) args.push("--key", manifest.keys_utf8[c.key]);
      for (const [port, exec] of Object.entries(PORTS)) {
        const r = await exec(args);
        const what = `${port}: ${c.file} key=${c.key}: ${r.out}`;
        if (c.expect === "valid") {
          assert.equal(r.code, 0, what);
          assert.match(r.out, /^OK /m, what);
        } else {
          assert.equal(r.code, 2, what);
          // The Node port reports the TypeScript core's schema_invalid where the other ports
          // say record_structure (a structural subset of the schema).
          const codes = c.expect === "record_structure"
            ? "(record_structure|schema_invalid)"
            : c.expect;
          assert.match(r.out, new RegExp(`^FAIL .*: ${codes}: `, "m"), what);
        }
      }
    }
  },
});
