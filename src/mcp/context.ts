/**
 * What the MCP tools and resources share for the life of one `empiric mcp serve` process: the
 * operations environment, the key, the proof store (opened on first use) and the scenario
 * directory. Every MCP server instance (one per stdio connection, SSE session or Streamable HTTP
 * request) is built over the same context.
 *
 * @module
 */
import type { ResolvedKey } from "../crypto/keys.ts";
import { IoError } from "../errors/errors.ts";
import type { Exposure } from "../ops/scenarios.ts";
import type { OpsEnvironment } from "../ops/environment.ts";
import { ProofStore } from "../store/store.ts";

/** The shared state of the MCP tools. */
export interface McpContext {
  /** Files, clock and runtime description for the operations. */
  readonly env: OpsEnvironment;
  /** The key records are verified and signed with. */
  readonly key: ResolvedKey;
  /** Absolute path of the proof store directory. */
  readonly storeDir: string;
  /** Absolute path of the directory searched for scenario files. */
  readonly scenarioDir: string;
  /** Whether `run_scenario` may start `cmd:` substrates (processes on this machine). */
  readonly allowCmdSubstrates: boolean;
  /** What clients may name: over the network, scenario names only and no `cmd:` substrates. */
  readonly exposure: Exposure;
  /** The proof store, opened (and created) on first use. */
  store(): Promise<ProofStore>;
  /** Write one diagnostic line (to stderr: never to the stdio protocol stream). */
  log(line: string): void;
  /** Close the store if it was opened. */
  close(): void;
}

/** Inputs of {@link createMcpContext}. */
export interface McpContextOptions {
  env: OpsEnvironment;
  key: ResolvedKey;
  storeDir: string;
  scenarioDir: string;
  allowCmdSubstrates?: boolean;
  log: (line: string) => void;
}

/**
 * Build the shared context. The store is opened lazily so that a server started with an
 * unusable store (a desktop client starting it with cwd=/ and no `EMPIRIC_STORE`) still answers
 * the tools that do not need one, and reports the store problem on the tools that do.
 */
export function createMcpContext(options: McpContextOptions): McpContext {
  let opening: Promise<ProofStore> | undefined;
  let opened: ProofStore | undefined;
  return {
    env: options.env,
    key: options.key,
    storeDir: options.storeDir,
    scenarioDir: options.scenarioDir,
    allowCmdSubstrates: options.allowCmdSubstrates ?? true,
    exposure: (options.allowCmdSubstrates ?? true)
      ? {}
      : { namesOnly: true, allowClientCmd: false },
    log: options.log,
    store() {
      opening ??= ProofStore.open(options.storeDir).then((s) => {
        opened = s;
        return s;
      }, (e) => {
        opening = undefined;
        throw new IoError(
          "io_error",
          `${
            (e as Error).message
          } (set EMPIRIC_STORE or --store to an absolute, writable directory)`,
          { cause: e },
        );
      });
      return opening;
    },
    close() {
      opened?.close();
      opened = undefined;
      opening = undefined;
    },
  };
}
