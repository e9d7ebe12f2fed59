/**
 * Structured logs of the HTTP server: one JSON object per line on standard error. Lines are
 * collected and written in batches (at most one write per event-loop turn, each write at most
 * 4 KiB and ending at a line boundary, so lines from several workers never interleave).
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

/** Largest single write, so that concurrent writers to one pipe never interleave lines. */
const MAX_WRITE = 4096;

/**
 * A logger writing JSON lines through `write` (synchronous, e.g. `Deno.stderr.writeSync`).
 *
 * @example
 * ```ts
 * import { jsonLineLogger } from "./log.ts";
 * const lines: string[] = [];
 * const log = jsonLineLogger((b) => lines.push(new TextDecoder().decode(b)), { batch: false });
 * log.log({ msg: "hello", n: 1 });
 * console.assert(JSON.parse(lines[0]).msg === "hello");
 * ```
 */
export function jsonLineLogger(
  write: (bytes: Uint8Array) => void,
  options: { batch?: boolean; fields?: Record<string, unknown> } = {},
): Logger {
  const batch = options.batch ?? true;
  const fields = options.fields ?? {};
  let pending: string[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    let chunk = "";
    for (const line of lines) {
      if (chunk.length > 0 && chunk.length + line.length > MAX_WRITE) {
        writeQuietly(write, chunk);
        chunk = "";
      }
      chunk += line;
    }
    if (chunk.length > 0) writeQuietly(write, chunk);
  };

  const push = (line: string) => {
    pending.push(line);
    if (!batch) flush();
    else if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
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

function writeQuietly(write: (bytes: Uint8Array) => void, text: string): void {
  try {
    write(encoder.encode(text));
  } catch {
    // standard error closed: nothing else to do with a log line
  }
}

/** The standard-error logger of a server process or worker. */
export function stderrLogger(fields: Record<string, unknown> = {}): Logger {
  return jsonLineLogger((bytes) => {
    let off = 0;
    while (off < bytes.length) off += Deno.stderr.writeSync(bytes.subarray(off));
  }, { fields });
}
