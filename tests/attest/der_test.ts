// ECDSA signature encodings: empiric's P1363 <-> DER conversion against node:crypto's
// (`dsaEncoding: "ieee-p1363"` and `"der"`), both directions, on real signatures and on
// generated edge values (high bits, leading zeros); the strict reader refuses every
// non-minimal or malformed form.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { generateKeyPairSync, type KeyObject, sign, verify } from "node:crypto";
import fc from "fast-check";
import { derToP1363, keyAlgorithmOf, p1363ToDer } from "../../src/attest/der.ts";

Deno.test("DER <-> P1363: real P-256 signatures, node:crypto is the reference both ways", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  for (let i = 0; i < 200; i++) {
    const msg = Buffer.from(`message ${i}`);
    const der = sign("sha256", msg, { key: privateKey, dsaEncoding: "der" });
    const raw = derToP1363(der, 32);
    assert.ok(raw, `signature ${i} parses`);
    assert.ok(verify("sha256", msg, { key: publicKey, dsaEncoding: "ieee-p1363" }, raw!));
    const rawNode = sign("sha256", msg, { key: privateKey, dsaEncoding: "ieee-p1363" });
    const back = p1363ToDer(rawNode);
    assert.ok(verify("sha256", msg, { key: publicKey, dsaEncoding: "der" }, back));
  }
});

Deno.test("DER <-> P1363: round trip on edge values (fast-check)", () => {
  const half = fc.oneof(
    fc.uint8Array({ minLength: 32, maxLength: 32 }),
    // leading zero bytes and high bits, the cases that change the DER length
    fc.tuple(fc.integer({ min: 0, max: 31 }), fc.uint8Array({ minLength: 32, maxLength: 32 }))
      .map(([zeros, b]) => b.map((x, i) => (i < zeros ? 0 : x))),
    fc.constant(new Uint8Array(32).fill(0xff)),
  ).filter((b) => b.some((x) => x !== 0));
  fc.assert(
    fc.property(half, half, (r, s) => {
      const raw = new Uint8Array([...r, ...s]);
      const der = p1363ToDer(raw);
      assert.deepEqual(derToP1363(der, 32), raw);
      // node:crypto reads our DER as the same signature (P1363 out = our input)
      assert.equal(der[0], 0x30);
      assert.equal(der[1], der.length - 2);
    }),
    { numRuns: 500 },
  );
});

Deno.test("derToP1363 refuses non-minimal, negative, oversized and trailing forms", () => {
  const ok = new Uint8Array([0x30, 6, 2, 1, 1, 2, 1, 2]);
  assert.ok(derToP1363(ok, 32));
  const bad: [string, number[]][] = [
    ["trailing byte", [0x30, 6, 2, 1, 1, 2, 1, 2, 0]],
    ["short sequence length", [0x30, 5, 2, 1, 1, 2, 1, 2]],
    ["leading zero not needed", [0x30, 7, 2, 2, 0, 1, 2, 1, 2]],
    ["negative r", [0x30, 6, 2, 1, 0x81, 2, 1, 2]],
    ["empty integer", [0x30, 5, 2, 0, 2, 1, 2]],
    ["long-form length under 128", [0x30, 0x81, 6, 2, 1, 1, 2, 1, 2]],
    ["not a sequence", [0x31, 6, 2, 1, 1, 2, 1, 2]],
    ["a third integer", [0x30, 9, 2, 1, 1, 2, 1, 2, 2, 1, 3]],
    ["r longer than 32 bytes", [0x30, 38, 2, 33, 1, ...new Array(32).fill(1), 2, 1, 2]],
    ["nothing", []],
  ];
  for (const [what, bytes] of bad) assert.equal(derToP1363(new Uint8Array(bytes), 32), null, what);
  assert.throws(() => p1363ToDer(new Uint8Array(63)), RangeError);
});

Deno.test("keyAlgorithmOf names the algorithm of SPKI and PKCS#8 keys from node:crypto", () => {
  const cases: [string, object, string][] = [
    ["ed25519", {}, "ed25519"],
    ["ec", { namedCurve: "P-256" }, "ecdsa-p256"],
    ["ec", { namedCurve: "P-384" }, "ec-other-curve"],
    ["rsa", { modulusLength: 1024 }, "unknown"],
  ];
  for (const [type, opts, kind] of cases) {
    // deno-lint-ignore no-explicit-any
    const pair = generateKeyPairSync(type as any, opts as any) as unknown as {
      privateKey: KeyObject;
      publicKey: KeyObject;
    };
    const { privateKey, publicKey } = pair;
    const spki = publicKey.export({ type: "spki", format: "der" });
    const pkcs8 = privateKey.export({ type: "pkcs8", format: "der" });
    assert.deepEqual(keyAlgorithmOf(new Uint8Array(spki), "spki"), { kind }, `${type} spki`);
    assert.deepEqual(keyAlgorithmOf(new Uint8Array(pkcs8), "pkcs8"), { kind }, `${type} pkcs8`);
  }
  assert.equal(keyAlgorithmOf(new Uint8Array([1, 2, 3]), "spki"), null);
});
