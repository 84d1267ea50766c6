#!/usr/bin/env bash
# Removes what packaging/install.sh installed into PREFIX (default /usr/local), by the list the install kept. It
# stops the embedded default first (`agentworks down`) when it runs. The person's login, journal and data under
# ~/.config, ~/.local/state and ~/.local/share stay; the Debian packages install-deps.sh added stay too.
set -euo pipefail
prefix=${PREFIX:-/usr/local}
manifest="$prefix/share/agentworks-install-manifest.txt"
if [ ! -f "$manifest" ]; then
  echo "uninstall.sh: $manifest is missing: nothing was installed into $prefix by install.sh (set PREFIX?)" >&2
  exit 4
fi

as_person=()
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
  as_person=(sudo -u "$SUDO_USER" -H)
fi
if [ -x "$prefix/bin/agentworks" ]; then
  "${as_person[@]}" "$prefix/bin/agentworks" down >/dev/null 2>&1 || true  # nothing running is fine
fi

sudo=()
[ "$(id -u)" -eq 0 ] || [ -w "$prefix" ] || sudo=(sudo)
removed=0
while IFS= read -r file; do
  case "$file" in "$prefix"/*) ;; *) continue ;; esac  # only what lies under PREFIX
  if [ -e "$file" ] || [ -L "$file" ]; then
    "${sudo[@]}" rm -f -- "$file"
    removed=$((removed + 1))
  fi
done < "$manifest"
"${sudo[@]}" rm -f -- "$manifest"
echo "removed $removed files of agentworks from $prefix"
