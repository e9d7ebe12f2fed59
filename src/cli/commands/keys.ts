/**
 * `empiric keygen` and `empiric keyid` (docs/keys.md), and the helpers other commands use to
 * read key files (`--signing-key`, `--public-key`, `--policy`).
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { IoError, UsageError } from "../../errors/errors.ts";
import {
  generateKeyPair,
  importPrivateKey,
  importPublicKey,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type PrivateKey,
  type PublicKey,
  readPolicy,
  type TrustPolicy,
} from "../../ops/attestation_keys.ts";
import { readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";

const decoder = new TextDecoder();

/** Read `--signing-key` files (PKCS#8 PEM private keys). */
export async function readSigningKeys(
  host: CliHost,
  paths: readonly string[] | undefined,
): Promise<PrivateKey[]> {
  const out: PrivateKey[] = [];
  for (const p of paths ?? []) {
    out.push(await importPrivateKey(decoder.decode(await readInput(host, p)), p));
  }
  return out;
}

/** Read `--public-key` files (SubjectPublicKeyInfo PEM). */
export async function readPublicKeys(
  host: CliHost,
  paths: readonly string[] | undefined,
): Promise<PublicKey[]> {
  const out: PublicKey[] = [];
  for (const p of paths ?? []) {
    out.push(await importPublicKey(decoder.decode(await readInput(host, p)), p));
  }
  return out;
}

/** Read `--policy FILE`; key paths in it are relative to the file. */
export async function readPolicyFile(
  host: CliHost,
  path: string | undefined,
): Promise<TrustPolicy | undefined> {
  if (path === undefined) return undefined;
  return await readPolicy(await readInput(host, path), path, {
    readFile: (p) => readInput(host, p),
  });
}

export { collect } from "../options.ts";

/**
 * Write a new file atomically, refusing to replace one (`already_exists`): the bytes go to a
 * temporary file (created with `mode`) that is then hard-linked into place, which fails if the
 * name exists.
 */
async function writeNewFile(path: string, text: string, mode: number): Promise<void> {
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) || "/" : ".";
  const tmp = `${dir}/.${path.slice(slash + 1)}.${crypto.randomUUID()}.tmp`;
  try {
    const f = await Deno.open(tmp, { write: true, createNew: true, mode });
    try {
      const bytes = new TextEncoder().encode(text);
      let off = 0;
      while (off < bytes.length) off += await f.write(bytes.subarray(off));
      await f.sync();
    } finally {
      f.close();
    }
    await Deno.chmod(tmp, mode).catch(() => undefined); // the umask may have narrowed it
    await Deno.link(tmp, path);
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) {
      throw new IoError("already_exists", `${path} exists; refusing to overwrite a key file`);
    }
    throw new IoError("io_error", `cannot write ${path}: ${(e as Error).message}`, { cause: e });
  } finally {
    await Deno.remove(tmp).catch(() => undefined);
  }
}

async function exists(host: CliHost, path: string): Promise<boolean> {
  return (await host.stat(path)) !== "missing";
}

/** The `keygen` command. */
function keygenCommand(host: CliHost): AnyCommand {
  return new Command("keygen")
    .summary("Make an Ed25519 or ECDSA P-256 key pair for signing attestations")
    .description(
      "Write PREFIX.key (PKCS#8 PEM private key, mode 0600) and PREFIX.pub (SubjectPublicKeyInfo " +
        "PEM) and print the key id (docs/keys.md). Refuses to overwrite either file.",
    )
    .addOption(
      new Option("--algorithm <alg>", "key algorithm").choices(KEY_ALGORITHMS).default(
        "ed25519" as KeyAlgorithm,
      ),
    )
    .requiredOption("--out <prefix>", "path prefix of the two files")
    .option("--json", "print the result as one JSON object")
    .action(async (opts) => {
      if (opts.out === "" || opts.out.endsWith("/")) {
        throw new UsageError(`--out needs a path prefix such as keys/ci, got ${opts.out}`);
      }
      const keyPath = `${opts.out}.key`, pubPath = `${opts.out}.pub`;
      for (const p of [keyPath, pubPath]) {
        if (await exists(host, p)) {
          throw new IoError("already_exists", `${p} exists; refusing to overwrite a key file`);
        }
      }
      const pair = await generateKeyPair(opts.algorithm as KeyAlgorithm);
      await writeNewFile(keyPath, pair.privatePem, 0o600);
      try {
        await writeNewFile(pubPath, pair.publicPem, 0o644);
      } catch (e) {
        await Deno.remove(keyPath).catch(() => undefined);
        throw e;
      }
      const keyid = pair.privateKey.keyid;
      if (opts.json) {
        host.stdout(
          JSON.stringify({
            algorithm: opts.algorithm,
            keyid,
            private_key: keyPath,
            public_key: pubPath,
          }) + "\n",
        );
      } else {
        host.stdout(`${keyid}\n`);
        host.stderr(
          `empiric: wrote ${keyPath} (private, keep it secret) and ${pubPath} (${opts.algorithm}, key id ${keyid})\n`,
        );
      }
    });
}

/** The `keyid` command. */
function keyidCommand(host: CliHost): AnyCommand {
  return new Command("keyid")
    .summary("Print the key id of a public or private key file")
    .description(
      "Print the key id (lowercase hex SHA-256 of the DER SubjectPublicKeyInfo, docs/keys.md) " +
        "and algorithm of a PEM public key (PREFIX.pub) or PKCS#8 private key (PREFIX.key).",
    )
    .argument("<file>", "key file, or -")
    .option("--json", "print the result as one JSON object")
    .action(async (path, opts) => {
      const text = decoder.decode(await readInput(host, path));
      const key = text.includes("PRIVATE KEY-----")
        ? (await importPrivateKey(text, path)).publicKey
        : await importPublicKey(text, path);
      if (opts.json) {
        host.stdout(
          JSON.stringify({ keyid: key.keyid, algorithm: key.algorithm, public_key: key.pem }) +
            "\n",
        );
      } else host.stdout(`${key.keyid}  ${key.algorithm}  ${path}\n`);
    });
}

/** The commands of this module: `keygen`, `keyid`. */
export function keyCommands(host: CliHost): AnyCommand[] {
  return [keygenCommand(host), keyidCommand(host)];
}
