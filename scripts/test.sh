#!/usr/bin/env bash
# Builds and runs every test. Usage: scripts/test.sh [PRESET...]   (default: default asan)
#   default: the shipping build (no failpoints), every test (unit, integration, fault, e2e with the real Claude
#            Code and Codex CLIs, the PostgreSQL copies), then the Debian package from the same tree (CPack strips
#            the programs), checked by packaging/check-package.sh: every file, the programs running from an empty
#            root, man pages, completions, the systemd user units, lintian
#   asan:    AddressSanitizer + UndefinedBehaviorSanitizer with the failpoints, without the e2e and postgresql
#            labels (each runs once, in the default preset) and with 50 bridge crash cycles instead of 200
#   debug:   a debug build with the failpoints and every test but e2e
# Prints each phase's duration at the end. The whole run stays under 40 minutes on a 2-core machine
# (docs/architecture.md, "CI budget").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

phases=()
phase() {  # phase NAME COMMAND...: runs it and records how long it took
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  phases+=("$(printf '%-34s %5ds' "$name" $((SECONDS - start)))")
}
report() {
  echo "== phase durations"
  printf '%s\n' "${phases[@]}"
  echo "total                              $((SECONDS))s"
}
trap report EXIT

install_agent_clis() {
  # The real Claude Code and Codex CLIs for the end-to-end tests (test-only npm packages pinned in
  # tests/e2e/package-lock.json). npm 11 may hold back Claude Code's postinstall, which only swaps its native
  # binary in: run it by hand when `claude` does not start. In CI the e2e tests must run, not skip.
  (cd tests/e2e && npm ci --no-audit --no-fund)
  # The real MCP client (@modelcontextprotocol/sdk, pinned in tests/mcp/package-lock.json) for mcp_test.cpp.
  (cd tests/mcp && npm ci --no-audit --no-fund)
  # The DevTools client (ws, pinned in tests/browser/package-lock.json) that drives Chromium for the status page.
  (cd tests/browser && npm ci --no-audit --no-fund)
  if ! tests/e2e/node_modules/.bin/claude --version >/dev/null 2>&1; then
    (cd tests/e2e/node_modules/@anthropic-ai/claude-code && node install.cjs)
  fi
  # The old Claude Code (no session inbox) for the native-route fallback tests: the same postinstall rule.
  if ! tests/e2e/node_modules/claude-code-2-1-197/bin/claude.exe --version >/dev/null 2>&1; then
    (cd tests/e2e/node_modules/claude-code-2-1-197 && node install.cjs)
  fi
  tests/e2e/node_modules/.bin/claude --version
  tests/e2e/node_modules/claude-code-2-1-197/bin/claude.exe --version
  tests/e2e/node_modules/.bin/codex --version
  PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 tests/e2e/node_modules/.bin/pi --version
}

build() {  # build PRESET
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j"$(nproc)"
}

phase "install packages" "$here/packaging/install-deps.sh" --tests
phase "install agent CLIs and test clients (npm)" install_agent_clis
export AGENTWORKS_E2E_REQUIRED=1

package() {  # the .deb from the default tree: no third compile
  cmake --build --preset default --target package
  packaging/check-package.sh "$(ls -t build/default/agentworks_*.deb | head -1)"
}

presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(default asan)
for preset in "${presets[@]}"; do
  phase "$preset: build" build "$preset"
  case "$preset" in
    default)
      phase "$preset: tests (all labels)" ctest --preset "$preset"
      phase "$preset: Debian package and its checks" package ;;
    asan)    phase "$preset: tests (not e2e, postgresql or long)" ctest --preset "$preset" -LE "e2e|postgresql|long" ;;
    *)       phase "$preset: tests (not e2e)" ctest --preset "$preset" -LE e2e ;;
  esac
done
if [ -x fuzz/smoke.sh ]; then
  phase "fuzz smoke (libFuzzer, ASan+UBSan)" fuzz/smoke.sh
fi
