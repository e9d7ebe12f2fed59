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
import { toHex } from "../../src/crypto/hash.ts";

async function pythonHmac(key: Uint8Array, message: Uint8Array): Promise<string> {
  const out = await new Deno.Command("python3", {
    args: [
      "-c",
      "import hmac,hashlib,sys;print(hmac.new(bytes.fromhex(sys.argv[1]),bytes.fromhex(sys.argv[2]),hashlib.sha256).hexdigest())",
      toHex(key),
      toHex(message),
    ],
  }).output();
  assert.ok(out.success, "python3 is needed for this test");
  return new TextDecoder().decode(out.stdout).trim();
}

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

Deno.test("HMAC agrees with Web Crypto for keys of every length and chunked input", async () => {
  // RFC 2104: keys longer than the 64-byte block are hashed first; shorter ones are padded.
  const enc = new TextEncoder();
  const message = enc.encode("The quick brown fox jumps over the lazy dog");
  const parts = [message.subarray(0, 10), message.subarray(10)];
  for (const length of [0, 1, 32, 63, 64, 65, 100, 200]) {
    const k = new Uint8Array(length).map((_, i) => (i * 7 + 3) & 0xff);
    // Reference: Python's hmac module, which handles the empty key too.
    const want = await pythonHmac(k, message);
    for (const webOnly of length === 0 ? [false] : [false, true]) {
      useWebCryptoOnly(webOnly);
      assert.equal(await hmacSha256Hex(k, message), want, `key of ${length} bytes`);
      assert.equal(await hmacSha256Hex(k, parts), want, `chunked, key of ${length} bytes`);
      assert.equal(await hmacSha256Verify(k, parts, want), true);
      assert.equal(await sha256Hex(parts), await sha256Hex(message));
    }
  }
  useWebCryptoOnly(false);
});
