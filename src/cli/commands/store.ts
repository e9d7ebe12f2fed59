/**
 * `empiric store migrate|copy` (store administration) and `empiric push` (send records to a
 * server's `POST /proofs`). Each calls its operation from the registry as a local caller.
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { ERROR_TABLE, EXIT } from "../../errors/codes.ts";
import { DEFAULT_DEMO_KEY } from "../../ops/constants.ts";
import {
  copyStoreOp,
  createOpHost,
  invoke,
  migrateStoreOp,
  type OpsEnvironment,
  pushProofsOp,
} from "../../ops/mod.ts";
import { cliKey } from "../context.ts";
import type { AnyCommand, CliHost } from "../host.ts";
import { keyFileOption, keyOption, storeDir, storeOption } from "../options.ts";
import { readToken } from "./http.ts";

/** The `store` command group. */
export function storeCommand(
  host: CliHost,
  env: () => Promise<OpsEnvironment>,
  setExit: (c: number) => void,
): AnyCommand {
  const cmd = new Command("store")
    .summary("Administer a proof store: migrate its schema, copy it (docs/store.md)")
    .description(
      "Administer a proof store: a directory, or a PostgreSQL database (docs/store.md)",
    );
  cmd.command("migrate")
    .description(
      "Bring the store's schema up to date (PostgreSQL: apply pending numbered migrations;\n" +
        "directory: rebuild an index of an older layout). Safe while servers run.",
    )
    .addOption(storeOption())
    .option("--json", "print JSON (the migrate_store result)")
    .action(async (opts) => {
      const ops = createOpHost({
        caller: "local",
        env: await env(),
        store: storeDir(host, opts.store),
      });
      try {
        const r = await invoke(migrateStoreOp, {}, ops);
        host.stdout(
          opts.json
            ? JSON.stringify(r) + "\n"
            : `${r.store}: schema version ${r.version}${
              r.applied.length ? ` (applied ${r.applied.join(", ")})` : " (up to date)"
            }\n`,
        );
      } finally {
        await ops.close();
      }
    });
  cmd.command("copy")
    .description(
      "Copy every record (with its observations and scenario) from one store into another,\n" +
        "verifying each under the key on the way; e.g. --from ./proofs --to postgres://…\n" +
        "The target keeps what it has, so a copy can be repeated. Exit 2 when a record\n" +
        "does not verify (it is listed and not copied).",
    )
    .requiredOption("--from <dir|url>", "source store (must exist)")
    .requiredOption("--to <dir|url>", "target store (created when missing)")
    .addOption(keyOption("HMAC key the records verify under; also EMPIRIC_SIGN_KEY"))
    .addOption(keyFileOption())
    .option("--json", "print JSON (the copy_store result)")
    .action(async (opts) => {
      const key = (await cliKey(host, opts, true))!;
      if (key.source === "demo") {
        host.stderr(
          `empiric: warning: verifying with the public demo key (${DEFAULT_DEMO_KEY}); give --key-file or EMPIRIC_SIGN_KEY for records signed with your key\n`,
        );
      }
      const ops = createOpHost({ caller: "local", env: await env(), key });
      try {
        const r = await invoke(copyStoreOp, { from: opts.from, to: opts.to }, ops);
        if (opts.json) host.stdout(JSON.stringify(r) + "\n");
        else {
          host.stdout(
            `copied ${r.copied} of ${r.records} records from ${r.from} to ${r.to} (${r.already_there} already there, ${r.parts} bundle parts, ${r.failed.length} refused)\n`,
          );
        }
        for (const f of r.failed) {
          host.stderr(`empiric: not copied: ${f.proof_id}: ${f.code}: ${f.message}\n`);
        }
        setExit(r.failed.length > 0 ? EXIT.failed : EXIT.ok);
      } finally {
        await ops.close();
      }
    });
  return cmd;
}

/** The `push` command. */
export function pushCommand(
  host: CliHost,
  env: () => Promise<OpsEnvironment>,
  setExit: (c: number) => void,
): AnyCommand {
  return new Command("push")
    .summary("Send record files to a server's registry (POST /proofs)")
    .description(
      "Send record files to a server (POST /proofs), which verifies each under its key and\n" +
        "stores it; <record>.observations.jsonl and <record>.scenario.json beside a record go\n" +
        "with it. Pushing a record the server already has changes nothing (reported as\n" +
        "'already there'). Exit 0 when every record is stored; else the exit code of the\n" +
        "first refusal's error code (2 for a record that does not verify).",
    )
    .argument("<record...>", "record files")
    .requiredOption("--to <url>", "the server's base URL, e.g. https://registry.example:8787")
    .addOption(
      new Option("--token <token>", "bearer token of the server; also EMPIRIC_HTTP_TOKEN")
        .conflicts("tokenFile"),
    )
    .option("--token-file <path>", "read the bearer token from a file")
    .option("--no-parts", "send the records only, not their observations and scenario")
    .option("--json", "print JSON (the push_proofs result)")
    .action(async (files, opts) => {
      const token = await readToken(host, opts);
      const ops = createOpHost({ caller: "local", env: await env() });
      try {
        const r = await invoke(pushProofsOp, {
          files,
          to: opts.to,
          token,
          parts: opts.parts,
        }, ops);
        if (opts.json) host.stdout(JSON.stringify(r) + "\n");
        let exit: number = EXIT.ok;
        for (const x of r.results) {
          const parts = x.parts.length ? ` (with ${x.parts.join(", ")})` : "";
          if (x.code === null) {
            if (!opts.json) {
              host.stdout(
                `${x.created ? "stored" : "already there"}  ${x.file}${parts}  ${
                  x.location ?? x.proof_id
                }\n`,
              );
            }
          } else {
            host.stderr(`empiric: not stored: ${x.file}: ${x.code}: ${x.message}\n`);
            if (exit === EXIT.ok) {
              exit = ERROR_TABLE[x.code as keyof typeof ERROR_TABLE]?.exit ?? EXIT.io;
            }
          }
        }
        setExit(exit);
      } finally {
        await ops.close();
      }
    });
}
