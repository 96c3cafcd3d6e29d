"""What a trial spent (docs/campaigns.md): the sandbox's cgroup CPU time from its own record,
and the agent's calls, steps and tokens from Harbor's trial result -- None where nothing
measured it, never a made-up 0 for a model agent."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harbor.models.agent.context import AgentContext
from harbor.models.task.id import LocalTaskId
from harbor.models.trial.config import TaskConfig, TrialConfig
from harbor.models.trial.result import AgentInfo, TimingInfo, TrialResult

from activities.trial_backends import sandbox_cpu_seconds, trial_cost
from contracts.payloads.trials import MeasuredCost
from sandbox.isolation import cgroups

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def write_log(folder: Path, session: str, events: list[dict | str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [e if isinstance(e, str) else json.dumps(e) for e in events]
    (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_sandbox_cpu_seconds_sums_every_sessions_stop(tmp_path):
    logs = tmp_path / "sandbox"
    write_log(logs, "trial__agent", [
        {"event": "start", "role": "solver"},
        {"event": "exec", "cpu_usage_ns": 999_000_000_000},  # only stop events count
        {"event": "stop", "memory_max_usage_bytes": 1, "cpu_usage_ns": 1_500_000_000}])
    write_log(logs, "trial__verifier__", [
        {"event": "start", "role": "verifier"},
        {"event": "stop", "cpu_usage_ns": 250_000_000},
        '{"event": "stop", "cpu_us'])  # cut short by a dying worker
    (logs / "trial__agent").mkdir()  # the stderr folder beside the log
    assert sandbox_cpu_seconds(logs) == 1.75


def test_sandbox_cpu_seconds_is_none_when_nothing_measured_it(tmp_path):
    assert sandbox_cpu_seconds(tmp_path / "missing") is None
    write_log(tmp_path, "s", [{"event": "start"}, {"event": "stop", "memory_max_usage_bytes": 5}])
    assert sandbox_cpu_seconds(tmp_path) is None  # no cpuacct hierarchy: unknown, not 0
    write_log(tmp_path, "t", [{"event": "stop", "cpu_usage_ns": 0}])
    assert sandbox_cpu_seconds(tmp_path) == 0.0


def result(agent: AgentContext | None, *, agent_sec: float | None = 40.0) -> TrialResult:
    execution = (TimingInfo(started_at=T0 + timedelta(seconds=5),
                            finished_at=T0 + timedelta(seconds=5 + agent_sec))
                 if agent_sec is not None else None)
    return TrialResult(task_name="t", trial_name="t__abc", trial_uri="file:///x",
                       task_id=LocalTaskId(path=Path("/x")), task_checksum="0",
                       config=TrialConfig(task=TaskConfig(path=Path("/x"))),
                       agent_info=AgentInfo(name="a", version="1"), agent_result=agent,
                       started_at=T0, finished_at=T0 + timedelta(seconds=61.5),
                       agent_execution=execution)


def test_llm_agent_cost_from_its_context(tmp_path):
    write_log(tmp_path / "sandbox", "s", [{"event": "stop", "cpu_usage_ns": 3_000_000_000}])
    context = AgentContext(n_input_tokens=1200, n_output_tokens=80,
                           metadata={"model": "m", "steps": 4, "tool_calls": 6, "max_steps": 30})
    assert trial_cost(result(context), tmp_path) == MeasuredCost(
        wall_sec=61.5, agent_sec=40.0, model_calls=4, input_tokens=1200, output_tokens=80,
        agent_steps=6, sandbox_cpu_sec=3.0, gpu_sec=None)


def test_scripted_agent_makes_no_model_call(tmp_path):
    context = AgentContext(metadata={"policy": "script", "scripted": True,
                                     "tool_calls": ["execute_blender_code", "execute_blender_code"]})
    cost = trial_cost(result(context), tmp_path)
    assert (cost.model_calls, cost.input_tokens, cost.output_tokens) == (0, 0, 0)
    assert cost.agent_steps == 2 and cost.sandbox_cpu_sec is None  # no sandbox record here


def test_agent_that_records_nothing_leaves_cost_unknown(tmp_path):
    cost = trial_cost(result(AgentContext(), agent_sec=None), None)
    assert cost == MeasuredCost(wall_sec=61.5)  # everything but the wall time: not measured
    assert trial_cost(result(None), tmp_path).model_calls is None


def test_cost_from_a_parsed_result_json(tmp_path):
    """The evidence's result.json gives the same cost as the live result."""
    context = AgentContext(n_input_tokens=10, n_output_tokens=2, metadata={"steps": 1, "tool_calls": 0})
    parsed = TrialResult.model_validate_json(result(context).model_dump_json())
    assert trial_cost(parsed, None) == trial_cost(result(context), None)


def fake_hierarchies(tmp_path, monkeypatch, mounts: dict[str, str]) -> None:
    """v1 hierarchies as plain folders (controller -> folder name under tmp_path)."""
    monkeypatch.setattr(cgroups, "v1_mounts", lambda: {c: tmp_path / d for c, d in mounts.items()})
    monkeypatch.setattr(cgroups, "own_paths", lambda: {})


def test_trial_cgroup_stats_read_cpuacct_usage(tmp_path, monkeypatch):
    # TrialCgroup.create() writes limits into kernel files; plain folders stand in for them.
    fake_hierarchies(tmp_path, monkeypatch, {c: c for c in ("memory", "pids", "cpu", "cpuacct")})
    group = cgroups.TrialCgroup("slot0--trial", memory_bytes=1 << 30, pids_max=64)
    assert group.dirs["cpuacct"] == tmp_path / "cpuacct" / cgroups.PARENT_NAME / "slot0--trial"
    for controller, name, value in (("memory", "memory.max_usage_in_bytes", "4096\n"),
                                    ("pids", "pids.current", "0\n"),
                                    ("cpuacct", "cpuacct.usage", "2500000000\n")):
        group.dirs[controller].mkdir(parents=True)
        (group.dirs[controller] / name).write_text(value)
    assert group.stats() == {"memory_max_usage_bytes": 4096, "pids_current": 0,
                             "cpu_usage_ns": 2_500_000_000}


def test_trial_cgroup_without_cpuacct_reports_no_cpu_time(tmp_path, monkeypatch):
    fake_hierarchies(tmp_path, monkeypatch, {"memory": "memory", "pids": "pids"})
    group = cgroups.TrialCgroup("t", memory_bytes=1 << 30, pids_max=64)
    assert "cpuacct" not in group.dirs and "cpu_usage_ns" not in group.stats()


def test_cpu_and_cpuacct_mounted_together_are_one_hierarchy(tmp_path, monkeypatch):
    """`cpu,cpuacct` in one mount: one folder, joined and removed once."""
    fake_hierarchies(tmp_path, monkeypatch, {"memory": "memory", "pids": "pids",
                                             "cpu": "cpu,cpuacct", "cpuacct": "cpu,cpuacct"})
    group = cgroups.TrialCgroup("t", memory_bytes=1 << 30, pids_max=64)
    assert group.dirs["cpu"] == group.dirs["cpuacct"]
    assert len(group.unique_dirs()) == 3
    for directory in group.unique_dirs():
        directory.mkdir(parents=True)
        (directory / "cgroup.procs").write_text("")
    fds = group.procs_fds()
    try:
        assert len(fds) == 3
    finally:
        for fd in fds:
            os.close(fd)
