// `empiric http serve` refuses bad numeric options before it listens: usage error (64), one line
// naming the option and the accepted range, no stack trace.
import assert from "node:assert/strict";
import { runCli } from "../support/run_cli.ts";

const KEY = "http-cli-test-key-0123456789abcdefghij";

Deno.test("http serve: numeric options out of range are usage errors (64)", async () => {
  const dir = await Deno.makeTempDir();
  const cases: [string, string, RegExp][] = [
    ["--port", "70000", /--port must be a whole number from 0 to 65535, got 70000/],
    ["--workers", "0", /--workers must be a whole number from 1 to 64, got 0/],
    ["--max-body-bytes", "0", /--max-body-bytes must be a whole number from 1 to/],
    ["--body-timeout-ms", "0", /--body-timeout-ms must be a whole number from 1 to 2147483647/],
    ["--body-timeout-ms", "1.5", /--body-timeout-ms must be a whole number/],
    ["--body-timeout-ms", "2147483648", /--body-timeout-ms must be a whole number/],
  ];
  for (const [option, value, message] of cases) {
    const r = await runCli(["http", "serve", option, value, "--store", `${dir}/s`], {
      env: { EMPIRIC_SIGN_KEY: KEY },
      cwd: dir,
    });
    assert.equal(r.code, 64, `${option} ${value}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    assert.equal(r.stdout, "");
  }
  await Deno.remove(dir, { recursive: true });
});
