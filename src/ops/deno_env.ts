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
import { cpuModelFromCpuinfo, firstLine, interpreterOf } from "./host_facts.ts";
import { ScenarioError } from "../errors/errors.ts";

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

let empiricCommit: Promise<string> | undefined;

/**
 * Read a regular file without following a symlink: `lstat` must show a regular file, and the
 * opened file must be that same file (device and inode), so a name swapped for a symlink in
 * between is not followed. Reads at most `maxBytes`.
 */
async function readRegularText(path: string, maxBytes: number): Promise<string | undefined> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return undefined;
  }
  if (!info.isFile) return undefined;
  if (info.size > maxBytes) {
    throw new ScenarioError(
      "scenario_invalid",
      `${path} is ${info.size} bytes, more than the ${maxBytes} bytes a scenario file may have`,
    );
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return undefined;
  }
  try {
    const opened = await file.stat();
    if (!opened.isFile || opened.ino !== info.ino || opened.dev !== info.dev) return undefined;
    const buf = new Uint8Array(Math.min(opened.size, maxBytes) + 1);
    let n = 0;
    while (n < buf.length) {
      const r = await file.read(buf.subarray(n));
      if (r === null) break;
      n += r;
    }
    if (n > maxBytes) {
      throw new ScenarioError(
        "scenario_invalid",
        `${path} is more than the ${maxBytes} bytes a scenario file may have`,
      );
    }
    return new TextDecoder().decode(buf.subarray(0, n));
  } finally {
    file.close();
  }
}

/** empiric's own commit: `EMPIRIC_GIT_COMMIT`, the release build stamp, else git in the source checkout. */
export function detectEmpiricCommit(): Promise<string> {
  // The promise is kept, so that callers at the same time share one `git rev-parse`.
  empiricCommit ??= (async () => {
    const fromEnv = Deno.env.get("EMPIRIC_GIT_COMMIT");
    return fromEnv || BUILD_COMMIT ||
      (sourceDir ? await git(["-C", sourceDir, "rev-parse", "HEAD"]) : undefined) || "unknown";
  })();
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
      ...await cpuFacts(),
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
    readRegularText: (p, maxBytes) => readRegularText(p, maxBytes),
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
    substrateRuntime: (argv) => interpreterVersion(argv),
  };
}

/** CPU model and logical core count, as far as this OS tells them without privileges. */
async function cpuFacts(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (navigator.hardwareConcurrency > 0) out.cpu_cores = String(navigator.hardwareConcurrency);
  let model: string | undefined;
  if (Deno.build.os === "linux") {
    model = await Deno.readTextFile("/proc/cpuinfo").then(cpuModelFromCpuinfo, () => undefined);
  } else if (Deno.build.os === "darwin") {
    model = await run(["sysctl", "-n", "machdep.cpu.brand_string"]);
  } else if (Deno.build.os === "windows") {
    model = Deno.env.get("PROCESSOR_IDENTIFIER");
  }
  if (model) out.cpu_model = model;
  return out;
}

/** `<interpreter> --version` of a `cmd:` substrate's command line (2 s at most), or undefined. */
async function interpreterVersion(argv: readonly string[]): Promise<string | undefined> {
  const interpreter = interpreterOf(argv);
  if (interpreter === undefined) return undefined;
  return await run([interpreter, /java$/i.test(interpreter) ? "-version" : "--version"]);
}

async function run(argv: string[]): Promise<string | undefined> {
  try {
    const out = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(2000),
    }).output();
    if (!out.success) return undefined;
    const dec = new TextDecoder();
    return firstLine(dec.decode(out.stdout)) ?? firstLine(dec.decode(out.stderr));
  } catch {
    return undefined;
  }
}
