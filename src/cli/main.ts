/**
 * The `empiric` command line: builds the command tree and maps errors to exit codes.
 *
 * @module
 */
import { Command, CommanderError } from "@commander-js/extra-typings";
import { EXIT } from "../errors/codes.ts";
import { asEmpiricError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { canonicalizeCommand } from "./commands/canonicalize.ts";
import { schemaCommand } from "./commands/schema.ts";
import { mcpCommand } from "./commands/mcp.ts";
import { proofsCommand, runCommand, scenariosCommand } from "./commands/run.ts";
import { exportCommands } from "./commands/export.ts";
import { httpCommand } from "./commands/http.ts";
import { keyCommands } from "./commands/keys.ts";
import { registerCommand } from "./commands/register.ts";
import { planCommand } from "./commands/plan.ts";
import { auditCommand } from "./commands/audit.ts";
import type { OpsEnvironment } from "../ops/environment.ts";
import type { AnyCommand, CliHost } from "./host.ts";

/**
 * Run the CLI with arguments (without the program name); returns the exit code.
 *
 * @example
 * ```ts ignore
 * import { main } from "./main.ts";
 * import { denoHost } from "./deno_host.ts";
 * Deno.exit(await main(Deno.args, denoHost()));
 * ```
 */
export async function main(
  args: string[],
  host: CliHost,
  opsEnv: () => Promise<OpsEnvironment> = async () =>
    (await import("../ops/deno_env.ts")).denoOpsEnvironment(),
): Promise<number> {
  let exitCode: number = EXIT.ok;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const program = new Command("empiric")
    .description(
      "empiric: test falsifiable claims against systems and keep signed Empirical Proof Records.",
    )
    .version(`empiric ${EMPIRIC_VERSION}`, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => host.stdout(s),
      writeErr: (s) => host.stderr(s),
    });
  program.addCommand(schemaCommand(host, setExit));
  program.addCommand(canonicalizeCommand(host, opsEnv));
  program.addCommand(runCommand(host, opsEnv, setExit));
  program.addCommand(scenariosCommand(host, opsEnv));
  program.addCommand(planCommand(host, opsEnv));
  program.addCommand(auditCommand(host, opsEnv, setExit));
  program.addCommand(proofsCommand(host, opsEnv));
  for (const c of exportCommands(host, setExit)) program.addCommand(c);
  for (const c of keyCommands(host)) program.addCommand(c);
  program.addCommand(registerCommand(host, opsEnv));
  program.addCommand(httpCommand(host));
  program.addCommand(mcpCommand(host));
  applyToAll(
    program,
    (c) =>
      c.exitOverride().configureOutput({
        writeOut: (s) => host.stdout(s),
        writeErr: (s) => host.stderr(s),
      }),
  );

  try {
    await program.parseAsync(args, { from: "user" });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === "commander.helpDisplayed" || e.code === "commander.version" ||
        e.code === "commander.help"
      ) {
        return EXIT.ok;
      }
      if (e.code === "commander.executeSubCommandAsync") return EXIT.internal;
      return EXIT.usage;
    }
    // Standard output closed by its reader (`empiric … | head`): stop quietly, as Unix tools do.
    if (isBrokenPipe(e)) return EXIT.pipe;
    const err = asEmpiricError(e);
    host.stderr(`empiric: ${err.code}: ${err.message}\n`);
    if (err.code === "internal_error") {
      host.stderr("empiric: this is a bug; please report it with the command that caused it\n");
      if (host.env("EMPIRIC_DEBUG")) host.stderr(String((e as Error)?.stack ?? e) + "\n");
    }
    return err.exitCode;
  }
}

function isBrokenPipe(e: unknown): boolean {
  for (let x = e, i = 0; x instanceof Error && i < 5; x = (x as { cause?: unknown }).cause, i++) {
    if (x.name === "BrokenPipe" || /broken pipe/i.test(x.message)) return true;
  }
  return false;
}

function applyToAll(cmd: AnyCommand, f: (c: AnyCommand) => void): void {
  for (const c of cmd.commands) {
    f(c as AnyCommand);
    applyToAll(c as AnyCommand, f);
  }
}
