// The composite GitHub Action (action.yml) run as a runner would run it, step by step, with a
// simulated GITHUB_* environment: each `run` step's script in bash with the step's `env` (inputs
// and step outputs substituted as the runner does), GITHUB_OUTPUT / GITHUB_PATH /
// GITHUB_STEP_SUMMARY files carried between steps. The release download is served by a local
// server standing in for the release host (its "binary" runs this checkout, since `deno compile`
// cannot fetch its runtime here); the Deno fallback uses the Deno running these tests.
import assert from "node:assert/strict";
import { parse } from "yaml";

const ROOT = new URL("../../", import.meta.url).pathname;
const KEY = "empiric-action-test-signing-key-0123456789";

interface Step {
  name: string;
  id?: string;
  if?: string;
  shell?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(await Deno.readTextFile(`${ROOT}action.yml`)) as Action;

/** A `${{ … }}` expression as the runner evaluates the few kinds the action uses. */
function evaluate(
  expr: string,
  ctx: {
    inputs: Record<string, string>;
    github: Record<string, string>;
    steps: Record<string, Record<string, string>>;
  },
): string {
  return expr.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, e: string) => {
    let m = /^inputs\.([\w-]+)$/.exec(e);
    if (m) return ctx.inputs[m[1]] ?? "";
    m = /^github\.(\w+)$/.exec(e);
    if (m) return ctx.github[m[1]] ?? "";
    m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
    if (m) return ctx.steps[m[1]]?.[m[2]] ?? "";
    throw new Error(`expression not simulated: ${e}`);
  });
}

function readKv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const i = line.indexOf("=");
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

interface Simulation {
  code: number;
  failedStep?: string;
  outputs: Record<string, Record<string, string>>;
  logs: string;
  summary: string;
  workspace: string;
  uploads: Record<string, string>[];
}

