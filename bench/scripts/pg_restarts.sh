#!/usr/bin/env bash
# PostgreSQL restarted under load, the long version of the fault test PgRestartTest (R-M1, R-M2): a cluster of its
# own in a temp folder, one server on it, 8 senders retrying with their submission ids, `pg_ctl restart` (fast or
# immediate, at random) every 1-2.5 s. Prints "acknowledged= stored= lost= doubled= refused=" and exits non-zero
# when an acknowledged send is missing or a send is stored twice.
# Usage: bench/scripts/pg_restarts.sh [RESTARTS] [SEED]   (default 120 restarts, about 5 minutes)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
restarts=${1:-120}
build=${AGENTWORKS_BUILD:-$here/build/default}
if [ ! -d "$build" ]; then cmake --preset default -S "$here" >/dev/null; fi
cmake --build "$build" --target fault_tests agentworks-server agentworks-keeper -j"$(nproc)" >/dev/null
export AGENTWORKS_PG_RESTARTS=$restarts
if [ $# -ge 2 ]; then export AGENTWORKS_PG_RESTART_SEED=$2; fi
exec "$build/tests/fault/fault_tests" --gtest_filter='PgRestartTest.*'
