/**
 * The real {@link OpsEnvironment} on Deno, used by the CLI, HTTP and MCP entry points.
 *
 * @module
 */
import { EMPIRIC_VERSION } from "../version.ts";
import { BUILD_COMMIT } from "../build_info.ts";
import { RESULT_LIBRARIES } from "../run/libraries.ts";
import type { RuntimeInfo } from "../run/run.ts";
import type { OpsEnvironment } from "./environment.ts";

async function git(args: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("git", {
      args,
      stdout: "piped",
      stderr: "null",
      stdin: "null",
    }).output();
    if (!out.success) return undefined;
    const s = new TextDecoder().decode(out.stdout).trim();
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(s) ? s : undefined;
  } catch {
    return undefined;
  }
}

const sourceDir = (() => {
  const u = new URL("../..", import.meta.url);
  return u.protocol === "file:" ? decodeURIComponent(u.pathname) : undefined;
})();

let empiricCommit: string | undefined;

/** empiric's own commit: `EMPIRIC_GIT_COMMIT`, the release build stamp, else git in the source checkout. */
export async function detectEmpiricCommit(): Promise<string> {
  if (empiricCommit !== undefined) return empiricCommit;
  const fromEnv = Deno.env.get("EMPIRIC_GIT_COMMIT");
  empiricCommit = fromEnv || BUILD_COMMIT ||
    (sourceDir ? await git(["-C", sourceDir, "rev-parse", "HEAD"]) : undefined) || "unknown";
  return empiricCommit;
}

/** Build the Deno environment (detects empiric's commit once). */
export async function denoOpsEnvironment(): Promise<OpsEnvironment> {
  const commit = await detectEmpiricCommit();
  const runtime: RuntimeInfo = {
    empiricVersion: EMPIRIC_VERSION,
    empiricCommit: commit,
    host: {
      deno: Deno.version.deno,
      v8: Deno.version.v8,
      typescript: Deno.version.typescript,
      os: Deno.build.os,
      arch: Deno.build.arch,
    },
    libraries: { ...RESULT_LIBRARIES },
  };
  return {
    readFile: (p) => Deno.readFile(p),
    readText: async (p) => {
      try {
        return await Deno.readTextFile(p);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.IsADirectory) {
          return undefined;
        }
        throw e;
      }
    },
    listDir: async (p) => {
      const out: string[] = [];
      try {
        for await (const e of Deno.readDir(p)) {
          if (e.isFile && /\.(ya?ml|json)$/.test(e.name)) out.push(e.name);
        }
      } catch {
        // no such directory: no scenarios there
      }
      return out;
    },
    fetchBytes: async (u) => {
      const r = await fetch(u);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    },
    now: () => Date.now(),
    monotonic: () => performance.now(),
    env: (n) => Deno.env.get(n),
    runtime: () => runtime,
    gitCommit: async (path) => {
      let dir = path;
      try {
        if ((await Deno.stat(path)).isFile) dir = path.replace(/[\\/][^\\/]*$/, "") || ".";
      } catch {
        return undefined;
      }
      return await git(["-C", dir, "rev-parse", "HEAD"]);
    },
    exists: (p) => Deno.stat(p).then(() => true, () => false),
  };
}
