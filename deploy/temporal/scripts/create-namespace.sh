#!/bin/sh
# One-shot: the namespace the workers use, created once; an existing one is left as it is.
set -eu
NS=${ARKEVO_TEMPORAL_NAMESPACE:-default}
if temporal operator namespace describe --namespace "$NS" >/dev/null 2>&1; then
    echo "create-namespace: $NS exists"
    exit 0
fi
temporal operator namespace create --namespace "$NS" --retention "${ARKEVO_NAMESPACE_RETENTION:-30d}"
# Creation is asynchronous across the cluster's services: wait until it answers.
tries=0
until temporal operator namespace describe --namespace "$NS" >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -ge 30 ] && { echo "create-namespace: $NS not visible after creation" >&2; exit 1; }
    sleep 1
done
echo "create-namespace: $NS created"
