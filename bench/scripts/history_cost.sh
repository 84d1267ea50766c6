#!/usr/bin/env bash
# Whether a send costs more on a server that stores more: two SQLite servers side by side, one holding SMALL
# messages and one holding LARGE (sent by agentworks-bench-load beforehand, kept: --inbox-history 1000000), then
# short measuring runs alternated A B A B … (ROUNDS each, one sender, so that a round adds little history). Prints
# each run's CPU per accepted send and read p50 and p99, and the ratios large/small: min/median/max. The goal
# (docs/benchmarks.md, "Cost per send against history"): CPU per send and read p99 at most 1.1x.
# Usage: bench/scripts/history_cost.sh [SMALL [LARGE [ROUNDS]]] (default 10000 1000000 3). AGENTWORKS_BUILD picks the
# build tree (default build/default). Exit 1 when a run fails.
set -euo pipefail
# shellcheck source=bench/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
small=${1:-10000}
large=${2:-1000000}
rounds=${3:-3}
bench=$build/bench/agentworks-bench-load
server=$build/server/agentworks-server
need_programs "$bench" "$server"
work=$(mktemp -d /tmp/aw-history-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a server on DIR; prints its URL once it listens.
start_server() {
  mkdir -p "$1"
  "$server" --listen 127.0.0.1:0 --data "$1" --inbox-history 1000000 --rate-limit-per-hour 1000000000 \
    >"$1/stdout" 2>"$1/stderr" &
  pids+=($!)
  echo $! >"$1/pid"
  for _ in $(seq 300); do
    if url=$(grep -o 'http://127.0.0.1:[0-9]*' "$1/stdout" 2>/dev/null) && [ -s "$1/owner.token" ]; then
      echo "$url"
      return
    fi
    sleep 0.1
  done
  echo "history_cost.sh: the server in $1 did not start" >&2
  cat "$1/stderr" >&2
  exit 1
}

# load DIR URL SECONDS SENDERS [READ_OPTIONS...]: one agentworks-bench-load run against that server; prints its
# CPU per send, read p99, accepted sends and read p50. Its streams resume where the server's last run ended
# (DIR/cursor), as the bridge resumes from its stored cursor: without that every run's fresh streams would first
# replay the whole stored history (a catch-up, measured by the bridge benchmark), and on the large server that
# replay, not the sends, would be what the run measures.
load() {
  local out cursor
  cursor=$(cat "$1/cursor" 2>/dev/null || echo m0)
  if ! out=$("$bench" --url "$2" --token "$(cat "$1/owner.token")" --server-pid "$(cat "$1/pid")" \
               --receivers 100 --senders "$4" --duration "$3" --stream-after "$cursor" "${@:5}" 2>&1); then
    echo "history_cost.sh: a run against $2 failed:" >&2
    echo "$out" >&2
    exit 1
  fi
  local cpu read_p99 read_p50 accepted last
  cpu=$(grep -m1 '^result:' <<<"$out" | sed -E 's/.*cpu_us_per_send=([0-9]+).*/\1/')
  accepted=$(grep -m1 '^result:' <<<"$out" | sed -E 's/.*accepted=([0-9]+).*/\1/')
  last=$(grep -m1 '^result:' <<<"$out" | sed -E 's/.*last_cursor=(m[0-9]+).*/\1/')
  read_p99=$(grep -m1 '^read latency' <<<"$out" | sed -E 's/.*p99=([0-9.]+) ms.*/\1/')
  read_p50=$(grep -m1 '^read latency' <<<"$out" | sed -E 's/.*p50=([0-9.]+) ms.*/\1/')
  if [ "$last" != m0 ]; then echo "$last" >"$1/cursor"; fi
  echo "$cpu $read_p99 $accepted $read_p50"
}

# fill DIR URL COUNT: sends until the server holds at least COUNT messages.
fill() {
  local held=0 accepted seconds
  while ((held < $3)); do
    # About 5,000 sends/s with 8 senders: a run short enough not to overshoot much, at most 10 s.
    seconds=$(awk -v left=$(($3 - held)) 'BEGIN { s = left / 5000; printf "%.1f", s < 0.2 ? 0.2 : (s > 10 ? 10 : s) }')
    read -r _ _ accepted _ <<<"$(load "$1" "$2" "$seconds" 8)"
    need_number "a filling run's accepted sends" "$accepted"
    held=$((held + accepted))
  done
  echo "$held"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
url_small=$(start_server "$work/small")
url_large=$(start_server "$work/large")
echo "filling: $(fill "$work/small" "$url_small" "$small") messages on the small server," \
     "$(fill "$work/large" "$url_large" "$large") on the large one"
cpu_ratios=()
read_ratios=()
read_p50_ratios=()
# Each read is a page of 100 at a random point of the history (the same work on both servers; following a cursor
# from the start, a small server's mailboxes end after a few pages and its reads return less), 200 a second: 600
# reads a run, so that the p99 is not the third-slowest of 300.
read_options=(--reads-per-second 200 --reads-in-history)
for ((r = 1; r <= rounds; r++)); do
  read -r cpu_s read_s _ p50_s <<<"$(load "$work/small" "$url_small" 3 1 "${read_options[@]}")"
  read -r cpu_l read_l _ p50_l <<<"$(load "$work/large" "$url_large" 3 1 "${read_options[@]}")"
  need_number "round $r's CPU per send and read p50/p99" "$cpu_s" "$read_s" "$cpu_l" "$read_l" "$p50_s" "$p50_l"
  echo "round $r: small: ${cpu_s} us/send, read p50 ${p50_s} p99 ${read_s} ms;" \
       "large: ${cpu_l} us/send, read p50 ${p50_l} p99 ${read_l} ms"
  cpu_ratios+=("$(ratio "$cpu_l" "$cpu_s")")
  read_ratios+=("$(ratio "$read_l" "$read_s")")
  read_p50_ratios+=("$(ratio "$p50_l" "$p50_s")")
done
echo "CPU per send, large/small: $(spread "${cpu_ratios[@]}")"
echo "read p99, large/small:     $(spread "${read_ratios[@]}")"
echo "read p50, large/small:     $(spread "${read_p50_ratios[@]}")"
echo "database sizes: small $(du -sh "$work/small" | cut -f1), large $(du -sh "$work/large" | cut -f1)"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
