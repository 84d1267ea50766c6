#!/usr/bin/env bash
# SIGKILL cycles: builds the benchmark and the programs (default preset) and runs
# agentworks-bench-kill-cycles. Usage: bench/scripts/kill_cycles.sh [CYCLES] [MAX_SECONDS] [extra options...]
# (default 1000 cycles, at most 3600 s). Exits non-zero on any lost or doubled message, an integrity_check
# failure, or when it measured nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cycles=${1:-1000}
max_seconds=${2:-3600}
shift $(( $# > 2 ? 2 : $# ))
build=${AGENTWORKS_BUILD:-$here/build/default}
if [ ! -d "$build" ]; then cmake --preset default -S "$here" >/dev/null; fi
cmake --build "$build" --target agentworks-bench-kill-cycles -j"$(nproc)" >/dev/null
exec "$build/bench/agentworks-bench-kill-cycles" --cycles "$cycles" --max-seconds "$max_seconds" "$@"
