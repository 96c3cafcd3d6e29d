# Every target bootstraps the system packages the sandbox needs and .venv (both idempotent;
# see scripts/system-deps.sh and scripts/bootstrap.sh).
PY := .venv/bin/python

.PHONY: venv demo test up down status clean

venv:
	@bash scripts/system-deps.sh >/dev/null
	@bash scripts/bootstrap.sh

demo: venv
	@$(PY) -m workers.demo

test: venv
	@$(PY) -m pytest

up: venv
	@$(PY) -m workers.stack up

down: venv
	@$(PY) -m workers.stack down

status: venv
	@$(PY) -m workers.stack status

clean: down
	rm -rf var
