/**
 * The two run-time helpers of the generated record validator (record_validator.generated.ts),
 * as ES modules: the string length in code points that `minLength`/`maxLength` count, and the
 * `date-time` format. Ajv's standalone code would import them from `ajv/dist/runtime/ucs2length`
 * and `ajv-formats/dist/formats`, which are CommonJS: loading them starts Deno's CommonJS loader,
 * 13 ms of the 144 ms `schema validate` took (bench/startup.ts; 0.45x of an empty script), for two
 * small functions.
 *
 * The libraries' functions are the reference: tests/schema/format_runtime_test.ts compares these
 * with them on generated strings (near-valid timestamps, surrogate pairs, lone surrogates), and
 * the record validator's differential test compares the whole validator with Ajv's.
 *
 * @module
 */

/**
 * The length of a string in Unicode code points; a lone surrogate counts as one (Ajv's
 * `ucs2length`, what JSON Schema's `minLength` and `maxLength` count).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { codePointLength } from "./format_runtime.ts";
 * assert.equal(codePointLength("a😀"), 2);
 * assert.equal(codePointLength("\ud800x"), 2);
 * ```
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const FULL_TIME = /^(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:[zZ]|([+-])(\d{2})(?::?(\d{2}))?)$/;

function leapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function validDate(text: string): boolean {
  const m = FULL_DATE.exec(text);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && leapYear(Number(m[1])) ? 29 : DAYS_IN_MONTH[month - 1]);
}

function validTime(text: string): boolean {
  const m = FULL_TIME.exec(text);
  if (!m) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  const sign = m[4] === "-" ? -1 : 1;
  const offsetHour = Number(m[5] ?? 0);
  const offsetMinute = Number(m[6] ?? 0);
  if (offsetHour > 23 || offsetMinute > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second (second 60) is valid only at 23:59 UTC.
  const utcMinute = minute - sign * offsetMinute;
  const utcHour = hour - sign * offsetHour - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) &&
    second < 61;
}

/**
 * Whether a string is an RFC 3339 `date-time` with a time zone, as ajv-formats' full
 * `date-time` format decides (date and time separated by one `T`, `t` or white-space character;
 * leap seconds at 23:59 UTC only).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isDateTime } from "./format_runtime.ts";
 * assert.equal(isDateTime("2026-11-24T01:02:03.5Z"), true);
 * assert.equal(isDateTime("2026-02-29T00:00:00Z"), false);
 * assert.equal(isDateTime("2026-11-24T01:02:03"), false);
 * ```
 */
export function isDateTime(text: string): boolean {
  const parts = text.split(/[Tt\s]/);
  return parts.length === 2 && validDate(parts[0]) && validTime(parts[1]);
}

/** What the generated validator imports in place of `ajv/dist/runtime/ucs2length`. */
export const ucs2lengthRuntime = { default: codePointLength };

/** What the generated validator imports in place of `ajv-formats/dist/formats`. */
export const formatsRuntime = { fullFormats: { "date-time": { validate: isDateTime } } };
