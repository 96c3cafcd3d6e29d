# Every target bootstraps .venv (idempotent; see scripts/bootstrap.sh).
PY := .venv/bin/python

.PHONY: venv demo test up down status clean

venv:
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
