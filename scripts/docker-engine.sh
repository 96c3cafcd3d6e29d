#!/usr/bin/env bash
# Makes a Docker engine with Compose v2 available for `make deploy-test` (docs/deployment.md):
# Debian's docker.io and debootstrap, the `docker compose` plugin, and a running dockerd.
# Idempotent; prints one line per thing it did. Exit 0 ready, 1 not (with the reason) — the
# test suite then skips the deploy tests and says why.
set -euo pipefail

say() { echo "docker-engine: $*"; }
fail() { echo "docker-engine: $*" >&2; exit 1; }

need_root() { [ "$(id -u)" -eq 0 ] || fail "$1 needs root (run as root or: sudo $0)"; }

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
    need_root "installing docker.io and debootstrap"
    command -v apt-get >/dev/null 2>&1 || fail "no dockerd and no apt-get: install a Docker engine"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        docker.io debootstrap >/dev/null 2>&1 || fail "apt-get install docker.io debootstrap failed"
    say "installed docker.io and debootstrap"
fi

# Compose v2. Debian 12 packages only Compose v1 (a different program); Debian 13's
# docker-compose package is v2, a static Go binary: take its plugin from the Debian archive,
# checked against the archive's sha256.
if ! docker compose version >/dev/null 2>&1; then
    need_root "installing the compose plugin"
    mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
    arch=$(dpkg --print-architecture)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    curl -fsS "$mirror/dists/trixie/main/binary-$arch/Packages.xz" | xz -d > "$tmp/Packages" \
        || fail "cannot read trixie's package index from $mirror"
    entry=$(awk '/^Package: docker-compose$/{f=1} f&&/^$/{exit} f' "$tmp/Packages")
    file=$(echo "$entry" | awk '/^Filename:/{print $2}')
    sum=$(echo "$entry" | awk '/^SHA256:/{print $2}')
    [ -n "$file" ] && [ -n "$sum" ] || fail "docker-compose not found in trixie's index"
    curl -fsS -o "$tmp/compose.deb" "$mirror/$file" || fail "cannot download $mirror/$file"
    echo "$sum  $tmp/compose.deb" | sha256sum -c --quiet - || fail "$file: sha256 mismatch"
    dpkg-deb -x "$tmp/compose.deb" "$tmp/x"
    install -D -m 0755 "$tmp/x/usr/libexec/docker/cli-plugins/docker-compose" \
        /usr/local/lib/docker/cli-plugins/docker-compose
    docker compose version >/dev/null 2>&1 || fail "the compose plugin does not run"
    say "installed $(docker compose version) from Debian ($file)"
fi

if ! docker info >/dev/null 2>&1; then
    need_root "starting dockerd"
    mkdir -p /var/log
    nohup dockerd >/var/log/dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 0.5
    done
    docker info >/dev/null 2>&1 || { tail -5 /var/log/dockerd.log >&2; fail "dockerd did not start (log: /var/log/dockerd.log)"; }
    say "started dockerd ($(docker info -f '{{.ServerVersion}}, cgroup v{{.CgroupVersion}}, {{.Driver}}'))"
fi
say "ready: engine $(docker info -f '{{.ServerVersion}}'), $(docker compose version --short 2>/dev/null || docker compose version)"
