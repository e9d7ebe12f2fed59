// Run every test suite of the project and print one closing line `N passed, N failed`.
//
//   deno task test                 all suites whose toolchain is installed
//   EMPIRIC_REQUIRE_ALL=1 ...      fail if a suite's toolchain is missing (CI)
//
// Suites: Deno (unit, property, differential, end-to-end, doc examples), the Rust port
// (cargo test) and the Python port (pytest). Each suite's own output is passed through.

interface Suite {
  name: string;
  cmd: string[];
  cwd?: string;
  needs: string;
  parse: (out: string) => { passed: number; failed: number } | undefined;
}

const root = new URL("..", import.meta.url).pathname;

const suites: Suite[] = [
  {
    name: "deno",
    // The runner gets every permission (test peers such as Playwright probe /proc); the
    // end-to-end tests start the real entry points with the binary's exact flags.
    cmd: [Deno.execPath(), "test", "--allow-all", "--doc", "tests/", "src/"],
    needs: Deno.execPath(),
    parse: (out) => {
      const m = [...out.matchAll(/^(?:ok|FAILED) \| (\d+) passed.*? \| (\d+) failed/gm)].at(-1);
      return m ? { passed: +m[1], failed: +m[2] } : undefined;
    },
  },
  {
    name: "rust",
    cmd: ["cargo", "test", "--release", "--manifest-path", "ports/rust/Cargo.toml"],
    needs: "cargo",
    parse: (out) => {
      const ms = [...out.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed/gm)];
      if (ms.length === 0) return undefined;
      return ms.reduce((a, m) => ({ passed: a.passed + +m[1], failed: a.failed + +m[2] }), {
        passed: 0,
        failed: 0,
      });
    },
  },
  {
    name: "python",
    cmd: ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "ports/python/tests"],
    needs: "python3",
    parse: (out) => {
      const line = out.split("\n").reverse().find((l) => /\d+ (passed|failed)/.test(l));
      if (!line) return undefined;
      return {
        passed: +(line.match(/(\d+) passed/)?.[1] ?? 0),
        failed: +(line.match(/(\d+) failed/)?.[1] ?? 0) + +(line.match(/(\d+) error/)?.[1] ?? 0),
      };
    },
  },
];

async function available(cmd: string): Promise<boolean> {
  try {
    const r = await new Deno.Command(cmd, { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    return r.success;
  } catch {
    return false;
  }
}

const requireAll = Deno.env.get("EMPIRIC_REQUIRE_ALL") === "1";
const only = Deno.args.length > 0 ? new Set(Deno.args) : undefined;
let passed = 0, failed = 0, broken = false;
const summary: string[] = [];
for (const s of suites) {
  if (only && !only.has(s.name)) continue;
  if (
    s.name !== "deno" && !(await Deno.stat(`${root}ports/${s.name}`).then(() => true, () => false))
  ) {
    summary.push(`${s.name}: no port found, skipped`);
    continue;
  }
  if (!(await available(s.needs))) {
    summary.push(`${s.name}: skipped (${s.needs} not installed)`);
    if (requireAll) broken = true;
    continue;
  }
  console.log(`\n=== ${s.name} suite: ${s.cmd.join(" ")}`);
  const child = new Deno.Command(s.cmd[0], {
    args: s.cmd.slice(1),
    cwd: root,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  // Each stream is kept whole: interleaved, a line of one (cargo's "Running ...") could split a
  // summary line of the other and lose its counts.
  const pump = async (stream: ReadableStream<Uint8Array>, sink: typeof Deno.stdout) => {
    const dec = new TextDecoder();
    let text = "";
    for await (const chunk of stream) {
      text += dec.decode(chunk, { stream: true });
      await sink.write(chunk);
    }
    return text;
  };
  const [status, out, err] = await Promise.all([
    child.status,
    pump(child.stdout, Deno.stdout),
    pump(child.stderr, Deno.stderr),
  ]);
  const counts = s.parse(`${out}\n${err}`);
  if (!counts) {
    summary.push(`${s.name}: no test summary found (exit ${status.code})`);
    broken = true;
    continue;
  }
  if (!status.success && counts.failed === 0) broken = true;
  passed += counts.passed;
  failed += counts.failed;
  summary.push(`${s.name}: ${counts.passed} passed, ${counts.failed} failed (exit ${status.code})`);
}
console.log("\n=== summary");
for (const l of summary) console.log(l);
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(failed > 0 || broken ? 1 : 0);
