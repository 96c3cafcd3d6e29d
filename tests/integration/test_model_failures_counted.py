"""The finding that started issue 7, through Temporal: a model whose `execute_blender_code` call
kills the Blender host used to get every attempt erased as an infra exception (avg@3 and pass@3
null). Now each attempt is graded (nothing delivered -> 0) with a `solver` failure, and the
figures count it. The model is the FAKE OpenAI-compatible endpoint (tests/fakes), not a model."""

from __future__ import annotations

import dataclasses
import json

import pytest

from activities.evidence import EvidenceActivities
from activities.trial_backends import HarborSandboxBackend
from activities.trials import TrialActivities
from contracts import queues
from contracts.payloads.evaluation import EvaluationInput, EvaluationResult
from contracts.payloads.review import FrozenTask
from contracts.payloads.trials import TrialRequest
from contracts.payloads.vl_grading import RenderEvidenceInput
from tests.adversarial.sandbox_helpers import requires_landlock, sandbox_kwargs
from tests.conftest import assemble_seed
from tests.fakes.openai_server import FakeOpenAIServer, tool_call

pytestmark = [pytest.mark.blender, pytest.mark.temporal, requires_landlock]

KILL = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"


async def test_a_model_that_kills_blender_scores_zero_in_every_attempt(
        temporal_env, workers, store, settings, project_root, monkeypatch, tmp_path):
    assembled = await assemble_seed(store, project_root / "seeds" / "table-model")
    oracle = await TrialActivities(store, HarborSandboxBackend(sandbox_kwargs(tmp_path / "slots"))).run_trial(
        TrialRequest(assembled.task_package, assembled.identity, "oracle", "kill-reference", "authoring"))
    rendered = await EvidenceActivities(store, settings.var / "cache" / "evidence").render_evidence(
        RenderEvidenceInput(oracle.delivery, assembled.grading.judge_config))
    grading = dataclasses.replace(assembled.grading, reference_evidence=rendered.evidence)
    frozen = FrozenTask(
        task_id="table-model", task_version="v1-killtest", task_package=assembled.task_package,
        frozen_record=store.put_json({"test": "stand-in frozen record"}),
        calibration_report=store.put_json({"test": "stand-in calibration"}),
        identity=assembled.identity, grading=grading, input_reward=0.0,
        pipeline_ref={"pipeline_id": "arkevo-blender", "pipeline_version": "0.1.0",
                      "pipeline_digest": "d" * 64})

    with FakeOpenAIServer([tool_call("execute_blender_code", {"code": KILL})] * 3) as fake:
        monkeypatch.setenv("ARKEVO_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("ARKEVO_LLM_MODEL", "fake-model")
        monkeypatch.setenv("ARKEVO_LLM_API_KEY", "sk-fake-do-not-record")
        result = await temporal_env.client.execute_workflow(
            "Evaluation", EvaluationInput(frozen, ["llm"], 3), id="it-llm-kills-blender",
            task_queue=queues.CONTROL, result_type=EvaluationResult)
        requests = len(fake.requests)

    [llm] = result.metrics
    assert (llm.scored, llm.exceptions) == (3, 0)  # graded attempts, not erased
    assert llm.avg_at_k == 0.0 and llm.pass_at_k == 0.0 and llm.failures["solver"] == 3
    assert requests == 3  # one call each: nothing after the host died, nothing retried
    trials = [json.loads(line) for line in store.get_bytes(result.trials_jsonl).decode().splitlines()]
    assert [(t["reward"], t["success"], t["exception"]) for t in trials] == [(0.0, False, None)] * 3
    assert {(t["failure"]["kind"], t["failure"]["type"]) for t in trials} == {("solver", "BlenderHostDied")}
    assert all(t["judge"]["kind"] == "offline-metric" for t in trials)  # VL graded: gate 0, nothing to see
    report = store.get_json(result.report)
    assert report["failures"] == {"infra": 0, "solver": 3, "author": 0}
