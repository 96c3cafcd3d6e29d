#!/bin/sh
# One-shot (temporalio/admin-tools): create Temporal's two databases and bring their schemas to
# the versions this admin-tools release ships. Safe to rerun: `create` of an existing database
# fails and is tolerated only for that reason; every schema step must succeed.
set -eu
EP=postgresql
USER_NAME=${POSTGRES_USER:-temporal}
: "${SQL_PASSWORD:?SQL_PASSWORD is not set}"
SCHEMA=/etc/temporal/schema/postgresql/v12

echo "setup-postgres: waiting for $EP:5432"
tries=0
until nc -z -w 5 "$EP" 5432; do
    tries=$((tries + 1))
    [ "$tries" -ge 60 ] && { echo "setup-postgres: $EP:5432 did not open" >&2; exit 1; }
    sleep 2
done

for db in temporal temporal_visibility; do
    dir=temporal
    [ "$db" = temporal_visibility ] && dir=visibility
    sql() { temporal-sql-tool --plugin postgres12 --ep "$EP" -u "$USER_NAME" -p 5432 --db "$db" "$@"; }
    if ! out=$(sql create 2>&1); then
        echo "$out" | grep -q "already exists" || { echo "$out" >&2; exit 1; }
    fi
    sql setup-schema -v 0.0
    sql update-schema -d "$SCHEMA/$dir/versioned"
    echo "setup-postgres: $db ready"
done
