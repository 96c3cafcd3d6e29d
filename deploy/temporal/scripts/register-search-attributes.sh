#!/bin/sh
# One-shot: the custom search attributes the workflows upsert (contracts: ArkevoStage,
# ArkevoSeedId; workers/stack.py registers the same on the embedded dev server). Each is
# created unless present, then every one is checked to be listed with its type: a missing or
# mistyped attribute ends the job non-zero, so the workers (which wait for this job's success)
# never start against a namespace that would fail their upserts.
set -eu
NS=${ARKEVO_TEMPORAL_NAMESPACE:-default}
ATTRIBUTES="ArkevoStage=Keyword ArkevoSeedId=Keyword"

listed() {  # name type -> 0 when the namespace lists that attribute with that type
    temporal operator search-attribute list --namespace "$NS" \
        | awk -v n="$1" -v t="$2" '$1 == n && tolower($2) == tolower(t) {f = 1} END {exit !f}'
}

for entry in $ATTRIBUTES; do
    name=${entry%%=*} type=${entry#*=}
    if listed "$name" "$type"; then
        echo "register-search-attributes: $name ($type) present"
        continue
    fi
    temporal operator search-attribute create --namespace "$NS" --name "$name" --type "$type"
done

failed=0
for entry in $ATTRIBUTES; do
    name=${entry%%=*} type=${entry#*=}
    tries=0
    until listed "$name" "$type"; do
        tries=$((tries + 1))
        if [ "$tries" -ge 30 ]; then
            echo "register-search-attributes: $name ($type) is not listed in namespace $NS" >&2
            failed=1
            break
        fi
        sleep 1
    done
done
[ "$failed" -eq 0 ] || exit 1
echo "register-search-attributes: all present in $NS"
