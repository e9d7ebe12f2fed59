/**
 * `empiric schema info` and `empiric schema validate`.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { EXIT } from "../../errors/codes.ts";
import { asEmpiricError, UsageError } from "../../errors/errors.ts";
import { parseJson } from "../../json/parse.ts";
import { DEMO_KEY_BYTES } from "../../ops/keys.ts";
import { formatSummary, summarizeRecord } from "../../ops/keys.ts";
import { verifyProofImpl, type VerifyProofResult } from "../../ops/verify_proof_impl.ts";
import { cliKey, formatProblem, readInput } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { keyFileOption, keyOption } from "../options.ts";

/** Walk a directory depth-first in sorted order, yielding `*.json` files (bounded memory). */
export async function* walkJsonFiles(host: CliHost, dir: string): AsyncGenerator<string> {
  const files: string[] = [];
  const dirs: string[] = [];
  for await (const e of host.readDir(dir)) {
    if (e.name.startsWith(".")) continue;
    const path = dir.endsWith("/") ? dir + e.name : `${dir}/${e.name}`;
    if (e.isDirectory) dirs.push(path);
    else if (
      (e.isFile || e.isSymlink) && e.name.endsWith(".json") && !e.name.endsWith(".scenario.json")
    ) {
      files.push(path); // a bundle's scenario file is not a record
    }
  }
  files.sort();
  dirs.sort();
  yield* files;
  for (const d of dirs) yield* walkJsonFiles(host, d);
}

interface FileResult {
  path: string;
  ok: boolean;
  result?: VerifyProofResult;
  error?: { code: string; message: string };
}

async function validateFile(
  host: CliHost,
  path: string,
  key?: Uint8Array<ArrayBuffer>,
): Promise<FileResult> {
  let bytes: Uint8Array;
  try {
    bytes = await readInput(host, path);
  } catch (e) {
    const err = asEmpiricError(e);
    return { path, ok: false, error: { code: err.code, message: err.message } };
  }
  const result = await verifyProofImpl(bytes, { key });
  return { path, ok: result.valid, result };
}

function describe(r: FileResult, keyGiven: boolean): string {
  if (r.error) return `FAIL  ${r.path}: ${r.error.code}: ${r.error.message}\n`;
  const res = r.result!;
  if (r.ok) {
    const what = keyGiven
      ? "signature verified"
      : "structure and proof_id valid; signature not checked (no key)";
    return `OK    ${r.path}  ${res.verdict?.outcome ?? ""} proof_id=${
      res.proof_id?.slice(0, 16)
    }…  ${what}${res.demo_key ? " (demo key!)" : ""}\n`;
  }
  const [first, ...rest] = res.problems;
  let out = `FAIL  ${r.path}: ${formatProblem(first)}\n`;
  for (const p of rest.slice(0, 20)) out += `        ${formatProblem(p)}\n`;
  if (rest.length > 20) out += `        … and ${rest.length - 20} more problems\n`;
  return out;
}

/** The `schema` command group. */
export function schemaCommand(host: CliHost, setExit: (code: number) => void): AnyCommand {
  const schema = new Command("schema").description("Inspect and validate proof record files");

  schema.command("info")
    .description("Print a record summary: path, kind, schema_version, signature, demo-key status")
    .argument("<path>", "record file")
    .option("--json", "print the summary as a JSON object")
    .action(async (path, opts) => {
      const value = parseJson(await readInput(host, path));
      const summary = await summarizeRecord(path, value);
      host.stdout(opts.json ? JSON.stringify(summary) + "\n" : formatSummary(summary) + "\n");
    });

  schema.command("validate")
    .description(
      "Validate records against the JSON Schema and check proof_id; with a key also check the signature.\n" +
        "Exit 0 when every record passes, 2 on any failure.",
    )
    .argument("<path>", "record file, or a directory with --recursive")
    .addOption(keyOption())
    .addOption(keyFileOption())
    .option("--demo-key", "verify with the public demo key (for records made by the demo)")
    .option("-r, --recursive", "validate every *.json file below a directory")
    .option("--json", "print one JSON object per file, then a summary object (JSON Lines)")
    .action(async (path, opts) => {
      if (opts.demoKey && (opts.key !== undefined || opts.keyFile !== undefined)) {
        throw new UsageError("--demo-key cannot be combined with --key or --key-file");
      }
      const key = opts.demoKey
        ? { bytes: DEMO_KEY_BYTES, source: "demo" as const }
        : await cliKey(host, opts);
      if (key?.source === "env" && !opts.json) {
        host.stderr("empiric: using the key from EMPIRIC_SIGN_KEY\n");
      }
      const kind = await host.stat(path);
      let paths: AsyncIterable<string> | string[];
      if (kind === "directory") {
        if (!opts.recursive) {
          throw new UsageError(
            `${path} is a directory: add --recursive to validate every record in it`,
          );
        }
        paths = walkJsonFiles(host, path);
      } else {
        paths = [path];
      }
      let okCount = 0, failCount = 0;
      for await (const p of paths) {
        const r = await validateFile(host, p, key?.bytes);
        if (r.ok) okCount++;
        else failCount++;
        if (opts.json) {
          host.stdout(
            JSON.stringify({
              path: r.path,
              ok: r.ok,
              ...(r.result ?? {}),
              ...(r.error ? { reason: r.error.code, problems: [r.error] } : {}),
            }) + "\n",
          );
        } else {
          host.stdout(describe(r, key !== undefined));
        }
      }
      const total = okCount + failCount;
      if (opts.json) {
        host.stdout(
          JSON.stringify({
            summary: { files: total, ok: okCount, failed: failCount, key: key?.source ?? null },
          }) + "\n",
        );
      } else if (total === 0) {
        host.stdout(`no *.json record files found below ${path}\n`);
      } else {
        host.stdout(`${total} file${total === 1 ? "" : "s"}: ${okCount} OK, ${failCount} FAIL\n`);
      }
      setExit(failCount === 0 && total > 0 ? EXIT.ok : EXIT.failed);
    });
  return schema;
}
