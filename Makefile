# Every target bootstraps the system packages the sandbox needs and .venv (both idempotent;
# see scripts/system-deps.sh and scripts/bootstrap.sh).
PY := .venv/bin/python

.PHONY: venv docker-engine demo test deploy-test up down status clean schemas

venv:
	@bash scripts/system-deps.sh >/dev/null
	@bash scripts/bootstrap.sh

demo: venv
	@$(PY) -m cli.demo

# The deploy tests need a Docker engine: the set-up installs and starts one where it can, and
# where it cannot they skip, saying why.
docker-engine:
	@bash scripts/docker-engine.sh || echo "make: no Docker engine; the deploy tests will skip (reason above)"

# ruff and mypy first (seconds; [tool.mypy] in pyproject.toml): a lint or type finding fails
# before any Blender starts. On a fresh machine the venv's bytecode and the Docker engine's
# set-up run beside them (scripts/test-setup.sh); the tests start when all three end.
test:
	@bash scripts/system-deps.sh >/dev/null
	@ARKEVO_BOOTSTRAP_BYTECODE=later bash scripts/bootstrap.sh
	@bash scripts/test-setup.sh
	@$(PY) -m pytest

# docker-compose.yml with deploy/compose.offline.yml, for real (docs/deployment.md).
deploy-test: venv
	@bash scripts/docker-engine.sh
	@$(PY) -m deploy.deploy_test

up: venv
	@$(PY) -m workers.stack up

down: venv
	@$(PY) -m workers.stack down

status: venv
	@$(PY) -m workers.stack status

# contracts/schemas/*.json from the pydantic models (the models are the source; docs/contracts.md).
schemas: venv
	@$(PY) -m contracts.json_schemas

clean: down
	rm -rf var
