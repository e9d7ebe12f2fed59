#!/usr/bin/env bash
# Run the scenario for the action: the record, its observations and reports go to the output
# directory (the bundle), the Markdown summary to the job summary. The verdict is decided by the
# next step, so that the bundle is uploaded whatever it is.
set -euo pipefail

out="${INPUT_OUT_DIR:-empiric-out}"
mkdir -p "$out"
if [ -n "${INPUT_SIGN_KEY:-}" ]; then
  echo "::add-mask::$INPUT_SIGN_KEY"
  export EMPIRIC_SIGN_KEY="$INPUT_SIGN_KEY"
fi
if [ -z "${EMPIRIC_SIGN_KEY:-}" ]; then
  echo "::warning title=empiric::no sign-key input and no EMPIRIC_SIGN_KEY: the record is signed with the public demo key"
fi
args=(run "$INPUT_SCENARIO" --store "${INPUT_STORE:-.empiric/proofs}" --out "$out/record.json" --force
  --report "$out/report.html" --report "$out/junit.xml" --report "$out/summary.md" --json --quiet)
[ -n "${INPUT_SUBSTRATE:-}" ] && args+=(--substrate "$INPUT_SUBSTRATE")
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && args+=(--summary)
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<<"$INPUT_ARGS"
  args+=("${extra[@]}")
fi

status=0
empiric "${args[@]}" >"$out/result.json" || status=$?
if [ "$status" -ne 0 ]; then
  echo "::error title=empiric::empiric run $INPUT_SCENARIO failed (exit $status)"
  exit "$status"
fi
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$out/result.json" | head -n 1; }
outcome="$(field outcome)"
proof_id="$(field proof_id)"
{
  echo "outcome=$outcome"
  echo "proof-id=$proof_id"
  echo "record=$out/record.json"
  echo "report=$out/report.html"
  echo "bundle=$out"
} >>"${GITHUB_OUTPUT:-/dev/null}"
echo "$outcome: $INPUT_SCENARIO (proof $proof_id)"
