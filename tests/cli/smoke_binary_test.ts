// .ci/smoke-binary, the smoke test the CI and release workflows run against every compiled
// binary on its own OS, run here against the CLI from source (the same permission flags), so the
// script itself is tested: a failure of any step fails this test.
import assert from "node:assert/strict";
import { CLI_FLAGS } from "../support/run_cli.ts";
import { peer } from "../support/peers.ts";

import { ROOT } from "../support/env.ts";
const hasCurl = await peer(
  "curl",
  async () =>
    (await new Deno.Command("curl", { args: ["--version"], stdout: "null" }).output().catch(() => ({
      success: false,
    }))).success,
  "apt-get install -y curl",
);

Deno.test({
  name: ".ci/smoke-binary passes against the CLI from source",
  ignore: !hasCurl,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const shim = `${dir}/empiric`;
    await Deno.writeTextFile(
      shim,
      `#!/usr/bin/env bash\nexec "${Deno.execPath()}" run ${
        CLI_FLAGS.join(" ")
      } "${ROOT}cli.ts" "$@"\n`,
    );
    await Deno.chmod(shim, 0o755);
    const out = await new Deno.Command("bash", {
      args: [`${ROOT}.ci/smoke-binary`, shim],
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", NO_COLOR: "1" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    assert.match(text, /smoke: ok/);
  },
});
