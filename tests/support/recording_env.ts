// An OpsEnvironment wrapper that records every path the operations touch, so tests can check
// that network clients never make the server open a file outside the scenario directory.
import type { OpsEnvironment } from "../../src/ops/environment.ts";

/** The paths passed to each path-taking method of the environment, in call order. */
export interface PathLog {
  readonly calls: { method: string; path: string }[];
  /** Calls whose path, made absolute and normalized, lies outside every allowed directory. */
  outside(allowed: readonly string[]): { method: string; path: string }[];
}

function normalize(path: string): string {
  const abs = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  const out: string[] = [];
  for (const seg of abs.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

/** Wrap `env`: every method whose first argument is a string path is logged. */
export function recordingEnv(env: OpsEnvironment): { env: OpsEnvironment; log: PathLog } {
  const calls: { method: string; path: string }[] = [];
  const wrapped = { ...env } as Record<string, unknown>;
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== "function" || ["env", "now", "monotonic", "runtime"].includes(name)) {
      continue;
    }
    wrapped[name] = (...args: unknown[]) => {
      if (typeof args[0] === "string" && !/^https?:/.test(args[0])) {
        calls.push({ method: name, path: args[0] });
      }
      return (value as (...a: unknown[]) => unknown).apply(env, args);
    };
  }
  return {
    env: wrapped as unknown as OpsEnvironment,
    log: {
      calls,
      outside: (allowed) => {
        const dirs = allowed.map((d) => normalize(d) + "/");
        return calls.filter((c) => {
          const p = normalize(c.path);
          return !dirs.some((d) => p + "/" === d || p.startsWith(d));
        });
      },
    },
  };
}
