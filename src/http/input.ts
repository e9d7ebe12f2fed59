/**
 * Request input: JSON bodies (media type, size limit, the typed parser) and validation of
 * bodies, query strings and path parameters against the operation schemas.
 *
 * @module
 */
import type { z } from "zod";
import type { Problem } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { type PlainJson, toPlainJson } from "../json/plain.ts";
import { HttpProblem } from "./problem.ts";
import { Watchdog } from "./watchdog.ts";

/** Default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default time a client has to send a request body once its headers are in: 30 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/**
 * True for `application/json`, with an optional `charset=utf-8` (any other charset is not JSON
 * as RFC 8259 defines it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isJsonMediaType } from "./input.ts";
 * assert.ok(isJsonMediaType("application/json; charset=UTF-8"));
 * assert.ok(!isJsonMediaType("text/plain"));
 * assert.ok(!isJsonMediaType("application/json; charset=latin1"));
 * ```
 */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const [essence, ...params] = contentType.split(";");
  if (essence.trim().toLowerCase() !== "application/json") return false;
  for (const p of params) {
    const [name, value = ""] = p.split("=", 2);
    if (
      name.trim().toLowerCase() === "charset" &&
      value.trim().replace(/^"(.*)"$/, "$1").toLowerCase() !== "utf-8"
    ) {
      return false;
    }
  }
  return true;
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(
    "payload_too_large",
    `the request body is larger than the server's limit of ${limit} bytes (--max-body-bytes)`,
  );
}

/**
 * The body stream failed: the client closed its side (Deno drops the body of a request whose
 * client half-closed the connection) or reset it. Not a server fault: 499, logged as info.
 */
function clientClosed(cause: unknown): HttpProblem {
  if (cause instanceof HttpProblem) return cause;
  return new HttpProblem(
    "client_closed",
    "the client closed the connection before its request body could be read",
  );
}

function tooSlow(ms: number): HttpProblem {
  return new HttpProblem(
    "request_timeout",
    `the request body did not arrive within ${ms} ms (--body-timeout-ms)`,
    { headers: { connection: "close" } },
  );
}

/**
 * Read a request body, refusing (413) more than `limit` bytes without buffering them, and (408)
 * a body that has not fully arrived `timeoutMs` after the handler asked for it.
 */
export async function readBodyLimited(
  req: Request,
  limit: number,
  timeoutMs: number = DEFAULT_BODY_TIMEOUT_MS,
): Promise<Uint8Array> {
  const header = req.headers.get("content-length");
  const declared = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
  if (declared !== undefined) {
    if (declared > limit) throw tooLarge(limit);
    // The server enforces Content-Length: the body cannot be longer than declared. Read at once
    // (faster than chunk by chunk); at the deadline the wait ends, and the read is left to end
    // with the connection.
    let giveUp!: (reason: unknown) => void;
    const read = new Promise<ArrayBuffer>((resolve, reject) => {
      giveUp = reject;
      req.arrayBuffer().then(resolve, (e) => reject(clientClosed(e)));
    });
    const watch = bodyDeadlines.watch(timeoutMs, () => giveUp(tooSlow(timeoutMs)));
    try {
      return new Uint8Array(await read);
    } finally {
      watch.done();
    }
  }
  // A chunked body, read chunk by chunk: at the deadline the reader is cancelled, which wakes a
  // pending read. (Only here is `req.body` touched: making its stream costs microseconds.)
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const watch = bodyDeadlines.watch(timeoutMs, () => void reader.cancel().catch(() => undefined));
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (watch.expired) throw tooSlow(timeoutMs);
        throw clientClosed(e);
      }
      const { done, value } = chunk;
      if (watch.expired) throw tooSlow(timeoutMs);
      if (done) break;
      total += value.length;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
    if (chunks.length === 1) return chunks[0];
    const out = new Uint8Array(total);
    let off = 0;
    for (const c of chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  } finally {
    watch.done();
  }
}

/** The deadlines of body reads in progress (one timer for all of them). */
const bodyDeadlines = new Watchdog();

/** A parsed request body and its bytes (to re-parse strictly when validation fails). */
export interface JsonBody {
  value: PlainJson;
  bytes: Uint8Array;
}

