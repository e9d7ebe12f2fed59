/**
 * `node dist/npm/cli.mjs verify FILE... [--key-file K | --key TEXT]` and
 * `node dist/npm/cli.mjs verify-dsse ENVELOPE... --public-key PUB...`: the Node port's verifying
 * CLI for CI use. Exit 0 when every record (envelope) verifies, 2 otherwise, 64 for usage errors.
 * Uses only the portable core (Web Crypto for Ed25519 / ECDSA P-256) and `node:` built-ins.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { resolveKey } from "../../src/crypto/keys.ts";
import { verifyRecord } from "../../src/record/verify.ts";
import { importPublicKey } from "../../src/attest/keys.ts";
import { verifyAttestation } from "../../src/attest/verify.ts";

const USAGE = "usage: cli.mjs verify FILE... [--key-file PATH | --key TEXT]\n" +
  "       cli.mjs verify-dsse ENVELOPE... --public-key PUB [--public-key PUB ...]";

/** `verify-dsse`: public-key DSSE envelopes (docs/keys.md), through Web Crypto. */
async function verifyDsse(rest: string[]): Promise<number> {
  const files: string[] = [], keyFiles: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--public-key") {
      const v = rest[++i];
      if (v === undefined) {
        process.stderr.write(`${a} needs a value\n${USAGE}\n`);
        return 64;
      }
      keyFiles.push(v);
    } else if (a.startsWith("-")) {
      process.stderr.write(`unknown option ${a}\n${USAGE}\n`);
      return 64;
    } else files.push(a);
  }
  if (files.length === 0 || keyFiles.length === 0) {
    process.stderr.write(`verify-dsse needs an ENVELOPE and a --public-key\n${USAGE}\n`);
    return 64;
  }
  const publicKeys = [];
  try {
    for (const k of keyFiles) {
      publicKeys.push(await importPublicKey(new TextDecoder().decode(await readFile(k)), k));
    }
  } catch (e) {
    process.stderr.write(
      `${(e as { code?: string }).code ?? "key_invalid"}: ${(e as Error).message}\n`,
    );
    return 64;
  }
  let failed = 0;
  for (const f of files) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(f);
    } catch (e) {
      process.stdout.write(`FAIL ${f}: io_error: ${(e as Error).message}\n`);
      failed++;
      continue;
    }
    const r = await verifyAttestation(bytes, { publicKeys });
    if (r.verified) process.stdout.write(`OK ${f} signed by ${r.signers.join(", ")}\n`);
    else {
      failed++;
      process.stdout.write(`FAIL ${f}: ${r.reason}: ${r.message}\n`);
    }
  }
  return failed === 0 ? 0 : 2;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === "--help" || cmd === "-h") {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (cmd === "verify-dsse") return await verifyDsse(rest);
  if (cmd !== "verify") {
    process.stderr.write(
      `${cmd === undefined ? "missing command" : `unknown command ${cmd}`}\n${USAGE}\n`,
    );
    return 64;
  }
  const files: string[] = [];
  let key: string | undefined, keyFile: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--key" || a === "--key-file") {
      const v = rest[++i];
      if (v === undefined) {
        process.stderr.write(`${a} needs a value\n${USAGE}\n`);
        return 64;
      }
      if (a === "--key") key = v;
      else keyFile = v;
    } else if (a.startsWith("-")) {
      process.stderr.write(`unknown option ${a}\n${USAGE}\n`);
      return 64;
    } else files.push(a);
  }
  if (files.length === 0) {
    process.stderr.write(`no record file given\n${USAGE}\n`);
    return 64;
  }
  let resolved;
  try {
    resolved = await resolveKey({
      key,
      keyFile,
      envKey: process.env.EMPIRIC_SIGN_KEY,
      readFile: (p) => readFile(p),
    });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 64;
  }
  if (!resolved) process.stderr.write("note: no key given: checked structure and proof_id only\n");
  let failed = 0;
  for (const f of files) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(f);
    } catch (e) {
      process.stdout.write(`FAIL ${f}: io_error: ${(e as Error).message}\n`);
      failed++;
      continue;
    }
    const r = await verifyRecord(bytes, { key: resolved?.bytes });
    if (r.valid) process.stdout.write(`OK ${f} ${r.proof_id}\n`);
    else {
      failed++;
      process.stdout.write(`FAIL ${f}: ${r.problems[0].code}: ${r.problems[0].message}\n`);
    }
  }
  return failed === 0 ? 0 : 2;
}

process.exitCode = await main(process.argv.slice(2));
