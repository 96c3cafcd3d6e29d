#!/usr/bin/env bash
# deploy/base_image.sh [TAG]: make sure the Debian 13 base image the Dockerfiles start FROM exists
# locally (default tag debian:trixie-slim). Present: nothing to do. Else pull it; where no
# registry answers (CI, air-gapped hosts), build it from Debian's own packages with
# `debootstrap --variant=minbase trixie` + `docker import`, under the same tag, so every
# Dockerfile stays the same either way. Needs root and debootstrap for the local build.
set -euo pipefail
TAG=${1:-debian:trixie-slim}
SUITE=${ARKEVO_BASE_SUITE:-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "base image: $TAG present"
    exit 0
fi
if timeout "${ARKEVO_PULL_TIMEOUT:-30}" docker pull -q "$TAG" >/dev/null 2>&1; then
    echo "base image: $TAG pulled"
    exit 0
fi
if ! command -v debootstrap >/dev/null 2>&1; then
    echo "base image: $TAG cannot be pulled and debootstrap is not installed" >&2
    echo "  (apt-get install debootstrap, or make the registry reachable)" >&2
    exit 1
fi
echo "base image: no registry answered; building $TAG with debootstrap ($SUITE from $MIRROR)"
root=$(mktemp -d /var/tmp/arkevo-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
start=$SECONDS
if ! debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$root.log" 2>&1; then
    tail -20 "$root.log" >&2
    echo "base image: debootstrap failed (log above)" >&2
    exit 1
fi
rm -f "$root.log"
# What the official slim image also leaves out: package lists and caches.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log
tar -C "$root" -c . | docker import \
    -c 'ENV LANG=C.UTF-8' -c 'CMD ["bash"]' \
    -m "debootstrap --variant=minbase $SUITE $MIRROR (deploy/base_image.sh)" - "$TAG" >/dev/null
echo "base image: $TAG built in $((SECONDS - start))s ($(docker image inspect -f '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}'))"
