/**
 * What the CLI needs from its process: output streams, environment, file system, clock.
 * The entry point (`cli.ts`) passes the real one; tests pass their own.
 *
 * @module
 */

/** A directory entry. */
export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/** The process facilities the CLI uses. */
export interface CliHost {
  /** Write text to standard output. */
  stdout(text: string): void;
  /** Write bytes to standard output. */
  stdoutBytes(bytes: Uint8Array): void;
  /** Write text to standard error. */
  stderr(text: string): void;
  /** Read an environment variable. */
  env(name: string): string | undefined;
  /** Read a whole file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Read all of standard input. */
  readStdin(): Promise<Uint8Array>;
  /** List a directory. */
  readDir(path: string): AsyncIterable<DirEntry>;
  /** Is the path a directory, a file, or missing? */
  stat(path: string): Promise<"file" | "directory" | "missing" | "other">;
  /** Whether a stream is an interactive terminal. */
  isTerminal(stream: "stdout" | "stderr"): boolean;
  /** Call `f` with the signal's name on SIGINT/SIGTERM; returns a function that stops listening. */
  onInterrupt?(f: (signal: "SIGINT" | "SIGTERM") => void): () => void;
}

import type { Command } from "@commander-js/extra-typings";
/** A commander command of any argument and option types. */
// deno-lint-ignore no-explicit-any
export type AnyCommand = Command<any, any, any>;
