"""`make deploy-test` as part of `make test`: the production compose file with its offline
overlay, for real (deploy/deploy_test.py; docs/deployment.md). It runs in the background beside
the rest of the suite (tests/background/runs.py); this test joins it. Skips, saying why,
where no Docker engine answers (`make test` installs and starts one where it can)."""

from __future__ import annotations

import json

import pytest

from deploy.deploy_test import engine_problem

PROBLEM = engine_problem()

pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=f"no Docker engine for the deploy test: {PROBLEM}")


def test_compose_stack_survives_a_killed_gpu_worker_and_publishes_a_harbor_task(background_run):
    deploy_run = background_run("deploy")
    rc, out = deploy_run.wait(timeout=1800)
    assert rc == 0, out[-6000:]
    figures = json.loads(deploy_run.summary.read_text())
    records = figures["records"]
    assert records["records"] == records["planned"] == 2  # oracle and nop, k=1
    assert records["lost"] == [] and records["duplicated"] == [] and records["infra_failures"] == 0
    killed = figures["killed_during"]["activity_id"]
    assert records["run_trial_attempts"][killed] >= 2
    assert figures["kill"]["restart_count"] >= 1
    assert figures["harbor_docker_oracle_reward"] == 1.0
    print("\n".join(line for line in out.splitlines() if line.startswith("deploy-test:")))
