# The fuzz targets and their -max_len, sourced by fuzz/smoke.sh and bench/scripts/fuzz_long.sh.
# delivery_text_fuzz needs inputs longer than the delivery budget (up to 12,000 units) to reach truncation.
# shellcheck disable=SC2034
fuzz_targets=(sse_parser_fuzz line_reader_fuzz request_fields_fuzz hook_input_fuzz prompt_command_fuzz
              http_body_fuzz delivery_text_fuzz status_page_request_fuzz)
fuzz_max_len() { case "$1" in delivery_text_fuzz) echo 40000 ;; *) echo 4096 ;; esac; }

# Configures and builds the fuzz configuration in $1 (clang, libFuzzer, ASan, UBSan, warnings as errors).
fuzz_build() {
  local src build
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  build=$1
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DAGENTWORKS_FUZZ=ON -DAGENTWORKS_TESTS=OFF -DAGENTWORKS_BENCH=OFF -DAGENTWORKS_WERROR=ON >/dev/null
  cmake --build "$build" --target agentworks_fuzzers -j"$(nproc)"
}

# Runs one target for $3 executions on a scratch copy of its seed corpus; artifacts (crash-*, leak-*, timeout-*)
# go to $4. Prints "TARGET executions=N exec_per_sec=N crashes=N" and returns libFuzzer's exit code.
fuzz_run() {
  local build=$1 target=$2 runs=$3 out=$4 src work rc log
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  work=$(mktemp -d)
  cp -r "$src/corpus/$target/." "$work/"
  mkdir -p "$out"
  log="$out/$target.log"
  set +e
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/$target" -runs="$runs" -max_len="$(fuzz_max_len "$target")" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$target-" "$work" >"$log" 2>&1
  rc=$?
  set -e
  rm -rf "$work"
  local execs eps crashes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  crashes=$(find "$out" -maxdepth 1 -name "$target-*" -type f | wc -l)
  echo "$target executions=${execs:-0} exec_per_sec=${eps:-0} crashes=$crashes exit=$rc"
  if [ "$rc" -ne 0 ]; then
    echo "---- $target failed; last lines of $log:"
    tail -n 40 "$log"
  fi
  return "$rc"
}
