#!/usr/bin/env bash
# Long fuzz run: builds the fuzz configuration (fuzz/README.md) and runs every target for RUNS executions
# (default 1,000,000) from its seed corpus, printing executions, exec/s and crashes per target.
# Usage: bench/scripts/fuzz_long.sh [RUNS]. Exits non-zero when any target crashed.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=fuzz/targets.sh
. "$here/fuzz/targets.sh"
runs=${1:-1000000}
build=${AGENTWORKS_FUZZ_BUILD:-$here/build/fuzz}
out=$(mktemp -d /tmp/aw-fuzz-long.XXXXXX)
fuzz_build "$build"
echo "fuzz_long: $runs executions per target, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
failed=0
start=$(date +%s)
for t in "${fuzz_targets[@]}"; do
  fuzz_run "$build" "$t" "$runs" "$out" || failed=$((failed + 1))
done
echo "fuzz_long: $(( ${#fuzz_targets[@]} - failed )) passed, $failed failed in $(( $(date +%s) - start )) s"
if [ "$failed" -ne 0 ]; then
  echo "crash inputs and logs in $out"
  exit 1
fi
rm -rf "$out"
