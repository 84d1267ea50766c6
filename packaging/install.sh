#!/usr/bin/env bash
# Fresh Debian 12 machine -> agentworks installed in PREFIX (default /usr/local) and the embedded default
# running: the local server on loopback with the CLI logged in (`agentworks up`).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/usr/local}

"$here/packaging/install-deps.sh"
cmake --preset release -S "$here" >/dev/null
cmake --build "$here/build/release" -j"$(nproc)"

sudo=()
[ "$(id -u)" -eq 0 ] || [ -w "$prefix" ] || sudo=(sudo)
"${sudo[@]}" cmake --install "$here/build/release" --prefix "$prefix" >/dev/null
echo "installed agentworks into $prefix/bin"

# Start the embedded default as the person, not as root, when run through sudo.
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
  exec sudo -u "$SUDO_USER" -H "$prefix/bin/agentworks" up
fi
exec "$prefix/bin/agentworks" up
