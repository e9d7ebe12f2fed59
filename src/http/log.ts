/**
 * Structured logs of the HTTP server: one JSON object per line on standard error. Lines are
 * collected and written in batches (every 50 ms or 256 lines, each write at most 4 KiB and
 * ending at a line boundary, so lines from several workers never interleave).
 *
 * @module
 */

/** One log entry; `ts` and `level` are added when missing. */
export type LogEntry = Record<string, unknown> & { msg: string };

/** Where log entries go. */
export interface Logger {
  /** Record one entry. */
  log(entry: LogEntry): void;
  /** Record one entry already written as a JSON object (no newline), e.g. by a hot path. */
  line(json: string): void;
  /** Write everything recorded so far. */
  flush(): void;
}

let lastMs = -1;
let lastIso = "";

/** The current time as an RFC 3339 UTC string (computed at most once per millisecond). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const encoder = new TextEncoder();

/**
 * Largest single write in bytes (PIPE_BUF): writes of several processes to one pipe never
 * interleave within a line. A longer line is written on its own.
 */
export const MAX_WRITE_BYTES = 4096;

/** Batched lines are written at least this often. */
const FLUSH_INTERVAL_MS = 50;

/** More lines than this pending are written at once. */
const MAX_PENDING = 256;

/**
 * A logger writing JSON lines through `write` (synchronous, e.g. `Deno.stderr.writeSync`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLineLogger } from "./log.ts";
 * const lines: string[] = [];
 * const log = jsonLineLogger((b) => lines.push(new TextDecoder().decode(b)), { batch: false });
 * log.log({ msg: "hello", n: 1 });
 * assert.equal(JSON.parse(lines[0]).msg, "hello");
 * ```
 */
export function jsonLineLogger(
  write: (bytes: Uint8Array) => void,
  options: { batch?: boolean; fields?: Record<string, unknown> } = {},
): Logger {
  const batch = options.batch ?? true;
  const fields = options.fields ?? {};
  let pending: string[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;

  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    writeLines(write, encoder.encode(text));
  };

  const push = (line: string) => {
    pending.push(line);
    if (!batch || pending.length >= MAX_PENDING) flush();
    else if (timer === undefined) {
      // One write per interval at most, not one per request; the timer does not keep the
      // process alive, and servers flush on shutdown.
      timer = setInterval(flush, FLUSH_INTERVAL_MS);
      Deno.unrefTimer(timer);
    }
  };

  return {
    log(entry) {
      push(JSON.stringify({ ts: isoNow(), level: "info", ...fields, ...entry }) + "\n");
    },
    line(json) {
      push(json + "\n");
    },
    flush,
  };
}

/** Write whole lines in pieces of at most {@link MAX_WRITE_BYTES}, each ending a line. */
function writeLines(write: (bytes: Uint8Array) => void, bytes: Uint8Array): void {
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.length;
    if (end - start > MAX_WRITE_BYTES) {
      // The last line end within the limit; else the end of the (long) first line.
      const cut = bytes.lastIndexOf(10, start + MAX_WRITE_BYTES - 1);
      end = cut >= start ? cut + 1 : bytes.indexOf(10, start) + 1 || bytes.length;
    }
    try {
      write(bytes.subarray(start, end));
    } catch {
      return; // standard error closed: nothing else to do with a log line
    }
    start = end;
  }
}

/** The standard-error logger of a server process or worker. */
export function stderrLogger(fields: Record<string, unknown> = {}): Logger {
  return jsonLineLogger((bytes) => {
    let off = 0;
    while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
  }, { fields });
}
