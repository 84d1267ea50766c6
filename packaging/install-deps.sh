#!/usr/bin/env bash
# Installs the Debian 12 packages agentworks needs. Safe to re-run: it asks apt only for what is missing. Uses
# sudo when not root.
#   install-deps.sh           what building and running need (packaging/install.sh)
#   install-deps.sh --tests   that, and what the tests need too (scripts/test.sh)
#   install-deps.sh --list [--tests]   prints the packages it would ensure, one per line, and installs nothing
set -euo pipefail

build=(
  build-essential cmake ninja-build pkg-config git procps
  libuv1-dev libcurl4-openssl-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libspdlog-dev libevent-dev
  libssl-dev       # the server's TLS
  libvalijson-dev  # JSON Schema draft-07 validation of function inputs and results (docs/decisions/)
  libpq-dev        # the server's PostgreSQL store
)
tests=(
  libgtest-dev sqlite3 curl
  openssl   # the tests make their certificates with the openssl command
  tmux      # the end-to-end tests drive the Claude Code and Codex TUIs in it
  clang libclang-rt-14-dev  # the libFuzzer targets (fuzz/README.md)
  libfiu-dev fiu-utils      # the fault tests inject failing fdatasync/pwrite with libfiu's preload (tests/fault)
  postgresql-15  # initdb, pg_ctl and postgres for the pg.* integration tests (tests/integration/README.md)
  dpkg-dev file lintian groff-base systemd  # the .deb and its checks: dpkg-shlibdeps, lintian, man pages, units
  chromium  # the status page tests load `agentworks ui` in headless Chromium (tests/browser)
)

with_tests=0
list=0
for arg in "$@"; do
  case "$arg" in
    --tests) with_tests=1 ;;
    --list) list=1 ;;
    *) echo "install-deps.sh: unknown argument $arg (use --tests, --list)" >&2; exit 2 ;;
  esac
done
packages=("${build[@]}")
[ "$with_tests" -eq 0 ] || packages+=("${tests[@]}")
if [ "$list" -eq 1 ]; then
  printf '%s\n' "${packages[@]}"
  [ "$with_tests" -eq 0 ] || echo "npm"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm install the real agent CLIs for the end-to-end tests (tests/e2e/package.json). A node from
# elsewhere (e.g. nodesource, which bundles npm) is fine; only when there is none, take Debian's.
if [ "$with_tests" -eq 1 ]; then command -v npm >/dev/null 2>&1 || missing+=(nodejs npm); fi
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "installing: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
