/**
 * Sigstore bundles (v0.3, `application/vnd.dev.sigstore.bundle.v0.3+json`) of public-key DSSE
 * attestations, built and validated with `@sigstore/bundle` (docs/keys.md, "Sigstore bundles").
 *
 * A bundle carries one DSSE signature and names its key in `verificationMaterial.publicKey.hint`
 * (empiric's key id); the signature's own `keyid` is empty, as cosign writes key-signed bundles
 * and as sigstore-go expects (it skips a signature whose `keyid` differs from its own idea of
 * the key's id). No transparency log entry and no timestamp: verifiers are told to skip the log
 * (`cosign verify-blob-attestation --key K --bundle B --insecure-ignore-tlog`), or use keyless
 * signing in CI, which gives both (docs/keys.md).
 *
 * Verification reads the bundle with `@sigstore/bundle` (which validates it) and checks the
 * envelope with {@link verifyAttestation}. `@sigstore/verify` is not used for it: under Deno
 * 2.9.6 its ECDSA check fails, because Deno's `node:crypto.verify(null, ...)` has no default
 * digest for EC keys (Node uses SHA-256), so every P-256 bundle would be rejected. Ed25519
 * bundles verify there, and the tests check that.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import {
  bundleFromJSON,
  bundleToJSON,
  isBundleWithDsseEnvelope,
  isBundleWithPublicKey,
  toDSSEBundle,
} from "@sigstore/bundle";
import { EmpiricError } from "../errors/errors.ts";
import { base64Decode } from "../crypto/base64.ts";
import type { JsonObject, JsonValue } from "../json/value.ts";
import { parseJson } from "../json/parse.ts";
import type { DsseEnvelope } from "./dsse.ts";

export { BUNDLE_V03_MEDIA_TYPE } from "@sigstore/bundle";

/**
 * The Sigstore bundle v0.3 of one signature of a public-key DSSE envelope (by default the
 * first): `dsseEnvelope` with that signature, `verificationMaterial.publicKey.hint` = its key id.
 */
export function toSigstoreBundle(envelope: DsseEnvelope, keyid?: string): JsonObject {
  const sig = keyid === undefined
    ? envelope.signatures[0]
    : envelope.signatures.find((s) => s.keyid === keyid);
  if (!sig || !sig.keyid) {
    throw new EmpiricError(
      "usage_error",
      keyid === undefined
        ? "the envelope has no signature with a key id to bundle"
        : `the envelope has no signature by key ${keyid}`,
    );
  }
  const bundle = toDSSEBundle({
    artifact: Buffer.from(base64Decode(envelope.payload)!),
    artifactType: envelope.payloadType,
    signature: Buffer.from(base64Decode(sig.sig)!),
    keyHint: sig.keyid,
  });
  bundle.content.dsseEnvelope.signatures[0].keyid = "";
  // Round trip through the validating reader: what is written is a valid v0.3 bundle.
  const json = bundleToJSON(bundle);
  bundleFromJSON(json);
  return parseJson(JSON.stringify(json)) as JsonObject;
}

/**
 * The DSSE envelope inside a Sigstore bundle with a public-key hint, its signature given the
 * hint as `keyid`. Throws `schema_invalid` for a bundle `@sigstore/bundle` refuses, one without a
 * DSSE envelope, or one verified by certificate (keyless: use cosign or sigstore-js for those).
 */
export function envelopeFromBundle(value: JsonValue): DsseEnvelope {
  let bundle;
  try {
    bundle = bundleFromJSON(JSON.parse(JSON.stringify(value)));
  } catch (e) {
    throw new EmpiricError(
      "schema_invalid",
      `not a valid Sigstore bundle: ${(e as Error).message}`,
    );
  }
  if (!isBundleWithDsseEnvelope(bundle)) {
    throw new EmpiricError("schema_invalid", "the Sigstore bundle holds no DSSE envelope");
  }
  if (!isBundleWithPublicKey(bundle)) {
    throw new EmpiricError(
      "schema_invalid",
      "the Sigstore bundle is certificate-based (keyless): verify it with cosign or sigstore-js",
    );
  }
  const env = bundle.content.dsseEnvelope;
  const hint = bundle.verificationMaterial.content.publicKey.hint;
  return {
    payload: Buffer.from(env.payload).toString("base64"),
    payloadType: env.payloadType,
    signatures: env.signatures.map((s) => ({
      keyid: s.keyid || hint,
      sig: Buffer.from(s.sig).toString("base64"),
    })),
  };
}
