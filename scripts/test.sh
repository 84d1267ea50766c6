#!/usr/bin/env bash
# Builds and runs every test. Usage: scripts/test.sh [PRESET...]   (default: default asan)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
"$here/packaging/install-deps.sh"

# The real Claude Code and Codex CLIs for the end-to-end tests (test-only npm packages pinned in
# tests/e2e/package-lock.json). npm 11 may hold back Claude Code's postinstall, which only swaps its native
# binary in: run it by hand when `claude` does not start. In CI the e2e tests must run, not skip.
(cd tests/e2e && npm ci --no-audit --no-fund)
# The real MCP client (@modelcontextprotocol/sdk, pinned in tests/mcp/package-lock.json) for mcp_test.cpp.
(cd tests/mcp && npm ci --no-audit --no-fund)
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
export AGENTWORKS_E2E_REQUIRED=1

presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(default asan)
for preset in "${presets[@]}"; do
  echo "== preset $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$(nproc)"
  echo "== preset $preset: tests"
  ctest --preset "$preset"
done
