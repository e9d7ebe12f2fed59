#!/usr/bin/env bash
# Fail the step by the verdict (after the bundle was uploaded): exit 3, as `empiric run --fail-on`.
set -euo pipefail

fail() {
  echo "::error title=empiric::$INPUT_SCENARIO: $OUTCOME (fail-on: $INPUT_FAIL_ON)"
  exit 3
}
case "${INPUT_FAIL_ON:-not-validated}" in
  none) ;;
  refuted) [ "$OUTCOME" = REFUTED ] && fail ;;
  inconclusive) [ "$OUTCOME" = INCONCLUSIVE ] && fail ;;
  not-validated) [ "$OUTCOME" != VALIDATED ] && fail ;;
  *)
    echo "::error title=empiric::fail-on must be not-validated, refuted, inconclusive or none, not $INPUT_FAIL_ON"
    exit 2
    ;;
esac
echo "$INPUT_SCENARIO: $OUTCOME"
