/**
 * The `empiric` command line: builds the command tree and maps errors to exit codes. Each
 * command's module (and everything behind it: the HTTP server, the MCP SDK, the exporters, the
 * statistics) loads only when that command runs; the others are listed from {@link COMMANDS}
 * for `--help` and "did you mean" (tests check that the table says what the modules say).
 *
 * @module
 */
import { Command, CommanderError } from "@commander-js/extra-typings";
import { EXIT } from "../errors/codes.ts";
import { asEmpiricError } from "../errors/errors.ts";
import { EMPIRIC_VERSION } from "../version.ts";
import { loadModule } from "../lazy/load.ts";
import type { OpsEnvironment } from "../ops/environment.ts";
import type { AnyCommand, CliHost } from "./host.ts";

/** What a command module's factory gets. */
export interface CommandDeps {
  host: CliHost;
  opsEnv: () => Promise<OpsEnvironment>;
  setExit: (code: number) => void;
}

/** One top-level command: its name, its line in `--help`, and how to load it. */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<(deps: CommandDeps) => AnyCommand | AnyCommand[]>;
  /**
   * The command builds the operations' environment: its one subprocess (`git rev-parse`, for
   * empiric's own commit) starts before the command's modules load and runs while they do.
   */
  warmEnvironment?: true;
}

const EXPORT_SUMMARIES: Record<string, string> = {
  export: "Export a record as CloudEvent, in-toto, DSSE, RO-Crate or OpenLineage",
  import: "Recover records from export formats",
  "verify-dsse": "Check a DSSE envelope and the Statement inside it",
};

const KEY_SUMMARIES: Record<string, string> = {
  keygen: "Make an Ed25519 or ECDSA P-256 key pair for signing attestations",
  keyid: "Print the key id of a public or private key file",
};

/** Every top-level command, in `--help` order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "schema",
    summary: "Inspect and validate proof record files",
    load: async () => {
      const m = await loadModule<typeof import("./commands/schema.ts")>(
        "./commands/schema.ts",
        import.meta.url,
      );
      return (d) => m.schemaCommand(d.host, d.setExit);
    },
  },
  {
    name: "canonicalize",
    summary: "Write the canonical bytes (or SHA-256) of any JSON value",
    load: async () => {
      const m = await loadModule<typeof import("./commands/canonicalize.ts")>(
        "./commands/canonicalize.ts",
        import.meta.url,
      );
      return (d) => m.canonicalizeCommand(d.host, d.opsEnv);
    },
  },
  {
    name: "run",
    summary: "Run a scenario against a substrate and write a signed proof record",
    warmEnvironment: true,
    load: async () => {
      const m = await loadModule<typeof import("./commands/run.ts")>(
        "./commands/run.ts",
        import.meta.url,
      );
      return (d) => m.runCommand(d.host, d.opsEnv, d.setExit);
    },
  },
  {
    name: "scenarios",
    summary: "List and show scenarios (built-in and ./scenarios/)",
    load: async () => {
      const m = await loadModule<typeof import("./commands/run.ts")>(
        "./commands/run.ts",
        import.meta.url,
      );
      return (d) => m.scenariosCommand(d.host, d.opsEnv);
    },
  },
  {
    name: "plan",
    summary: "Power and sample size for a scenario's claim, before running it",
    load: async () => {
      const m = await loadModule<typeof import("./commands/plan.ts")>(
        "./commands/plan.ts",
        import.meta.url,
      );
      return (d) => m.planCommand(d.host, d.opsEnv);
    },
  },
  {
    name: "audit",
    summary: "Recompute a proof's evidence and verdict from its observations",
    load: async () => {
      const m = await loadModule<typeof import("./commands/audit.ts")>(
        "./commands/audit.ts",
        import.meta.url,
      );
      return (d) => m.auditCommand(d.host, d.opsEnv, d.setExit);
    },
  },
  {
    name: "proofs",
    summary: "Read the proof store's index",
    load: async () => {
      const m = await loadModule<typeof import("./commands/run.ts")>(
        "./commands/run.ts",
        import.meta.url,
      );
      return (d) => m.proofsCommand(d.host, d.opsEnv);
    },
  },
  {
    name: "report",
    summary: "Write a record's report: HTML page, Markdown summary or JUnit XML",
    load: async () => {
      const m = await loadModule<typeof import("./commands/report.ts")>(
        "./commands/report.ts",
        import.meta.url,
      );
      return (d) => m.reportCommand(d.host, d.opsEnv);
    },
  },
  {
    name: "push",
    summary: "Send record files to a server's registry (POST /proofs)",
    load: async () => {
      const m = await loadModule<typeof import("./commands/store.ts")>(
        "./commands/store.ts",
        import.meta.url,
      );
      return (d) => m.pushCommand(d.host, d.opsEnv, d.setExit);
    },
  },
  {
    name: "store",
    summary: "Administer a proof store: migrate its schema, copy it (docs/store.md)",
    load: async () => {
      const m = await loadModule<typeof import("./commands/store.ts")>(
        "./commands/store.ts",
        import.meta.url,
      );
      return (d) => m.storeCommand(d.host, d.opsEnv, d.setExit);
    },
  },
  ...["export", "import", "verify-dsse"].map((name): CommandEntry => ({
    name,
    summary: EXPORT_SUMMARIES[name],
    load: async () => {
      const m = await loadModule<typeof import("./commands/export.ts")>(
        "./commands/export.ts",
        import.meta.url,
      );
      return (d) => m.exportCommands(d.host, d.setExit).filter((c) => c.name() === name);
    },
  })),
  ...["keygen", "keyid"].map((name): CommandEntry => ({
    name,
    summary: KEY_SUMMARIES[name],
    load: async () => {
      const m = await loadModule<typeof import("./commands/keys.ts")>(
        "./commands/keys.ts",
        import.meta.url,
      );
      return (d) => m.keyCommands(d.host).filter((c) => c.name() === name);
    },
  })),
  {
    name: "register",
    summary: "Sign a scenario's pre-registration before it runs",
    load: async () => {
      const m = await loadModule<typeof import("./commands/register.ts")>(
        "./commands/register.ts",
        import.meta.url,
      );
      return (d) => m.registerCommand(d.host, d.opsEnv);
    },
  },
  {
    name: "http",
    summary: "The HTTP API (docs/http.md)",
    warmEnvironment: true,
    load: async () => {
      const m = await loadModule<typeof import("./commands/http.ts")>(
        "./commands/http.ts",
        import.meta.url,
      );
      return (d) => m.httpCommand(d.host);
    },
  },
  {
    name: "mcp",
    summary: "The MCP tool server for AI agents (docs/mcp.md)",
    warmEnvironment: true,
    load: async () => {
      const m = await loadModule<typeof import("./commands/mcp.ts")>(
        "./commands/mcp.ts",
        import.meta.url,
      );
      return (d) => m.mcpCommand(d.host);
    },
  },
];

/**
 * The command a command line runs (its first word that is not an option; `help <name>` asks
 * for `<name>`), or undefined.
 */
