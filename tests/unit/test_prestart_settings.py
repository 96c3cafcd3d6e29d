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
