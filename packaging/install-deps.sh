#!/usr/bin/env bash
# Installs the Debian 12 packages agentworks builds and tests with. Safe to re-run: it asks apt only
# for what is missing. Uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libuv1-dev libcurl4-openssl-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libspdlog-dev
  libgtest-dev libevent-dev sqlite3 curl procps
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "installing: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
