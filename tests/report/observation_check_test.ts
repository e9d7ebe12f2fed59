// The hand-written observation check accepts exactly what ObservationSchema (the reference)
// accepts, on generated values near the schema's edges.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ObservationSchema } from "../../src/run/observation.ts";
import { isObservation } from "../../src/report/observation_check.ts";

const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.constantFrom(0.5, 2 ** 53, -0, 1e308),
  fc.string({ maxLength: 3 }),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom("kind", "message", "x"), fc.oneof(fc.string(), fc.integer())),
);
const metrics = fc.oneof(
  {
    arbitrary: fc.dictionary(
      fc.string({ maxLength: 3 }),
      fc.oneof(fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true })),
    ),
    weight: 10,
  },
  {
    arbitrary: fc.dictionary(
      fc.string({ maxLength: 3 }),
      fc.oneof(fc.constant(null), fc.double(), fc.string()),
    ),
    weight: 2,
  },
  { arbitrary: anyValue, weight: 1 },
);
/** Mostly a good value, sometimes anything. */
const mostly = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: anyValue, weight: 1 });
const candidate = fc.record({
  item: mostly(fc.nat()),
  id: mostly(fc.string()),
  ok: mostly(fc.boolean()),
  attempts: mostly(fc.nat()),
  attempt_failures: mostly(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 })),
  failure: mostly(fc.record({ kind: fc.string(), message: fc.string() })),
  latency_ms: mostly(fc.double({ min: 0, max: 1e6, noNaN: true })),
  censored: mostly(fc.boolean()),
  scheduled_ms: mostly(fc.double({ min: 0, max: 1e6, noNaN: true })),
  metrics,
  extra: anyValue,
}, { requiredKeys: ["item", "id", "ok", "attempts", "metrics"] });

Deno.test("isObservation agrees with ObservationSchema", () => {
  let accepted = 0;
  fc.assert(
    fc.property(candidate, (v) => {
      // JSON has no undefined members: drop them as JSON.parse would never produce them.
      const value = JSON.parse(
        JSON.stringify(
          v,
          (_k, x) => (Number.isNaN(x) || x === Infinity || x === -Infinity ? 0 : x),
        ),
      );
      const fast = isObservation(value);
      const reference = ObservationSchema.safeParse(value).success;
      assert.equal(fast, reference, JSON.stringify(value));
      if (fast) accepted++;
    }),
    { numRuns: 20_000 },
  );
  assert.ok(accepted > 100, `only ${accepted} valid values generated`);
});
