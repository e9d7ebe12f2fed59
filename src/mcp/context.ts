/**
 * What the MCP tools and resources share for the life of one `empiric mcp serve` process: the
 * operations' host (environment, key, store opened on first use, scenario directory, and the
 * caller's trust: `local` over stdio, `network` over the HTTP transports) and where diagnostics
 * go. Every MCP server instance (one per stdio connection, SSE session or Streamable HTTP
 * request) is built over the same context.
 *
 * @module
 */
import { type Caller, createOpHost, type OpHost, type OpsEnvironment } from "../ops/mod.ts";
import { ProofEvents } from "./proof_events.ts";
import type { ResolvedKey } from "../ops/keys.ts";

/** The shared state of the MCP tools. */
export interface McpContext {
  /** The operations' host; every tool and resource calls through it. */
  readonly host: OpHost;
  /** "Proofs were added", for resource subscriptions and `list_changed`. */
  readonly proofEvents: ProofEvents;
  /** Write one diagnostic line (to stderr: never to the stdio protocol stream). */
  log(line: string): void;
  /** Close the store if it was opened. */
  close(): Promise<void>;
}

/** Inputs of {@link createMcpContext}. */
export interface McpContextOptions {
  env: OpsEnvironment;
  key: ResolvedKey;
  storeDir: string;
  scenarioDir: string;
  /** `local` over stdio (the user's own rights), `network` over the HTTP transports. */
  caller: Caller;
  /** Network callers may name `cmd:` substrates. */
  allowCmdSubstrates?: boolean;
  log: (line: string) => void;
  /** How often the store is polled for proofs other processes add (ms; 0: never). */
  proofPollMs?: number;
}

/**
 * Build the shared context. The store is opened lazily so that a server started with an
 * unusable store (a desktop client starting it with cwd=/ and no `EMPIRIC_STORE`) still answers
 * the tools that do not need one, and reports the store problem on the tools that do.
 */
export function createMcpContext(options: McpContextOptions): McpContext {
  const host = createOpHost({
    caller: options.caller,
    env: options.env,
    key: options.key,
    store: options.storeDir,
    scenarioDir: options.scenarioDir,
    allowClientCmd: options.allowCmdSubstrates ?? false,
    log: options.log,
    storeHint: "set EMPIRIC_STORE or --store to an absolute, writable directory",
  });
  const proofEvents = new ProofEvents(host, options.proofPollMs);
  return {
    host,
    proofEvents,
    log: options.log,
    close: async () => {
      proofEvents.close();
      await host.close();
    },
  };
}
