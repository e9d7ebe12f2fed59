// A real Deno OpsEnvironment with environment variables overridden for tests.
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

export const ROOT = new URL("../../", import.meta.url).pathname;
export const PY_CALC = `${ROOT}fixtures/substrates/calculator.py`;
export const PY_BAD = `${ROOT}fixtures/substrates/misbehaving.py`;
