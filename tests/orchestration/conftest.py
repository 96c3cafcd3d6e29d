"""A dev server of a module's own (the real `temporal` binary) for orchestration tests whose
stand-in workers poll the production task queues: on the session's server the real pools of
tests/conftest.py would take their tasks."""

from __future__ import annotations

import pytest_asyncio
from temporalio.testing import WorkflowEnvironment

from tests.conftest import DEV_SERVER_STARTUP, TEMPORAL_BIN, free_port
from workflows.task_production import SEED_KEY, STAGE_KEY


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def env():
    env = await WorkflowEnvironment.start_local(port=free_port(), dev_server_existing_path=str(TEMPORAL_BIN),
                                                dev_server_log_level="error",
        dev_server_startup_timeout=DEV_SERVER_STARTUP)
    yield env
    await env.shutdown()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def mocked_env():
    """Like `env`, with TaskProduction's search attributes registered."""
    env = await WorkflowEnvironment.start_local(
        port=free_port(), dev_server_existing_path=str(TEMPORAL_BIN),
        search_attributes=[STAGE_KEY, SEED_KEY], dev_server_log_level="error",
        dev_server_startup_timeout=DEV_SERVER_STARTUP)
    yield env
    await env.shutdown()
