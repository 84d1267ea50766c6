#!/usr/bin/env bash
# How the bridge's catch-up grows: agentworks-bench-bridge with SMALL and LARGE waiting messages over 100 offline
# attachments, alternated SS L SS L … SS (ROUNDS large runs, each between two floors, a fresh bridge and server
# each run). A floor is the faster of two small runs (one 0.3 s run alone is too noisy to be a floor). Each large
# run's time is divided by the mean of the floors just before and after it;
# prints every run, the ratios' min/median/max, and the slowest `status` of all runs. The goal (docs/benchmarks.md,
# "Catch-up scaling"): ratio <= 1.2 x LARGE/SMALL, slowest status <= 50 ms.
# Usage: bench/scripts/catchup_scaling.sh [SMALL [LARGE [ROUNDS]]] (default 10000 50000 3). AGENTWORKS_BUILD picks
# the build tree (default build/default). Exit 1 when a run fails or does not catch up, 3 when the two floors of
# a large run differ by more than 20 % (the machine changed under the run: nothing is concluded).
set -euo pipefail
# shellcheck source=bench/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
small=${1:-10000}
large=${2:-50000}
rounds=${3:-3}
bench=$build/bench/agentworks-bench-bridge
need_programs "$bench"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# One run: prints "SECONDS SLOWEST_STATUS_MS"; exits 1 (with the run's output) when it did not catch up.
run() {
  local out
  if ! out=$("$bench" --attachments 100 --backlog "$1" --backlog-sessions 100 --takes 10 --idle 1 \
               --max-seconds 900 2>&1); then
    echo "catchup_scaling.sh: the run with $1 messages failed:" >&2
    echo "$out" >&2
    exit 1
  fi
  local line status
  line=$(grep -m1 "caught up:" <<<"$out") || { echo "$out" >&2; exit 1; }
  status=$(grep -m1 "slowest status round trip" <<<"$out" | sed -E 's/.*catch-up: ([0-9]+) ms.*/\1/')
  echo "$(sed -E 's/.* ([0-9.]+) s after resume.*/\1/' <<<"$line") $status"
}

# The faster of two small runs: "SECONDS SLOWEST_STATUS_MS".
floor() {
  local a sa b sb
  read -r a sa <<<"$(run "$small")"
  read -r b sb <<<"$(run "$small")"
  awk -v a="$a" -v b="$b" -v sa="$sa" -v sb="$sb" 'BEGIN { printf "%s %d\n", (a < b ? a : b), (sa > sb ? sa : sb) }'
}

read -r floor_before slowest <<<"$(floor)"
need_number "the small run's time and slowest status" "$floor_before" "$slowest"
echo "small $small: ${floor_before} s"
ratios=()
for ((r = 1; r <= rounds; r++)); do
  read -r measured status <<<"$(run "$large")"
  need_number "the large run's time and slowest status" "$measured" "$status"
  ((status > slowest)) && slowest=$status
  read -r floor_after status <<<"$(floor)"
  need_number "the small run's time and slowest status" "$floor_after" "$status"
  ((status > slowest)) && slowest=$status
  echo "large $large: ${measured} s; small $small: ${floor_after} s"
  if ! awk -v a="$floor_before" -v b="$floor_after" \
      'BEGIN { lo = a < b ? a : b; hi = a < b ? b : a; exit !(hi <= 1.2 * lo) }'; then
    echo "catchup_scaling.sh: the floors around round $r differ by more than 20 % ($floor_before s, $floor_after s):" \
         "refused" >&2
    exit 3
  fi
  ratios+=("$(ratio "$measured" "$(awk -v a="$floor_before" -v b="$floor_after" 'BEGIN { print (a + b) / 2 }')")")
  floor_before=$floor_after
done
echo "ratio large/small (work x$(ratio "$large" "$small")): $(spread "${ratios[@]}"); slowest status $slowest ms"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