export function commandOf(args: readonly string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

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
    (await loadModule<typeof import("../ops/deno_env.ts")>("../ops/deno_env.ts", import.meta.url))
      .denoOpsEnvironment(),
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
    .configureOutput(output(host));
  const wanted = commandOf(args);
  if (COMMANDS.some((e) => e.name === wanted && e.warmEnvironment)) {
    void loadModule<typeof import("../ops/deno_env.ts")>("../ops/deno_env.ts", import.meta.url)
      .then((m) => m.detectEmpiricCommit()).catch(() => undefined);
  }
  const deps: CommandDeps = { host, opsEnv, setExit };
  for (const entry of COMMANDS) {
    if (entry.name === wanted) {
      const made = (await entry.load())(deps);
      for (const c of Array.isArray(made) ? made : [made]) program.addCommand(c);
    } else {
      // Listed for --help and suggestions; loaded only when run.
      program.addCommand(new Command(entry.name).summary(entry.summary).allowUnknownOption());
    }
  }
  applyToAll(
    program,
    (c) => c.exitOverride().configureOutput(output(host)),
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

/** Commander's output, with its parse errors in the one error style of the error table. */
function output(host: CliHost) {
  return {
    writeOut: (s: string) => host.stdout(s),
    writeErr: (s: string) => host.stderr(s),
    outputError: (s: string) => host.stderr(usageErrorLine(s)),
  };
}

/**
 * Rewrite a Commander parse error (`error: unknown option '--outt'` and a `(Did you mean
 * --out?)` line) as `empiric: usage_error: unknown option '--outt' (did you mean --out?)`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { usageErrorLine } from "./main.ts";
 * equal(
 *   usageErrorLine("error: unknown option '--outt'\n(Did you mean --out?)\n"),
 *   "empiric: usage_error: unknown option '--outt' (did you mean --out?)\n",
 * );
 * ```
 */
export function usageErrorLine(commanderText: string): string {
  const lines = commanderText.trim().split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const first = (lines[0] ?? "invalid command line").replace(/^error:\s*/, "");
  const rest = lines.slice(1).map((l) => l.replace(/^\(Did you mean/, "(did you mean"));
  return `empiric: usage_error: ${[first, ...rest].join(" ")}\n`;
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