/**
 * Read and parse a JSON request body: 415 unless `Content-Type: application/json` (and no
 * content coding), 413 over `limit`, 408 when slower than `timeoutMs`, 400 with the typed
 * parser's code and position when the body is not JSON (duplicate keys and lone surrogates are
 * refused, as everywhere in empiric).
 */
export async function readJsonBody(
  req: Request,
  limit: number,
  timeoutMs: number = DEFAULT_BODY_TIMEOUT_MS,
): Promise<JsonBody> {
  const type = req.headers.get("content-type");
  if (!isJsonMediaType(type)) {
    throw new HttpProblem(
      "unsupported_media_type",
      `send the request body as Content-Type: application/json (got ${
        type === null ? "no Content-Type" : JSON.stringify(type)
      })`,
      { headers: { "accept-post": "application/json" } },
    );
  }
  const coding = req.headers.get("content-encoding");
  if (coding !== null && coding.trim().toLowerCase() !== "identity") {
    throw new HttpProblem(
      "unsupported_media_type",
      `request bodies are not decoded: Content-Encoding ${JSON.stringify(coding)} is not accepted`,
    );
  }
  const bytes = await readBodyLimited(req, limit, timeoutMs);
  return { value: parseBody(bytes), bytes };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Parse a request body. Fast path: the engine's `JSON.parse`, accepted only when the text is
 * strict UTF-8, has no duplicate key (known from its length for compact flat objects,
 * {@link parseMeasured}; scanned for otherwise) and no lone surrogate; anything else goes
 * through the typed parser (src/json/parse.ts), which throws the stable code and position
 * (400). Values where the two parsers could still differ (numbers beyond the int range or
 * overflowing, nesting beyond 512) never fit a request schema; when a body fails its schema the
 * caller re-parses it strictly first ({@link strictParseProblems}).
 */
export function parseBody(bytes: Uint8Array): PlainJson {
  let parsed: { value: PlainJson; compactFlat: boolean } | undefined;
  let text: string | undefined;
  try {
    text = strictUtf8.decode(bytes);
    parsed = parseMeasured(text);
  } catch {
    parsed = undefined;
  }
  if (
    parsed === undefined || !wellFormed(parsed.value) ||
    (!parsed.compactFlat && hasDuplicateKey(text!))
  ) {
    return toPlainJson(parseJson(bytes));
  }
  return parsed.value;
}

/**
 * `JSON.parse`, telling also whether the text is a compact object of primitive members: exactly
 * as long as its parsed members need (`{"key":value,...}`, keys unescaped, no whitespace). Such a
 * text has no repeated key, since a repeat would need at least five more characters (`,"":0`).
 * Other texts (whitespace, escaped keys, nested values, or a runtime that gives a reviver no
 * source text) answer false and need {@link hasDuplicateKey}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMeasured } from "./input.ts";
 * assert.ok(parseMeasured('{"proof_json":"{}","n":1}').compactFlat);
 * assert.ok(!parseMeasured('{"a":1,"a":2}').compactFlat);
 * assert.ok(!parseMeasured('{"a": 1}').compactFlat);
 * assert.ok(!parseMeasured('{"a":[1]}').compactFlat);
 * ```
 */
export function parseMeasured(text: string): { value: PlainJson; compactFlat: boolean } {
  shape.members = shape.length = shape.containers = 0;
  const value = JSON.parse(text, measureShape as Reviver) as PlainJson;
  const compactFlat = shape.containers === 1 && typeof value === "object" && value !== null &&
    !Array.isArray(value) &&
    text.length === 2 + shape.length + Math.max(0, shape.members - 1);
  return { value, compactFlat };
}

type Reviver = (this: unknown, key: string, value: unknown) => unknown;

/** What {@link measureShape} saw during the last {@link parseMeasured}. */
const shape = { members: 0, length: 0, containers: 0 };

/**
 * A `JSON.parse` reviver that changes nothing and measures: how many objects and arrays, how
 * many primitive values (JSON.parse gives a reviver their source text), and the least length
 * their members take: `"key":` (a key's token is at least its decoded length plus two quotes)
 * and the value's source.
 */
function measureShape(key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === "object" && value !== null) shape.containers++;
  else if (context?.source !== undefined) {
    shape.members++;
    shape.length += key.length + 3 + context.source.length;
  }
  return value;
}

