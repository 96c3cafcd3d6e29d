"""How a gpu worker's trial backend is chosen from its environment: the pre-started sandboxes it
keeps (ARKEVO_PRESTART_HOSTS, docs/sandbox.md "Pre-started hosts") and the backend switch."""

from __future__ import annotations

import pytest

from activities.trial_backends import HarborSandboxBackend, LocalBackend, backend_from_env
from sandbox.mcp_session import McpSessionConfig


def test_one_prestarted_host_per_slot_unless_the_environment_says(monkeypatch):
    monkeypatch.delenv("ARKEVO_PRESTART_HOSTS", raising=False)
    monkeypatch.delenv("ARKEVO_TRIAL_BACKEND", raising=False)
    backend = backend_from_env(prestart=3)
    assert isinstance(backend, HarborSandboxBackend) and backend.prestart is not None
    assert backend.prestart.capacity == 3 and backend.prestart.config == McpSessionConfig()
    monkeypatch.setenv("ARKEVO_PRESTART_HOSTS", "0")
    backend = backend_from_env(prestart=3)
    assert isinstance(backend, HarborSandboxBackend) and backend.prestart is None
    monkeypatch.setenv("ARKEVO_PRESTART_HOSTS", "1")
    backend = backend_from_env(prestart=3)
    assert isinstance(backend, HarborSandboxBackend) and backend.prestart is not None
    assert backend.prestart.capacity == 1


def test_a_bad_count_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("ARKEVO_PRESTART_HOSTS", "two")
    with pytest.raises(ValueError, match=r"ARKEVO_PRESTART_HOSTS='two': expected a count"):
        backend_from_env(prestart=2)


def test_the_pool_starts_sessions_like_the_agents_configure_them():
    backend = HarborSandboxBackend(agent_kwargs={"mcp": {"tool_timeout_sec": 60}}, prestart=2)
    assert backend.prestart is not None and backend.prestart.config.tool_timeout_sec == 60


def test_the_local_backend_has_no_sandbox_to_prestart(monkeypatch):
    monkeypatch.setenv("ARKEVO_TRIAL_BACKEND", "local")
    assert isinstance(backend_from_env(prestart=2), LocalBackend)


def test_a_campaign_marks_the_trials_a_later_trial_of_their_task_waits_behind(tmp_path):
    """prestart_hints: with a gpu cap of 2, a trial is marked when a trial of its task starts at
    least 2 places later (so not alongside it); a task's last trials, and a task met once, are
    not: nothing would claim what they pre-started. Order as given: a, a, a, a, b, a, b."""
    from activities.campaigns import CampaignActivities
    from contracts.payloads.campaigns import CampaignInput, CampaignTrialInput, PlanCampaignInput
    from contracts.payloads.common import DatasetRef
    from storage.content import FilesystemStore
    from storage.objects import FilesystemObjects
    from tests.campaign_support.publications import write_frozen_revision
    from workers.settings import PROJECT_ROOT
    from workflows.evaluation_campaign import prestart_hints

    objects, store = FilesystemObjects(tmp_path), FilesystemStore(tmp_path / "store")
    write_frozen_revision(objects, store, "d", "r1", {"test": ["alpha", "beta"]})
    plan = CampaignActivities(store, objects, PROJECT_ROOT).plan_campaign(PlanCampaignInput(
        CampaignInput("c", mode="pilot", dataset=DatasetRef("d", "r1"), split="test",
                      configs=["oracle"]), "2026-12-04T00:00:00+00:00"))
    alpha, beta = plan.tasks
    order = [alpha, alpha, alpha, alpha, beta, alpha, beta]
    trials = [(CampaignTrialInput("c", f"t{i}", task, plan.configs[0], 1, 4), ["gpu"])
              for i, task in enumerate(order)]
    hinted = prestart_hints(trials, {"gpu": 2})
    assert [t.prestart_next for t, _ in hinted] == [True, True, True, True, True, False, False]
    assert [t.trial_id for t, _ in hinted] == [t.trial_id for t, _ in trials]
    assert [t.prestart_next for t, _ in prestart_hints(trials, {"gpu": 4})] == [
        True, True, False, False, False, False, False]


def test_prestarted_sandboxes_never_take_a_slot_a_trial_needs():
    from workers.pools import prestart_capacity

    # 8 sandbox slots (the default): a trial holds its solver's and its verifier's at once.
    assert [prestart_capacity(n, 8) for n in (1, 2, 3, 4, 5)] == [1, 2, 2, 0, 0]
    assert prestart_capacity(4, 16) == 4
