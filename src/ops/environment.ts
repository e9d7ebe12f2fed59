/**
 * What the shared operations need from their host process: files, clock, runtime description,
 * git. Entry points (CLI, HTTP server, MCP server) build one from the real process; tests
 * build their own.
 *
 * @module
 */
import type { RuntimeInfo } from "../run/run.ts";

/** Host facilities used by the operations. */
export interface OpsEnvironment {
  /** Read a file's bytes. */
  readFile(path: string): Promise<Uint8Array>;
  /** Read a text file, or undefined if it does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** List `*.yaml|*.yml|*.json` regular files (not symlinks) in a directory (empty if none). */
  listDir(path: string): Promise<string[]>;
  /**
   * Read a regular file that is not a symlink (undefined when missing or not a regular file);
   * `scenario_invalid` when it is larger than `maxBytes`.
   */
  readRegularText(path: string, maxBytes: number): Promise<string | undefined>;
  /** Fetch a URL's bytes (datasets given by URL). */
  fetchBytes(url: string): Promise<Uint8Array>;
  /** Wall clock, epoch ms. */
  now(): number;
  /** Monotonic clock, ms. */
  monotonic(): number;
  /** Environment variable. */
  env(name: string): string | undefined;
  /** The running software and host. */
  runtime(): RuntimeInfo;
  /** Git commit of the checkout containing `path`, if any. */
  gitCommit(path: string): Promise<string | undefined>;
  /** Whether a path exists. */
  exists(path: string): Promise<boolean>;
  /**
   * The runtime a `cmd:` substrate's command line runs on (`Python 3.11.7`), when it can be
   * known; undefined otherwise. Optional: environments without it record no substrate runtime.
   */
  substrateRuntime?(argv: readonly string[]): Promise<string | undefined>;
}
