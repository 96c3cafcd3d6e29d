#!/usr/bin/env bash
# Installs the Debian packages the trial sandbox (sandbox/) needs. Idempotent: when every
# package is already installed nothing is fetched, and `apt-get update` only runs when
# something is missing. Needs root (the sandbox itself needs root too: per-slot users,
# cgroups, network namespaces).
set -euo pipefail

# package → a command it provides (what the sandbox actually calls)
PACKAGES=(
    "bubblewrap:bwrap"   # mount/pid/ipc/uts namespaces for every sandboxed exec
    "iproute2:ip"        # inspecting a trial's network namespace (tests, debugging)
    "passwd:useradd"     # creating the per-slot users arkevo-slot-N
    "util-linux:nsenter" # nsenter/unshare, used by tests and operators
)

missing=()
for entry in "${PACKAGES[@]}"; do
    pkg=${entry%%:*}
    cmd=${entry##*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "system-deps: all present (bubblewrap $(bwrap --version 2>/dev/null | awk '{print $2}'))"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: missing ${missing[*]} and apt-get is not available on this machine." >&2
    echo "  Install them with your distribution's package manager (bubblewrap >= 0.8)." >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "system-deps: missing ${missing[*]}; run this script as root (or: sudo $0)." >&2
    exit 1
fi

echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
command -v bwrap >/dev/null || { echo "system-deps: bwrap still not found after install" >&2; exit 1; }
echo "system-deps: ready (bubblewrap $(bwrap --version | awk '{print $2}'))"
