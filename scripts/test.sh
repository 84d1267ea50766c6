#!/usr/bin/env bash
# Builds and runs every test. Usage: scripts/test.sh [PRESET...]   (default: default asan)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
"$here/packaging/install-deps.sh"

presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(default asan)
for preset in "${presets[@]}"; do
  echo "== preset $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$(nproc)"
  echo "== preset $preset: tests"
  ctest --preset "$preset"
done