/** Throws the typed parser's error for bytes the fast path accepted but the wire rules do not. */
export function strictParseProblems(bytes: Uint8Array): void {
  parseJson(bytes);
}

function wellFormed(v: PlainJson): boolean {
  if (typeof v === "string") return v.isWellFormed();
  if (v === null || typeof v !== "object") return true;
  if (Array.isArray(v)) return v.every(wellFormed);
  for (const k in v) if (!k.isWellFormed() || !wellFormed(v[k])) return false;
  return true;
}

/**
 * Whether an object in a JSON text (already known to be valid JSON) repeats a key, comparing
 * keys after unescaping. Strings are skipped with `indexOf`, so long string values cost little.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasDuplicateKey } from "./input.ts";
 * assert.ok(hasDuplicateKey('{"a":1,"\\u0061":2}'));
 * assert.ok(!hasDuplicateKey('{"a":{"a":1}}'));
 * ```
 */
export function hasDuplicateKey(text: string): boolean {
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      STRING.lastIndex = i;
      STRING.test(text);
      const end = STRING.lastIndex;
      if (expectKey) {
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes("\\") ? JSON.parse(`"${raw}"`) as string : raw;
        const keys = stack[stack.length - 1]!;
        if (keys.has(key)) return true;
        keys.add(key);
        expectKey = false;
      }
      i = end;
      continue;
    }
    if (c === 123) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 91) {
      stack.push(null);
    } else if (c === 125 || c === 93) {
      stack.pop();
    } else if (c === 44) {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
    i++;
  }
  return false;
}

/** One JSON string token, from its opening quote (sticky: matched where lastIndex points). */
const STRING = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"/y;

/** Zod issues → empiric problems (`usage_error` with a JSON pointer per issue). */
export function zodProblems(error: z.ZodError, where: "body" | "query" | "path"): Problem[] {
  return error.issues.map((issue) => {
    const pointer = issue.path.length === 0
      ? ""
      : "/" + issue.path.map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join(
        "/",
      );
    const field = where === "body"
      ? (pointer || "the body")
      : issue.path.length > 0
      ? `${where === "query" ? "query parameter" : "path parameter"} ${String(issue.path[0])}`
      : `the ${where === "query" ? "query string" : "path"}`;
    return { code: "usage_error", message: `${field}: ${issue.message}`, pointer };
  });
}

/** Validate a value with a schema; 400 `usage_error` listing every issue. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "body" | "query" | "path",
): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = zodProblems(r.error, where);
  throw new HttpProblem("usage_error", problems[0].message, { problems });
}

/** Names of the fields of an object schema whose values are numbers (maybe optional). */
export function numericFields(schema: z.ZodType): Set<string> {
  const out = new Set<string>();
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  for (const [name, field] of Object.entries(shape)) {
    let t = field as unknown as { def: { type: string; innerType?: unknown } };
    while (
      (t.def.type === "optional" || t.def.type === "nullable" || t.def.type === "default") &&
      t.def.innerType
    ) {
      t = t.def.innerType as typeof t;
    }
    if (t.def.type === "number") out.add(name);
  }
  return out;
}

/**
 * Query parameters → an object for the schema: each parameter at most once; decimal integers
 * become numbers for the schema's numeric fields (anything else stays a string and fails).
 */
export function queryObject(
  queries: Record<string, string[]>,
  numeric: Set<string>,
): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, values] of Object.entries(queries)) {
    if (values.length > 1) {
      throw new HttpProblem("usage_error", `query parameter ${name}: given more than once`, {
        problems: [{
          code: "usage_error",
          message: `query parameter ${name}: given more than once`,
          pointer: `/${name}`,
        }],
      });
    }
    const v = values[0];
    out[name] = numeric.has(name) && /^-?(0|[1-9]\d{0,15})$/.test(v) ? Number(v) : v;
  }
  return out;
}
