#!/bin/sh
# The gpu worker's entrypoint (docker-compose.yml): the trial sandbox makes a cgroup per trial
# under the container's own (docs/sandbox.md), but Docker mounts a container's cgroup
# hierarchies read-only unless it is privileged. The container has its own cgroup namespace
# and CAP_SYS_ADMIN, so it remounts them read-write — its own subtree only, v1 or v2 — and then
# becomes the worker. Anything it cannot remount is reported; the sandbox's preflight then
# refuses to start with the precise reason.
set -eu
for mount_point in $(awk '$3 == "cgroup" || $3 == "cgroup2" {print $2}' /proc/mounts); do
    if [ ! -w "$mount_point" ] || grep -q " $mount_point cgroup[2]* ro[, ]" /proc/mounts; then
        mount -o remount,bind,rw "$mount_point" 2>/dev/null \
            || echo "gpu-worker-entrypoint: cannot remount $mount_point read-write" >&2
    fi
done
exec "$@"
