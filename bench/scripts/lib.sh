# shellcheck shell=bash
# What the bench scripts share. Sourced after `set -euo pipefail`.
script=$(basename "$0")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${AGENTWORKS_BUILD:-$here/build/default}

# need_programs PATH...: every one must be built, else the script says which and what to build.
need_programs() {
  local program
  for program in "$@"; do
    if [ ! -x "$program" ]; then
      echo "$script: $program is missing: build it (cmake --build $build --target $(basename "$program"))" >&2
      exit 1
    fi
  done
}

# need_number WHAT VALUE...: each VALUE must be a number; a run whose output changed shape must fail, never turn
# into a ratio of nothing. Call it in the script's own shell (not inside $(...)), so that its exit ends the script.
need_number() {
  local what=$1 value
  shift
  for value in "$@"; do
    if ! [[ $value =~ ^[0-9]+([.][0-9]+)?$ ]]; then
      echo "$script: $what is not a number ('$value'): the bench's output changed or the run failed" >&2
      exit 1
    fi
  done
}

# ratio A B: A / B with two decimals (both checked numbers, B not zero).
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) exit 1; printf "%.2f", a / b }'
}

# spread VALUE...: "min X, median Y, max Z".
spread() {
  local sorted
  sorted=$(printf '%s\n' "$@" | sort -n)
  echo "min $(head -1 <<<"$sorted"), median $(sed -n "$(( ($# + 1) / 2 ))p" <<<"$sorted"), max $(tail -1 <<<"$sorted")"
}
