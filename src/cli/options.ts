/**
 * Options several commands share, declared once: the HMAC key (`--key`, `--key-file`), the
 * proof store (`--store`), the scenario directory, ports. Each builder returns a fresh
 * commander `Option`, so a command adds it with `.addOption(...)`.
 *
 * @module
 */
import { Option } from "@commander-js/extra-typings";
import { UsageError } from "../errors/errors.ts";
import type { CliHost } from "./host.ts";

/** `--key <text>`: the HMAC key as text (conflicts with `--key-file`). */
export function keyOption(what = "HMAC key as text (UTF-8); also EMPIRIC_SIGN_KEY") {
  return new Option("--key <text>", what).conflicts("keyFile");
}

/** `--key-file <path>`: the HMAC key from a file (one trailing newline ignored). */
export function keyFileOption(
  what = "read the HMAC key from a file (one trailing newline ignored)",
) {
  return new Option("--key-file <path>", what);
}

/** `--port <n>`: a port from 0 (any free port) to 65535. */
export function portOption(what: string, fallback: number) {
  return new Option("--port <n>", what).argParser(parsePort).default(fallback);
}

/** Help text of `--store`. */
export const STORE_HELP =
  "proof store: a directory or a postgres:// URL (default: EMPIRIC_STORE, else ./proofs)";

/** `--store <dir|url>`. */
export function storeOption() {
  return new Option("--store <dir|url>", STORE_HELP);
}

/** `--scenario-dir <dir>`. */
export function scenarioDirOption() {
  return new Option("--scenario-dir <dir>", "directory searched for scenario names").default(
    "scenarios",
  );
}

/** The store location: `--store`, then `EMPIRIC_STORE`, then `./proofs`. */
export function storeDir(host: CliHost, opt: string | boolean | undefined): string {
  return typeof opt === "string" ? opt : host.env("EMPIRIC_STORE") || "proofs";
}

/** Parse a port (0 to 65535). */
export function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got ${v}`);
  }
  return n;
}

/** Parse a whole number option within a range. */
export function parseWhole(name: string, min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) {
      throw new UsageError(
        `${name} takes a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`,
      );
    }
    return n;
  };
}

/** Commander's accumulator for a repeatable option (`--public-key A --public-key B`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
