#!/usr/bin/env bash
# Install empiric for the action: the release binary for the runner's OS and architecture (its
# SHA-256 checked against the release's .sha256 file), else Deno from the npm registry running
# the action's own checkout. Puts `empiric` on the PATH of the following steps.
set -euo pipefail

bin_dir="${RUNNER_TEMP:-/tmp}/empiric-bin"
mkdir -p "$bin_dir"
out="${GITHUB_OUTPUT:-/dev/null}"

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=macos ;;
  Windows | MINGW* | MSYS*) os=windows ;;
  *) os="" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=x86_64 ;;
  ARM64 | arm64 | aarch64) arch=$([ "$os" = linux ] && echo aarch64 || echo arm64) ;;
  *) arch="" ;;
esac
exe=""
[ "$os" = windows ] && exe=".exe"
target="$os-$arch"

version="${EMPIRIC_VERSION:-}"
if [ -z "$version" ]; then
  case "${EMPIRIC_ACTION_REF:-}" in
    v[0-9]*) version="$EMPIRIC_ACTION_REF" ;;
    *) version=latest ;;
  esac
fi
server="${GITHUB_SERVER_URL:-https://github.com}"
repo="${EMPIRIC_ACTION_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}"
if [ "$version" = latest ]; then
  base="$server/$repo/releases/latest/download"
else
  base="$server/$repo/releases/download/$version"
fi

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

installed=""
if [ -n "$os" ] && [ -n "$arch" ] && [ -n "$repo" ]; then
  name="empiric-$target$exe"
  tmp="$(mktemp -d)"
  if curl -fsSL --retry 2 --connect-timeout 10 -o "$tmp/$name" "$base/$name" &&
    curl -fsSL --retry 2 --connect-timeout 10 -o "$tmp/$name.sha256" "$base/$name.sha256"; then
    want="$(cut -d' ' -f1 <"$tmp/$name.sha256")"
    got="$(sha256_of "$tmp/$name")"
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
      mv "$tmp/$name" "$bin_dir/empiric$exe"
      chmod +x "$bin_dir/empiric$exe"
      installed=release
    else
      echo "::warning title=empiric::$name from $base does not match its SHA-256 ($got, expected $want); not installed"
    fi
  else
    echo "::notice title=empiric::no release binary $name at $base; using Deno"
  fi
  rm -rf "$tmp"
fi

if [ -z "$installed" ]; then
  deno_version="${EMPIRIC_DENO_VERSION:-2.9.6}"
  if ! command -v deno >/dev/null 2>&1 || [ "$(deno --version | awk 'NR==1{print $2}')" != "$deno_version" ]; then
    echo "installing deno $deno_version from the npm registry"
    npm install -g "deno@$deno_version" >/dev/null
  fi
  deno_path="$(command -v deno)"
  cat >"$bin_dir/empiric" <<WRAPPER
#!/usr/bin/env bash
exec "$deno_path" run --quiet --allow-read --allow-write --allow-env --allow-net --allow-run --allow-sys "$GITHUB_ACTION_PATH/cli.ts" "\$@"
WRAPPER
  chmod +x "$bin_dir/empiric"
  installed=deno
fi

echo "$bin_dir" >>"${GITHUB_PATH:-/dev/null}"
echo "method=$installed" >>"$out"
"$bin_dir/empiric$([ "$installed" = release ] && echo "$exe")" --version
