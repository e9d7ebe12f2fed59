// Both hashing backends (synchronous node:crypto where the runtime offers it, Web Crypto in
// browsers) give identical SHA-256, HMAC and verification results on every wire vector.
import assert from "node:assert/strict";
import {
  cryptoBackend,
  hmacSha256Hex,
  hmacSha256Verify,
  sha256Hex,
  useWebCryptoOnly,
} from "../../src/crypto/mod.ts";

const doc = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/wire/vectors.json", import.meta.url)),
);
const key = new TextEncoder().encode(doc.hmac_key_utf8);

Deno.test("node:crypto and Web Crypto backends agree on every vector", async () => {
  assert.equal(cryptoBackend(), "node", "Deno offers node:crypto through process.getBuiltinModule");
  const results: string[][] = [];
  for (const webOnly of [false, true]) {
    useWebCryptoOnly(webOnly);
    assert.equal(cryptoBackend(), webOnly ? "webcrypto" : "node");
    const out: string[] = [];
    for (const v of doc.valid) {
      const bytes = new TextEncoder().encode(v.canonical);
      const sha = await sha256Hex(bytes);
      const mac = await hmacSha256Hex(key, bytes);
      assert.equal(sha, v.sha256, v.name);
      assert.equal(mac, v.hmac_sha256, v.name);
      assert.equal(await hmacSha256Verify(key, bytes, mac), true);
      assert.equal(
        await hmacSha256Verify(key, bytes, mac.replace(/^./, (c) => (c === "0" ? "1" : "0"))),
        false,
      );
      assert.equal(
        await hmacSha256Verify(key, bytes, mac.toUpperCase()),
        false,
        "uppercase hex is not a signature",
      );
      out.push(sha + mac);
    }
    results.push(out);
  }
  useWebCryptoOnly(false);
  assert.deepEqual(results[0], results[1]);
});
