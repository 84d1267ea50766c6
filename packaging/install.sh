#!/usr/bin/env bash
# Fresh Debian 12 machine -> agentworks installed in PREFIX (default /usr/local) and the embedded default
# running: the local server on loopback with the CLI logged in (`agentworks up`). Run through sudo, it builds as
# the person who ran sudo (the checkout and its build folder keep their owner) and only installs as root.
# packaging/uninstall.sh removes what it installed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/usr/local}

as_person=()
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
  as_person=(sudo -u "$SUDO_USER" -H)
fi

"$here/packaging/install-deps.sh"

build="$here/build/release"
if [ ${#as_person[@]} -gt 0 ] && [ -e "$build" ] && [ "$(stat -c %U "$build")" != "$SUDO_USER" ]; then
  echo "install.sh: $build belongs to $(stat -c %U "$build") (an earlier run as root?); remove it" \
       "(sudo rm -rf $build) and run install.sh again" >&2
  exit 1
fi
log="$here/build/install-build.log"
"${as_person[@]}" mkdir -p "$here/build"
echo "building agentworks (release build; the compiler's output goes to $log)"
"${as_person[@]}" bash -c 'cmake --preset release -S "$1" >"$2" 2>&1 && cmake --build "$3" -j"$(nproc)" >>"$2" 2>&1' \
  _ "$here" "$log" "$build" &
builder=$!
# Progress, not the compiler's output: ninja's last [done/total] every few seconds.
while kill -0 "$builder" 2>/dev/null; do
  sleep 5
  step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" 2>/dev/null | tail -n 1 || true)
  [ -z "$step" ] || echo "  $step"
done
if ! wait "$builder"; then
  echo "install.sh: the build failed; the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi

sudo=()
[ "$(id -u)" -eq 0 ] || [ -w "$prefix" ] || sudo=(sudo)
"${sudo[@]}" cmake --install "$build" --prefix "$prefix" >/dev/null
# What was installed, for packaging/uninstall.sh.
"${sudo[@]}" cp "$build/install_manifest.txt" "$prefix/share/agentworks-install-manifest.txt"
echo "installed agentworks into $prefix/bin (packaging/uninstall.sh removes it)"

# Start the embedded default as the person, not as root, when run through sudo.
if [ ${#as_person[@]} -gt 0 ]; then
  exec "${as_person[@]}" "$prefix/bin/agentworks" up
fi
exec "$prefix/bin/agentworks" up
