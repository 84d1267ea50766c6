#!/usr/bin/env bash
# CI smoke run of every fuzz target: builds the fuzz configuration (fuzz/README.md) and runs each target for a
# bounded number of executions from its seed corpus. Exits non-zero when any target crashes, leaks, times out
# or trips a sanitizer or an invariant. Usage: fuzz/smoke.sh [RUNS]   (default 20000; build dir: build/fuzz,
# or $AGENTWORKS_FUZZ_BUILD)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=fuzz/targets.sh
. "$here/targets.sh"
runs=${1:-20000}
build=${AGENTWORKS_FUZZ_BUILD:-$here/../build/fuzz}
out=$(mktemp -d /tmp/aw-fuzz-smoke.XXXXXX)

fuzz_build "$build"
passed=0
failed=0
for t in "${fuzz_targets[@]}"; do
  if fuzz_run "$build" "$t" "$runs" "$out"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
  echo "crash inputs and logs kept in $out (reproduce: build/fuzz/fuzz/TARGET FILE)"
  exit 1
fi
rm -rf "$out"
