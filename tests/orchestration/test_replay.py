"""Replay guard: the recorded histories of a TaskProduction run (parent and every stage child,
recorded by `test_task_production_mocked.py` with ARKEVO_RECORD_HISTORIES=1) must replay
against today's workflow code. A change that alters the commands a workflow issues for the same
history breaks running workflows on upgrade: it fails here (non-determinism), and needs a
`workflow.patched()` branch or a new workflow version instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from workers.pools import WORKFLOWS

HISTORIES = sorted((Path(__file__).resolve().parent / "histories").glob("*.json"))


def test_histories_were_recorded():
    names = {p.stem for p in HISTORIES}
    assert {"task-production", "task-production.03-authoring", "task-production.05-review",
            "task-production.06-evaluation"} <= names, names


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.stem)
async def test_recorded_history_replays_on_current_code(path):
    history = WorkflowHistory.from_json(path.stem, path.read_text())
    result = await Replayer(workflows=WORKFLOWS).replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.name}: {result.replay_failure}"
