// External peers some tests talk to (a Python package, a browser). On a developer machine a
// missing peer turns those tests into "ignored" with the install command; in CI
// (`EMPIRIC_REQUIRE_ALL=1`, set by .ci/run, which installs them) a missing peer is a failure.
import { ROOT } from "./env.ts";

const requireAll = Deno.env.get("EMPIRIC_REQUIRE_ALL") === "1";

async function probe(cmd: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output()).success;
  } catch {
    return false;
  }
}

/**
 * Whether a peer is available. Missing in CI: throws (the test file fails). Missing elsewhere:
 * prints why on stderr and returns false, so tests can pass `ignore: !available`.
 */
export async function peer(
  name: string,
  check: () => Promise<boolean>,
  install: string,
): Promise<boolean> {
  if (await check()) return true;
  const message = `${name} is not installed (${install}); the tests that need it are ignored`;
  if (requireAll) {
    throw new Error(message.replace("are ignored", "cannot run, and CI requires them"));
  }
  console.error(`warning: ${message}`);
  return false;
}

/** A Python module importable by `python3`. */
export function pythonModule(module: string, pipName = module): Promise<boolean> {
  return peer(
    `python3 with ${pipName}`,
    () => probe("python3", ["-c", `import ${module}`]),
    `python3 -m pip install ${pipName}`,
  );
}

/** A Chromium executable at `path`. */
export function chromiumAt(path: string): Promise<boolean> {
  return peer(
    `Chromium at ${path}`,
    () => Deno.stat(path).then(() => true, () => false),
    "apt-get install -y chromium, or set EMPIRIC_CHROMIUM",
  );
}

/** Path of the Rust port's `empiric-proof` binary (release build). */
export const RUST_PORT_BIN = `${ROOT}ports/rust/target/release/empiric-proof`;

let rustBuilt: Promise<void> | undefined;

/** Build the Rust port's CLI once per test process (cargo is incremental; a no-op when fresh). */
export function buildRustPort(): Promise<void> {
  rustBuilt ??= (async () => {
    const cargo = await new Deno.Command("cargo", {
      args: [
        "build",
        "-q",
        "--release",
        "--manifest-path",
        `${ROOT}ports/rust/Cargo.toml`,
        "--bin",
        "empiric-proof",
      ],
      stderr: "inherit",
    }).output();
    if (!cargo.success) throw new Error("cargo build of ports/rust failed");
  })();
  return rustBuilt;
}

/** cargo, to build the Rust port. */
export function cargoAvailable(): Promise<boolean> {
  return peer("cargo", () => probe("cargo", ["--version"]), "https://rustup.rs");
}

/**
 * The cosign binary: `EMPIRIC_COSIGN`, else the CI cache (`$HOME/.cache/empiric-ci/bin/cosign`,
 * built by .ci/run), else `cosign` on the PATH. Undefined (and the tests ignored) when none runs.
 */
export async function cosignBinary(): Promise<string | undefined> {
  const candidates = [
    Deno.env.get("EMPIRIC_COSIGN"),
    `${Deno.env.get("HOME") ?? ""}/.cache/empiric-ci/bin/cosign`,
    "cosign",
  ].filter((c): c is string => !!c);
  for (const c of candidates) if (await probe(c, ["version"])) return c;
  const ok = await peer(
    "cosign",
    () => Promise.resolve(false),
    "go install github.com/sigstore/cosign/v3/cmd/cosign@v3.1.3, or set EMPIRIC_COSIGN",
  );
  return ok ? "cosign" : undefined;
}
