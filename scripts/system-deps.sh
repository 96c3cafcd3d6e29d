#!/usr/bin/env bash
# Installs the Debian packages the trial sandbox (sandbox/) needs, and headless Chromium for the
# review site's browser tests. Idempotent: when every package is already installed nothing is
# fetched, and `apt-get update` only runs when something is missing. Needs root (the sandbox
# itself needs root too: per-slot users, cgroups, network namespaces).
set -euo pipefail

# package → a command it provides (what the sandbox actually calls)
PACKAGES=(
    "bubblewrap:bwrap"   # mount/pid/ipc/uts namespaces for every sandboxed exec
    "iproute2:ip"        # inspecting a trial's network namespace (tests, debugging)
    "passwd:useradd"     # creating the per-slot users arkevo-slot-N
    "util-linux:nsenter" # nsenter/unshare, used by tests and operators
    "libfaketime:libfaketime.so.1"  # a frozen clock for reproducible Blender builds (no command)
)

# Wanted, not required: without them the browser tests skip and say why (tests/site_support).
OPTIONAL=(
    "chromium:chromium"               # headless browser for the review site's tests
    "chromium-driver:chromedriver"    # Selenium's driver, the same version as chromium
)

absent() {  # the packages of "package:command" entries whose command and package are both absent
    for entry in "$@"; do
        local pkg=${entry%%:*} cmd=${entry##*:}
        if ! command -v "$cmd" >/dev/null 2>&1 && ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
            echo "$pkg"
        fi
    done
}

mapfile -t missing < <(absent "${PACKAGES[@]}")
mapfile -t optional < <(absent "${OPTIONAL[@]}")

install_optional() {
    [ ${#optional[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1 \
        || ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null 2>&1; then
        echo "system-deps: could not install ${optional[*]}; the browser tests will skip (saying why)" >&2
    else
        echo "system-deps: installed ${optional[*]}"
    fi
}

if [ ${#missing[@]} -eq 0 ]; then
    if [ ${#optional[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || true
    fi
    install_optional
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
install_optional
command -v bwrap >/dev/null || { echo "system-deps: bwrap still not found after install" >&2; exit 1; }
echo "system-deps: ready (bubblewrap $(bwrap --version | awk '{print $2}'))"
