/**
 * Typed errors with stable codes.
 *
 * Every failure a user can cause is an {@link EmpiricError} with a {@link ErrorCode}; surfaces
 * map the code to an exit code, HTTP status or MCP result through {@link ERROR_TABLE}.
 *
 * @module
 */
import { ERROR_TABLE, type ErrorCode } from "./codes.ts";

/** Where in a text a problem is: 0-based UTF-16 offset, 1-based line and column. */
export interface TextPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** One problem found in a document, located by JSON pointer and/or text position. */
export interface Problem {
  readonly code: ErrorCode;
  readonly message: string;
  /** RFC 6901 JSON pointer to the offending value, when known. */
  readonly pointer?: string;
  /** Position in the source text, when known. */
  readonly position?: TextPosition;
}

/** Options of {@link EmpiricError}. */
export interface EmpiricErrorOptions {
  pointer?: string;
  position?: TextPosition;
  problems?: readonly Problem[];
  cause?: unknown;
}

/**
 * Base class of every expected error: carries a stable `code`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmpiricError } from "./errors.ts";
 * const e = new EmpiricError("not_found", "no such file: a.json");
 * assert.equal(e.code, "not_found");
 * assert.equal(e.exitCode, 66);
 * ```
 */
export class EmpiricError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** JSON pointer of the offending value, when known. */
  readonly pointer?: string;
  /** Position in the source text, when known. */
  readonly position?: TextPosition;
  /** Every problem found (at least this error itself). */
  readonly problems: readonly Problem[];

  constructor(code: ErrorCode, message: string, options: EmpiricErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.pointer = options.pointer;
    this.position = options.position;
    this.problems = options.problems ?? [{
      code,
      message,
      ...(options.pointer === undefined ? {} : { pointer: options.pointer }),
      ...(options.position === undefined ? {} : { position: options.position }),
    }];
  }

  /** CLI exit code for this error. */
  get exitCode(): number {
    return ERROR_TABLE[this.code].exit;
  }

  /** HTTP status for this error. */
  get httpStatus(): number {
    return ERROR_TABLE[this.code].http;
  }
}

/** The input is not valid under the wire format (parse or canonicalize). */
export class WireError extends EmpiricError {}

/** A proof record is malformed, fails its schema, or does not verify. */
export class RecordError extends EmpiricError {}

/** A key cannot be used (too short for signing, unreadable). */
export class KeyError extends EmpiricError {}

/** A scenario, dataset or substrate cannot be used. */
export class ScenarioError extends EmpiricError {}

/** The caller used a command, option or argument wrongly. */
export class UsageError extends EmpiricError {
  constructor(message: string, options: EmpiricErrorOptions = {}) {
    super("usage_error", message, options);
  }
}

/** A file or resource is missing, exists already, or cannot be read or written. */
export class IoError extends EmpiricError {}

/**
 * A command stopped by a signal (`cancelled`): exit status 128 + the signal's number, as shells
 * report it (130 after SIGINT / Ctrl-C, 143 after SIGTERM).
 */
export class CancelledError extends EmpiricError {
  /** The signal that stopped it. */
  readonly signal: "SIGINT" | "SIGTERM";

  constructor(signal: "SIGINT" | "SIGTERM", message: string, options: EmpiricErrorOptions = {}) {
    super("cancelled", message, options);
    this.signal = signal;
  }

  override get exitCode(): number {
    return this.signal === "SIGTERM" ? 143 : 130;
  }
}

/**
 * Turn any thrown value into an {@link EmpiricError} (unknown errors become `internal_error`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asEmpiricError } from "./errors.ts";
 * assert.equal(asEmpiricError(new TypeError("x")).code, "internal_error");
 * ```
 */
export function asEmpiricError(error: unknown): EmpiricError {
  if (error instanceof EmpiricError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EmpiricError("internal_error", message, { cause: error });
}
