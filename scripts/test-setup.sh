#!/usr/bin/env bash
# make test's set-up once the packages are installed (ARKEVO_BOOTSTRAP_BYTECODE=later): the
# venv's bytecode (~25 s on both cores), the Docker engine (on a fresh machine an install, mostly
# downloads) and ruff and mypy (~15 s on one core) side by side, not one after another. Exit 0
# when the bytecode is written and the checks pass; the engine may fail (the deploy tests then
# skip, saying why).
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh & bytecode=$!
{ bash scripts/docker-engine.sh || echo "make: no Docker engine; the deploy tests will skip (reason above)"; } &
engine=$!
.venv/bin/ruff check . && .venv/bin/mypy
checks=$?
wait "$bytecode"
venv=$?
wait "$engine"
if [ "$venv" -ne 0 ]; then
    echo "make test: the venv's set-up failed (above)" >&2
    exit "$venv"
fi
exit "$checks"
