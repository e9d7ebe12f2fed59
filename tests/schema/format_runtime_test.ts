// The record validator's ES-module helpers (src/schema/format_runtime.ts) against the library
// functions they stand in for: Ajv's ucs2length and ajv-formats' full `date-time` format.
import assert from "node:assert/strict";
import fc from "fast-check";
import ucs2lengthModule from "ajv/dist/runtime/ucs2length.js";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { codePointLength, isDateTime } from "../../src/schema/format_runtime.ts";

const ucs2length = (ucs2lengthModule as unknown as { default: (s: string) => number }).default;
const referenceDateTime = (fullFormats["date-time"] as { validate: (s: string) => boolean })
  .validate;

const digits = (n: number, max: number) =>
  fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, "0"));
const pick = <T>(...xs: T[]) => fc.constantFrom(...xs);

/** Timestamps near the edges: leap days, leap seconds under offsets, odd separators. */
const nearDateTime = fc.tuple(
  fc.oneof(digits(4, 9999), pick("1900", "2000", "2024", "2100", "0000")),
  pick("-", "/", ""),
  fc.oneof(digits(2, 13), pick("02", "00", "12")),
  fc.oneof(digits(2, 32), pick("28", "29", "30", "31", "00")),
  pick("T", "t", " ", "\t", "\u00a0", "\u2028", "TT", "", "Z"),
  fc.oneof(digits(2, 25), pick("23", "00", "24")),
  fc.oneof(digits(2, 61), pick("59", "00", "60")),
  fc.oneof(digits(2, 61), pick("59", "60", "61")),
  pick("", ".5", ".123456789", ".", ".x"),
  fc.oneof(
    pick("Z", "z", "", "+00:00", "-00:01", "+00:01", "+01:01", "+0100", "+01", "-23:59"),
    fc.tuple(pick("+", "-"), digits(2, 25), pick(":", ""), digits(2, 61)).map((p) => p.join("")),
  ),
).map(([y, s1, mo, d, sep, h, mi, se, frac, tz]) =>
  `${y}${s1}${mo}${s1}${d}${sep}${h}:${mi}:${se}${frac}${tz}`
);

Deno.test("date-time: the same answer as ajv-formats on 20,000 near-valid timestamps and on any string", () => {
  fc.assert(
    fc.property(nearDateTime, (s) => isDateTime(s) === referenceDateTime(s)),
    { numRuns: 20_000, seed: 20261124 },
  );
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (s) => isDateTime(s) === referenceDateTime(s)),
    { numRuns: 5_000, seed: 20261124 },
  );
});

Deno.test("date-time: known cases (leap days, leap seconds under offsets)", () => {
  const cases: [string, boolean][] = [
    ["2024-02-29T00:00:00Z", true],
    ["2100-02-29T00:00:00Z", false],
    ["2000-02-29T00:00:00Z", true],
    ["2026-12-31T23:59:60Z", true],
    ["2026-12-31T23:59:60.999Z", true],
    ["2026-12-31T22:59:60Z", false],
    ["2026-12-31T15:59:60-08:00", true],
    ["2026-12-31T00:59:60+01:00", true],
    ["2027-01-01T00:00:60+00:01", true],
    ["2027-01-01T01:00:60+01:01", true],
    ["2026-12-31T23:59:59", false],
    ["2026-12-31 23:59:59+0130", true],
    ["2026-13-01T00:00:00Z", false],
  ];
  for (const [s, want] of cases) {
    assert.equal(referenceDateTime(s), want, `reference on ${s}`);
    assert.equal(isDateTime(s), want, s);
  }
});

Deno.test("code points: the same length as Ajv's ucs2length, lone surrogates included", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: "binary" }),
        fc.string({ unit: "grapheme" }),
        fc.array(fc.integer({ min: 0xd7f0, max: 0xe010 })).map((us) => String.fromCharCode(...us)),
      ),
      (s) => codePointLength(s) === ucs2length(s),
    ),
    { numRuns: 20_000, seed: 20261124 },
  );
});