/** Run the action's steps like a runner. */
async function simulate(
  inputs: Record<string, string>,
  opts: { server: string; ref?: string },
): Promise<Simulation> {
  const workspace = await Deno.makeTempDir({ prefix: "empiric-action-" });
  const runnerTemp = `${workspace}/_temp`;
  await Deno.mkdir(runnerTemp);
  const files = {
    GITHUB_STEP_SUMMARY: `${runnerTemp}/step_summary`,
    GITHUB_PATH: `${runnerTemp}/path`,
    GITHUB_ENV: `${runnerTemp}/env`,
  };
  for (const f of Object.values(files)) await Deno.writeTextFile(f, "");
  const all: Record<string, string> = {};
  for (const [k, v] of Object.entries(action.inputs)) all[k] = inputs[k] ?? v.default ?? "";
  for (const [k, v] of Object.entries(action.inputs)) {
    if (v.required) assert.ok(all[k], `required input ${k}`);
  }
  const ctx = {
    inputs: all,
    github: { action_ref: opts.ref ?? "v9.9.9", action_repository: "empiric-dev/empiric" },
    steps: {} as Record<string, Record<string, string>>,
  };
  const denoDir = Deno.execPath().replace(/\/[^/]+$/, "");
  let logs = "";
  const uploads: Record<string, string>[] = [];
  let code = 0;
  let failedStep: string | undefined;
  for (const step of action.runs.steps) {
    if (step.uses) {
      // `if: always() && …`: evaluated with always() true; the upload itself is GitHub's.
      const cond = (step.if ?? "").replace(/^\$\{\{\s*|\s*\}\}$/g, "");
      const m = /always\(\) && inputs\.upload == 'true' && steps\.(\w+)\.outputs\.(\w+) != ''/.exec(
        cond,
      );
      assert.ok(m, `condition of ${step.name} simulated: ${cond}`);
      if (all.upload === "true" && ctx.steps[m[1]]?.[m[2]]) {
        uploads.push(
          Object.fromEntries(
            Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(v, ctx)]),
          ),
        );
      }
      continue;
    }
    if (code !== 0) break; // a failed step stops the rest (no always() on run steps)
    assert.equal(step.shell, "bash");
    const outputFile = `${runnerTemp}/output_${step.id ?? "x"}`;
    await Deno.writeTextFile(outputFile, "");
    const extraPath = (await Deno.readTextFile(files.GITHUB_PATH)).split("\n").filter(Boolean)
      .reverse();
    const env: Record<string, string> = {
      PATH: [...extraPath, denoDir, "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
      HOME: Deno.env.get("HOME") ?? "/root",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: ROOT.replace(/\/$/, ""),
      GITHUB_SERVER_URL: opts.server,
      GITHUB_ACTION_REPOSITORY: ctx.github.action_repository,
      GITHUB_ACTION_REF: ctx.github.action_ref,
      RUNNER_OS: "Linux",
      RUNNER_ARCH: "X64",
      RUNNER_TEMP: runnerTemp,
      GITHUB_OUTPUT: outputFile,
      ...files,
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = evaluate(v, ctx);
    const out = await new Deno.Command("bash", {
      args: ["-c", step.run!],
      cwd: workspace,
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    logs += `--- ${step.name} (exit ${out.code})\n${text}`;
    if (step.id) ctx.steps[step.id] = readKv(await Deno.readTextFile(outputFile));
    if (out.code !== 0) {
      code = out.code;
      failedStep = step.name;
    }
  }
  return {
    code,
    failedStep,
    outputs: ctx.steps,
    logs,
    summary: await Deno.readTextFile(files.GITHUB_STEP_SUMMARY),
    workspace,
    uploads,
  };
}

/** A stand-in release host: `/<repo>/releases/download/<tag>/<asset>`. */
function releaseServer(mode: "good" | "bad-checksum" | "missing") {
  const binary =
    `#!/usr/bin/env bash\n# stand-in for the compiled empiric binary\nexec "${Deno.execPath()}" run --quiet --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys "${ROOT}cli.ts" "$@"\n`;
  const bytes = new TextEncoder().encode(binary);
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    requests.push(path);
    if (mode === "missing") return new Response("not found", { status: 404 });
    if (path === "/empiric-dev/empiric/releases/download/v9.9.9/empiric-linux-x86_64") {
      return new Response(bytes);
    }
    if (path === "/empiric-dev/empiric/releases/download/v9.9.9/empiric-linux-x86_64.sha256") {
      const hash = mode === "good"
        ? Array.from(
          new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
          (b) => b.toString(16).padStart(2, "0"),
        ).join("")
        : "0".repeat(64);
      return new Response(`${hash}  empiric-linux-x86_64\n`);
    }
    return new Response("not found", { status: 404 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, requests, close: () => server.shutdown() };
}

Deno.test("action.yml: a composite action whose scripts take inputs only from the environment", () => {
  assert.equal(action.runs.using, "composite");
  for (const step of action.runs.steps) {
    if (step.run) {
      assert.doesNotMatch(step.run, /\$\{\{/, `${step.name}: no expression pasted into the script`);
      assert.match(step.run, /^bash "\$GITHUB_ACTION_PATH\/\.github\/action\/[a-z]+\.sh"$/);
    }
  }
  const upload = action.runs.steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
  assert.ok(upload, "the bundle is uploaded");
  for (const out of ["outcome", "proof-id", "record", "report", "bundle"]) {
    assert.ok(action.outputs[out], out);
  }
});

Deno.test({
  name:
    "the action installs the release binary (checksum checked), runs, summarizes, and passes on VALIDATED",
  sanitizeResources: false,
  fn: async () => {
    const release = releaseServer("good");
    try {
      const s = await simulate({ scenario: "echo-latency", "sign-key": KEY }, {
        server: release.url,
      });
      assert.equal(s.code, 0, s.logs);
      assert.equal(s.outputs.install.method, "release", s.logs);
      assert.deepEqual(release.requests, [
        "/empiric-dev/empiric/releases/download/v9.9.9/empiric-linux-x86_64",
        "/empiric-dev/empiric/releases/download/v9.9.9/empiric-linux-x86_64.sha256",
      ]);
      assert.equal(s.outputs.run.outcome, "VALIDATED");
      assert.match(s.outputs.run["proof-id"], /^[0-9a-f]{64}$/);
      assert.match(s.summary, /^## ✅ VALIDATED: echo-latency on builtin:echo/);
      const bundle = `${s.workspace}/${s.outputs.run.bundle}`;
      for (const f of ["record.json", "report.html", "junit.xml", "summary.md"]) {
        assert.ok((await Deno.stat(`${bundle}/${f}`)).size > 100, f);
      }
      const record = JSON.parse(await Deno.readTextFile(`${bundle}/record.json`));
      assert.equal(record.identity.proof_id, s.outputs.run["proof-id"]);
      assert.deepEqual(s.uploads, [{
        name: "empiric-proof",
        path: "empiric-out",
        "if-no-files-found": "error",
      }]);
      // The runner consumes ::add-mask:: lines (and hides the value everywhere after them).
      assert.match(s.logs, new RegExp(`::add-mask::${KEY}`));
      const shown = s.logs.split("\n").filter((l) => !l.startsWith("::add-mask::")).join("\n");
      assert.doesNotMatch(shown, new RegExp(KEY.slice(8)), "the key is not printed");
    } finally {
      await release.close();
    }
  },
});

Deno.test({
  name:
    "a binary that fails its checksum is refused: Deno runs the checkout; fail-on fails the step on REFUTED after the upload",
  sanitizeResources: false,
  fn: async () => {
    const release = releaseServer("bad-checksum");
    try {
      const s = await simulate(
        {
          scenario: "sentiment-accuracy",
          "sign-key": KEY,
          "fail-on": "refuted",
          "deno-version": Deno.version.deno,
        },
        { server: release.url },
      );
      assert.match(s.logs, /does not match its SHA-256/);
      assert.equal(s.outputs.install.method, "deno", s.logs);
      assert.equal(s.outputs.run.outcome, "REFUTED");
      assert.equal(s.code, 3, s.logs);
      assert.equal(s.failedStep, "Decide by the verdict");
      assert.match(s.logs, /::error title=empiric::sentiment-accuracy: REFUTED/);
      assert.match(s.summary, /❌ REFUTED/);
      assert.equal(s.uploads.length, 1, "uploaded before the step fails");
    } finally {
      await release.close();
    }
  },
});

Deno.test({
  name:
    "no release binary: Deno fallback; fail-on none passes whatever the verdict; a bad fail-on is an error",
  sanitizeResources: false,
  fn: async () => {
    const release = releaseServer("missing");
    try {
      const ok = await simulate(
        {
          scenario: "sentiment-accuracy",
          "sign-key": KEY,
          "fail-on": "none",
          "deno-version": Deno.version.deno,
          upload: "false",
        },
        { server: release.url, ref: "main" },
      );
      assert.equal(ok.outputs.install.method, "deno", ok.logs);
      assert.ok(
        release.requests[0].startsWith("/empiric-dev/empiric/releases/latest/download/"),
        release.requests[0],
      );
      assert.equal(ok.code, 0, ok.logs);
      assert.deepEqual(ok.uploads, []);
      const bad = await simulate(
        {
          scenario: "echo-latency",
          "sign-key": KEY,
          "fail-on": "sometimes",
          "deno-version": Deno.version.deno,
        },
        { server: release.url },
      );
      assert.equal(bad.code, 2, bad.logs);
      assert.match(bad.logs, /fail-on must be/);
      const failedRun = await simulate(
        { scenario: "no-such-scenario", "sign-key": KEY, "deno-version": Deno.version.deno },
        { server: release.url },
      );
      assert.notEqual(failedRun.code, 0);
      assert.equal(failedRun.failedStep, "Run the scenario");
      assert.match(failedRun.logs, /::error title=empiric::empiric run no-such-scenario failed/);
    } finally {
      await release.close();
    }
  },
});
