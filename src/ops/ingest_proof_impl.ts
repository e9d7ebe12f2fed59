/**
 * The work behind `ingest_proof` and `copy_store`, loaded on first use: verify a record, check
 * its bundle parts against it, store it.
 *
 * @module
 */
import { EmpiricError } from "../errors/errors.ts";
import { parseJson } from "../json/parse.ts";
import { checkBundleParts } from "../record/bundle.ts";
import type { BundleParts, ProofStore, PutResult } from "../store/types.ts";
import { verifyProofImpl } from "./verify_proof.ts";

/**
 * Verify a record's bytes under `key`, check its parts against it, and store it. The shared
 * path of `POST /proofs` and `empiric store copy`: a record that does not verify is refused
 * with the verification's code and problems, a demo-key record is refused unless
 * `allowDemoKey` (anyone can forge one: a server never stores them; a local copy of one's own
 * store may), and parts the record does not vouch for are `bundle_mismatch`.
 */
export async function verifyAndStore(
  store: ProofStore,
  bytes: Uint8Array,
  parts: BundleParts,
  key: Uint8Array<ArrayBuffer>,
  options: { allowDemoKey?: boolean } = {},
): Promise<PutResult> {
  const v = await verifyProofImpl(bytes, { key });
  if (v.demo_key && !options.allowDemoKey) {
    throw new EmpiricError(
      "forbidden",
      "this store's key is the public demo key, under which anyone can forge a record; it stores no records it did not make (give the server a key with --key-file or EMPIRIC_SIGN_KEY)",
    );
  }
  if (!v.verified) {
    const first = v.problems[0];
    throw new EmpiricError(
      first?.code ?? "signature_mismatch",
      `the record does not verify: ${first?.message ?? v.reason ?? "unknown reason"}`,
      { problems: v.problems, pointer: first?.pointer, position: first?.position },
    );
  }
  const value = parseJson(bytes);
  const problems = await checkBundleParts(value, parts);
  if (problems.length > 0) {
    throw new EmpiricError("bundle_mismatch", problems[0].message, {
      problems,
      pointer: problems[0].pointer,
    });
  }
  return await store.putBytes(bytes, parts, value);
}
