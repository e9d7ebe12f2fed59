import assert from "node:assert/strict";
import {
  assertSigningKey,
  DEFAULT_DEMO_KEY,
  isDemoKey,
  keyFromText,
  resolveKey,
} from "../../src/crypto/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const fileOf = (bytes: Uint8Array) => ({ readFile: () => Promise.resolve(bytes) });

Deno.test("key files: one trailing LF or CRLF is dropped, nothing else", async () => {
  const k = "k".repeat(32);
  for (
    const [content, expected] of [[k + "\n", k], [k + "\r\n", k], [k, k], [k + "\r", k + "\r"], [
      k + "\n\n",
      k + "\n",
    ]]
  ) {
    const r = await resolveKey({ keyFile: "f", ...fileOf(enc(content)) });
    assert.equal(new TextDecoder().decode(r!.bytes), expected, JSON.stringify(content));
    assert.equal(r!.source, "file");
  }
  await assert.rejects(resolveKey({ keyFile: "f", ...fileOf(enc("\n")) }), { code: "key_invalid" });
  await assert.rejects(
    resolveKey({ keyFile: "f", readFile: () => Promise.reject(new Error("nope")) }),
    /cannot read key file f: nope/,
  );
});

Deno.test("key precedence: --key, --key-file, EMPIRIC_SIGN_KEY, demo", async () => {
  assert.equal((await resolveKey({ key: "a", envKey: "b" }))!.source, "option");
  assert.equal((await resolveKey({ envKey: "b" }))!.source, "env");
  assert.equal(await resolveKey({}), undefined);
  const demo = await resolveKey({ demoFallback: true });
  assert.equal(demo!.source, "demo");
  assert.ok(isDemoKey(demo!.bytes));
  await assert.rejects(resolveKey({ key: "a", keyFile: "b" }), { code: "key_invalid" });
  await assert.rejects(resolveKey({ key: "" }), { code: "key_invalid" });
});

Deno.test("signing keys need 32 bytes; the demo key is long enough", () => {
  assert.throws(() => assertSigningKey(enc("x".repeat(31))), { code: "key_too_short" });
  assertSigningKey(enc("x".repeat(32)));
  assertSigningKey(keyFromText(DEFAULT_DEMO_KEY));
  assert.ok(keyFromText(DEFAULT_DEMO_KEY).length >= 32);
});
