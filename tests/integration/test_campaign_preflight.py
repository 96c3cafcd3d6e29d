"""A campaign's preflight on the real path (docs/campaigns.md "Preflight"): the session's dev
server and worker pools (tests/conftest.py `workers`), real Blender in the sandbox, and the
local FAKE OpenAI-compatible endpoint (tests/fakes: not a model).

One frozen publication of table-model (a light copy: rules only, tests/integration/
test_dataset_production.py `light_copy`) and a registry of one LLM config. First the worker's
endpoint is a closed port: the campaign fails with `ModelEndpointUnreachable` naming the config
and endpoint, before any trial and without a smoke trial. Then, the endpoint pointed at the
fake, the same campaign id resumes: the ping goes out as the agent's request would, the nop
smoke trial runs in the sandbox (not recorded), and the campaign's one trial runs and is
recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from activities.preflight import PING_PROMPT
from blender.runtime import blender_version
from campaigns.layout import CampaignKeys
from contracts import queues
from contracts.errors import MODEL_ENDPOINT_UNREACHABLE
from contracts.payloads.campaigns import CampaignInput, CampaignResult
from tests.adversarial.sandbox_helpers import requires_landlock
from tests.campaign_support.publications import write_publication
from tests.conftest import assemble_seed, free_port
from tests.fakes.openai_server import FakeOpenAIServer, final
from tests.integration.test_dataset_production import light_copy

pytestmark = [pytest.mark.blender, pytest.mark.temporal, requires_landlock]

KEY = "sk-fake-preflight-do-not-record"
REGISTRY = {
    "registry_version": "it-preflight",
    "configs": [{"id": "llm-pf", "description": "the MCP LLM agent on the FAKE endpoint",
                 "agent": "arkevo-llm", "model": "fake-model", "reasoning_effort": "low",
                 "agent_kwargs": {"max_steps": 2, "max_attempts": 1}}],
    "modes": {"pf": {"description": "one model attempt", "attempts": {"llm-pf": 1}}},
}


async def test_a_dead_endpoint_stops_the_campaign_then_a_live_one_and_the_sandbox_pass(
        temporal_env, workers, store, settings, monkeypatch, tmp_path):
    objects = settings.objects()
    assembled = await assemble_seed(store, light_copy("table-model", tmp_path))
    folder = "it-preflight/table-model/table-model-r1"
    write_publication(objects, store, folder, "table-model", assembled=assembled)
    registry = tmp_path / "solver_configs.json"
    registry.write_text(json.dumps(REGISTRY))
    req = CampaignInput("it-pf", mode="pf", publications=[folder], registry=str(registry),
                        trial_attempts=1, bootstrap_samples=200)
    keys = CampaignKeys("it-pf")
    root = Path(objects.location(keys.root))
    monkeypatch.setenv("ARKEVO_LLM_API_KEY", KEY)  # the gpu worker's environment (this process)

    dead = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    monkeypatch.setenv("ARKEVO_LLM_BASE_URL", dead)
    with pytest.raises(WorkflowFailureError) as failed:
        await temporal_env.client.execute_workflow("EvaluationCampaign", req, id="campaign-it-pf",
                                                   task_queue=queues.CONTROL, result_type=CampaignResult)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == MODEL_ENDPOINT_UNREACHABLE
    assert f"config(s) llm-pf ({dead}, model fake-model)" in cause.message
    assert "ConnectError" in cause.message and KEY not in cause.message
    assert not (root / "records").exists()  # no trial ran, none is recorded
    preflight = json.loads((root / "preflight.json").read_text())
    assert preflight["ok"] is False and preflight["smoke"] is None  # no sandbox for a dead endpoint
    assert preflight["failure"]["type"] == MODEL_ENDPOINT_UNREACHABLE and KEY not in json.dumps(preflight)

    with FakeOpenAIServer([final("ok"), final("Nothing to change.")]) as fake:
        monkeypatch.setenv("ARKEVO_LLM_BASE_URL", fake.base_url)
        result = await temporal_env.client.execute_workflow(
            "EvaluationCampaign", req, id="campaign-it-pf", task_queue=queues.CONTROL,
            result_type=CampaignResult)
    ping, agent = fake.requests
    assert ping.json == {"model": "fake-model", "reasoning_effort": "low",
                         "messages": [{"role": "user", "content": PING_PROMPT}]}
    assert ping.headers["Authorization"] == f"Bearer {KEY}"
    assert agent.json["reasoning_effort"] == "low" and agent.json["tools"]  # the trial's own call
    preflight = json.loads((root / "preflight.json").read_text())
    assert preflight["ok"] is True and preflight["failure"] is None
    [endpoint] = preflight["endpoints"]
    assert endpoint["config_ids"] == ["llm-pf"] and endpoint["endpoint"] == fake.base_url
    assert endpoint["ok"] and endpoint["latency_sec"] is not None
    smoke = preflight["smoke"]
    assert smoke["ok"] and smoke["task_id"] == "table-model" and smoke["error"] is None
    assert smoke["blender_version"] == blender_version() and smoke["criteria"] > 0
    # The smoke trial is no trial of the campaign: one planned, one recorded.
    assert result.trials == 1 and result.exceptions == [] and result.pauses == []
    assert sorted(p.name for p in (root / "records").iterdir()) == ["it-pf.table-model.llm-pf.1.json"]
    [line] = (root / "trials.jsonl").read_text().splitlines()
    assert json.loads(line)["failure"] is None
