"""Pre-started solver sandboxes (sandbox/prestart.py) on real trials: table-model's oracle
through Harbor's Trial, the sandbox and Blender, one trial after another as a gpu slot runs them.

What must hold (issue 35, docs/sandbox.md "Pre-started hosts"): a host is handed to at most one
trial and only before anything ran in it, so a host that ran a solver's actions never reaches
another trial; a pre-started host that dies while it waits, or between the hand-over and its
readiness, is replaced and the trial still runs once, cleanly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import pytest_asyncio

from activities.trial_backends import HarborSandboxBackend
from activities.trials import TrialActivities
from contracts.payloads.trials import TrialOutcome, TrialRequest
from sandbox.prestart import Prestarted, PrestartedHosts
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.conftest import assemble_seed

pytestmark = [pytest.mark.blender, pytest.mark.temporal, requires_landlock, pytest.mark.timeout(300)]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def package(store, project_root):
    return await assemble_seed(store, project_root / "seeds" / "table-model")


def oracle(package, n: int, *, more: bool = True) -> TrialRequest:
    """The n-th oracle trial; `more`: its caller says another of this task follows."""
    return TrialRequest(package.task_package, package.identity, "oracle", f"prestart-{n}",
                        "evaluation", keep_evidence=True, prestart_next=more)


def solver_events(store, outcome: TrialOutcome) -> list[dict]:
    """The solver sandbox's own record of the trial (sandbox/isolation/execlog.py)."""
    assert outcome.evidence is not None
    [log] = [rel for rel in store.tree_entries(outcome.evidence)
             if rel.startswith("sandbox/") and rel.endswith(".jsonl") and "__verifier__" not in rel
             and not rel.startswith("sandbox/prestart-")]
    return [json.loads(line) for line in store.get_bytes(store.tree_file(outcome.evidence, log)).decode().splitlines()]


def host_of(events: list[dict]) -> tuple[str | None, int]:
    """(the pre-started sandbox it adopted or None, the pid of the Blender host the trial used)."""
    [start] = [e for e in events if e["event"] == "start"]
    spawned = [e["pid"] for e in events if e["event"] == "spawn" and "blender_mcp_host" in e["argv"]]
    if start.get("prestarted"):
        assert not spawned, "an adopted sandbox spawned a host of its own"
        return start["prestarted"], start["host_pid"]
    [pid] = spawned
    return None, pid


def clean(outcome: TrialOutcome) -> bool:
    return outcome.exception is None and outcome.failure is None and outcome.failed_criteria == []


async def test_a_host_that_ran_solver_actions_is_never_handed_to_another_trial(store, package, tmp_path):
    pool = PrestartedHosts(capacity=1, idle_sec=300)
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"), prestart=pool))
    try:
        first = await trials.run_trial(oracle(package, 1))
        adopted, first_host = host_of(solver_events(store, first))
        assert adopted is None  # nothing waited yet
        await pool.settled()
        [waiting] = pool.waiting()
        waiting_pid = waiting.host_pid
        assert waiting.session.calls == 0 and waiting_pid not in (None, first_host)
        # Its held launches' namespaces are built while it waits, not at the trial's first exec.
        assert waiting.environment._sandbox.held is not None

        second = await trials.run_trial(oracle(package, 2))
        adopted, second_host = host_of(solver_events(store, second))
        assert (adopted, second_host) == (waiting.environment.session_id, waiting_pid)
        assert pool.handed_pids == [second_host]
        # The record of its start is the trial's evidence now, not left beside the slots.
        assert f"sandbox/{adopted}.jsonl" in store.tree_entries(second.evidence)
        assert not (tmp_path / "slots" / "prestarted" / adopted).exists()
        assert not Path(f"/proc/{second_host}").exists()  # it ran the oracle: gone with its trial

        await pool.settled()
        [following] = pool.waiting()  # the next one is new, never the one that ran the oracle
        following_pid = following.host_pid
        assert following.session.calls == 0 and following_pid not in (None, first_host, second_host)
        assert clean(first) and clean(second)
        assert dict(pool.counts) == {"started": 2, "handed": 1}

        # A task's last trial (its caller says none follows) adopts, and starts nothing.
        last = await trials.run_trial(oracle(package, 3, more=False))
        assert host_of(solver_events(store, last)) == (following.environment.session_id, following_pid)
        await pool.settled()
        assert pool.waiting() == [] and dict(pool.counts) == {"started": 2, "handed": 2}
        assert clean(last)
    finally:
        await pool.aclose()
    assert not Path(f"/proc/{following_pid}").exists()
    assert list((tmp_path / "slots" / "prestarted").iterdir()) == []


