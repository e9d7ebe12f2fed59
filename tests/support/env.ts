// What every test shares: the repository root, the keys (the test signing key, and the key the
// fixtures/records are signed with), a real Deno OpsEnvironment with variables overridden, and a
// clean environment for child processes. Defined here once; other support modules re-export.
import { denoOpsEnvironment } from "../../src/ops/deno_env.ts";
import type { OpsEnvironment } from "../../src/ops/environment.ts";

export const TEST_SIGN_KEY = new TextEncoder().encode("empiric-test-signing-key-0123456789abcdef");

export async function testEnv(vars: Record<string, string> = {}): Promise<OpsEnvironment> {
  const base = await denoOpsEnvironment();
  return {
    ...base,
    env: (n) => (n in vars ? vars[n] : n === "SOURCE_DATE_EPOCH" ? undefined : base.env(n)),
  };
}

/** The repository's root directory (with a trailing slash). */
export const ROOT = new URL("../../", import.meta.url).pathname;
/** The shared record fixtures (every port is tested on them). */
export const RECORDS = `${ROOT}fixtures/records/`;
/** The key the record fixtures are signed with, as text and as bytes. */
export const FIXTURE_KEY_TEXT = "empiric-record-fixtures-test-key-v1";
export const FIXTURE_KEY = new TextEncoder().encode(FIXTURE_KEY_TEXT);

/** A clean environment for child processes: NO_COLOR, HOME, PATH, DENO_DIR, TMPDIR, plus `vars`. */
export function childEnv(vars: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { NO_COLOR: "1", ...vars };
  for (const k of ["HOME", "PATH", "DENO_DIR", "TMPDIR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined && !(k in out)) out[k] = v;
  }
  return out;
}

export const PY_CALC = `${ROOT}fixtures/substrates/calculator.py`;
export const PY_BAD = `${ROOT}fixtures/substrates/misbehaving.py`;
