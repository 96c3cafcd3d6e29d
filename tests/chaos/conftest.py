"""Fixtures of the chaos tests (docs/failures.md, "Chaos tests"): one real task package (the
table-model seed, built once per session), and per test a stack of its own — the `temporal`
dev server on a free port with a SQLite file, the control and cpu workers as `python -m
workers` processes — to which each test adds the gpu workers it kills, freezes or replaces.

A trial is one `CampaignTrial` workflow (the evaluation campaign's child: `run_trial` on gpu,
`score_trial` and the create-only `record_campaign_trial` on cpu) with the scripted `oracle`
policy: the real trial path — Harbor's trial in the sandbox, real Blender — in about ten
seconds, and a record per trial id that can be counted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import pytest_asyncio

from storage.content import FilesystemStore
from contracts.payloads.campaigns import PlannedTask
from contracts.payloads.review import FrozenTask
from tests.chaos.helpers import TEMPORAL_BIN, ChaosStack
from tests.conftest import assemble_seed

RULE_ONLY = {"profile_id": "rule-only", "profile_version": "1"}


@pytest.fixture(scope="session")
def chaos_var(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("chaos-var")


@pytest_asyncio.fixture(scope="session")
async def chaos_task(chaos_var, project_root) -> PlannedTask:
    """table-model's package, built and assembled for real, graded rule-only (no VL grading:
    one gpu activity per trial, the one these tests break)."""
    if not TEMPORAL_BIN.exists():
        pytest.fail(f"temporal CLI not found at {TEMPORAL_BIN}; run `make venv`")
    store = FilesystemStore(chaos_var / "store")
    assembled = await assemble_seed(store, project_root / "seeds" / "table-model")
    grading = dataclasses.replace(
        assembled.grading, profile=RULE_ONLY, uses_vl=False, judge=None,
        verification={**assembled.grading.verification,
                      "weights": {"rule": 1.0, "vl": 0.0, "agent": 0}})
    frozen = FrozenTask(
        task_id=grading.task_id, task_version="v1-chaos", task_package=assembled.task_package,
        frozen_record=store.put_json({"test": "stand-in frozen record"}),
        calibration_report=store.put_json({"test": "stand-in calibration report"}),
        identity=assembled.identity, grading=grading, input_reward=0.0,
        pipeline_ref={"pipeline_id": "arkevo-blender", "pipeline_version": "0.1.0",
                      "pipeline_digest": "d" * 64})
    return PlannedTask(f"{grading.task_id}-chaos", "0" * 64, None, frozen)


@pytest_asyncio.fixture
async def stack(tmp_path, chaos_var):
    """Dev server + control + cpu workers (processes, started, not yet waited for: the test
    adds its gpu workers and waits for all with `stack.ready()`)."""
    chaos_stack = ChaosStack(tmp_path, chaos_var)
    try:
        await chaos_stack.start_server()
        chaos_stack.start_worker("control")
        chaos_stack.start_worker("cpu", concurrency=2)
        yield chaos_stack
    finally:
        chaos_stack.close()
