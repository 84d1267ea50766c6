#!/usr/bin/env bash
# Installs the Debian 12 packages agentworks builds and tests with. Safe to re-run: it asks apt only
# for what is missing. Uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libuv1-dev libcurl4-openssl-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libspdlog-dev
  libgtest-dev libevent-dev sqlite3 curl procps
  libssl-dev openssl  # the server's TLS; the tests make their certificates with the openssl command
  libvalijson-dev  # JSON Schema draft-07 validation of function inputs and results (docs/decisions/)
  tmux  # the end-to-end tests drive the Claude Code and Codex TUIs in it
  clang libclang-rt-14-dev  # the libFuzzer targets (fuzz/README.md)
  libfiu-dev fiu-utils      # the fault tests inject failing fdatasync/pwrite with libfiu's preload (tests/fault)
  libpq-dev      # the server's PostgreSQL store and the test harness's cluster control (testing/pg_admin.cpp)
  postgresql-15  # initdb, pg_ctl and postgres for the pg.* integration tests (tests/integration/README.md)
  dpkg-dev file lintian groff-base systemd  # the .deb and its checks: dpkg-shlibdeps, lintian, man pages, units
  chromium  # the status page tests load `agentworks ui` in headless Chromium (tests/browser)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm install the real agent CLIs for the end-to-end tests (tests/e2e/package.json). A node from
# elsewhere (e.g. nodesource, which bundles npm) is fine; only when there is none, take Debian's.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "installing: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
