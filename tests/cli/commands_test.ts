// The CLI loads a command's module only when it runs; the table that lists the others for
// `--help` must say what the modules say.
import assert from "node:assert/strict";
import { commandOf, COMMANDS } from "../../src/cli/main.ts";
import { denoHost } from "../../src/cli/deno_host.ts";
import { denoOpsEnvironment } from "../../src/ops/deno_env.ts";

Deno.test("the command table names each command once, with the summary its module gives", async () => {
  const names = COMMANDS.map((c) => c.name);
  assert.equal(new Set(names).size, names.length);
  for (const entry of COMMANDS) {
    const made = (await entry.load())({
      host: denoHost(),
      opsEnv: denoOpsEnvironment,
      setExit: () => {},
    });
    const commands = Array.isArray(made) ? made : [made];
    assert.deepEqual(commands.map((c) => c.name()), [entry.name], entry.name);
    const c = commands[0];
    const summary = c.summary() || c.description().split("\n")[0];
    assert.equal(entry.summary, summary, `${entry.name}: the table's summary`);
  }
});

Deno.test("commandOf: the first word that is not an option; help <name> asks for <name>", () => {
  assert.equal(commandOf(["run", "x", "--json"]), "run");
  assert.equal(commandOf(["--quiet", "schema", "info"]), "schema");
  assert.equal(commandOf(["help", "run"]), "run");
  assert.equal(commandOf(["--help"]), undefined);
});

Deno.test("option-parsing errors go through the error table: usage_error, exit 64, did you mean", async () => {
  const { runCli } = await import("../support/run_cli.ts");
  const typo = await runCli(["run", "demo", "--outt", "x.json"]);
  assert.equal(typo.code, 64);
  assert.equal(
    typo.stderr,
    "empiric: usage_error: unknown option '--outt' (did you mean --out?)\n",
  );
  const command = await runCli(["scenarioss"]);
  assert.equal(command.code, 64);
  assert.match(
    command.stderr,
    /^empiric: usage_error: unknown command 'scenarioss' \(did you mean scenarios\?\)\n$/,
  );
  const missing = await runCli(["schema", "info"]);
  assert.equal(missing.code, 64);
  assert.match(missing.stderr, /^empiric: usage_error: missing required argument/);
  assert.doesNotMatch(missing.stderr + typo.stderr, /^error:/m);
});

Deno.test("shared options are declared once, in src/cli/options.ts", async () => {
  const dir = new URL("../../src/cli/commands/", import.meta.url);
  const repeated: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const text = await Deno.readTextFile(new URL(e.name, dir));
    for (const flag of ["--key <", "--key-file <", "--store <", "--port <", "--scenario-dir <"]) {
      if (text.includes(`"${flag}`)) repeated.push(`${e.name}: ${flag}`);
    }
  }
  assert.deepEqual(repeated, []);
});