async def test_a_killed_prestarted_host_is_replaced_and_the_trial_runs_once(store, package, tmp_path, monkeypatch):
    pool = PrestartedHosts(capacity=1, idle_sec=300)
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"), prestart=pool))
    try:
        await trials.run_trial(oracle(package, 1))
        await pool.settled()
        # Killed while it waits: the pool sees it dead and the trial starts its own.
        [waiting] = pool.waiting()
        assert waiting.session.kill_host()
        async with asyncio.timeout(30):
            while waiting.alive():
                await asyncio.sleep(0.1)
        second = await trials.run_trial(oracle(package, 2))
        assert host_of(solver_events(store, second))[0] is None
        assert clean(second) and pool.counts["replaced"] == 1 and pool.counts["handed"] == 0

        # Killed between the hand-over and its readiness: the session starts a fresh host in
        # the adopted sandbox, and the trial still runs once.
        await pool.settled()
        [waiting] = pool.waiting()
        handed_pid = waiting.host_pid
        alive = Prestarted.alive

        def dies_as_it_is_handed(entry: Prestarted) -> bool:
            answer = alive(entry)
            entry.session.kill_host()
            return answer

        monkeypatch.setattr(Prestarted, "alive", dies_as_it_is_handed)
        third = await trials.run_trial(oracle(package, 3))
        monkeypatch.setattr(Prestarted, "alive", alive)
        events = solver_events(store, third)
        [start] = [e for e in events if e["event"] == "start"]
        fresh = [e["pid"] for e in events if e["event"] == "spawn" and "blender_mcp_host" in e["argv"]]
        assert start["prestarted"] == waiting.environment.session_id
        assert len(fresh) == 1 and fresh[0] != handed_pid  # one fresh host, in the same sandbox
        assert clean(third)
        assert (pool.counts["replaced"], pool.counts["handed"]) == (2, 1)

        # What no trial claims closes after its idle time and frees its slot.
        pool.idle_sec = 0.5
        await trials.run_trial(oracle(package, 4))
        await pool.settled()
        async with asyncio.timeout(30):
            while pool.counts["expired"] < 1:
                await asyncio.sleep(0.1)
        assert pool.waiting() == [] and list((tmp_path / "slots" / "prestarted").iterdir()) == []
    finally:
        await pool.aclose()


async def test_a_session_with_another_config_starts_its_own_host(store, package, tmp_path):
    """A waiting pair spawned with another McpSessionConfig is not adopted: it is stopped (its
    host holds the port the session's own needs) and the trial starts its own, cleanly."""
    from sandbox.mcp_session import McpSessionConfig

    pool = PrestartedHosts(McpSessionConfig(tool_timeout_sec=123), capacity=1, idle_sec=300)
    trials = TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"), prestart=pool))
    try:
        await trials.run_trial(oracle(package, 1))
        await pool.settled()
        [waiting] = pool.waiting()
        handed_pid = waiting.host_pid
        second = await trials.run_trial(oracle(package, 2, more=False))
        events = solver_events(store, second)
        [start] = [e for e in events if e["event"] == "start"]
        own = [e["pid"] for e in events if e["event"] == "spawn" and "blender_mcp_host" in e["argv"]]
        assert start["prestarted"] == waiting.environment.session_id  # the sandbox is taken...
        assert len(own) == 1 and own[0] != handed_pid  # ...its host is not
        assert clean(second)
    finally:
        await pool.aclose()
