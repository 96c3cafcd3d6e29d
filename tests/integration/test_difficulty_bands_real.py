"""Difficulty bands on the real path (docs/datasets.md "Difficulty bands"): the `temporal` dev
server and the worker pools as separate processes, real Blender in the sandbox, the `arkevo`
command line. One lightened seed (fence-array: `light_copy`) is produced into a revision whose
spec asks its test split for a band — solved by oracle, not always solved by nop.

Before any campaign the band is unmeasured: freeze-check shows it and `freeze` refuses. A
campaign over the revision's candidates (not frozen) with only nop writes a difficulty record
beside the revision: nop scored once and failed, so the task is listed `possibly_impossible`
(kept, never dropped) and oracle is still unmeasured: refused again. A second candidates
campaign with oracle and the LLM agent against the local FAKE endpoint (a planted tool call
that solves it; not a model) pools with the first: in band, and the freeze goes through. A band
measured out of band (and its freeze refused, naming the task) is the same freeze-check on the
same difficulty records: tests/unit/test_difficulty_bands.py, without producing the seed again.
A spec whose band names an unknown config is refused by `arkevo dataset start` (exit 2) and by
the workflow (InvalidDatasetSpec), naming `bands.test.solved_by`, and nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError

from contracts import queues
from contracts.payloads.datasets import DatasetProductionInput, DatasetProductionResult
from dataset_revisions.layout import RevisionKeys
from tests.integration.test_dataset_production import (ARKEVO, REGISTRY, fake_model, light_copy,  # noqa: F401
                                                       run_cli, stack)

pytestmark = [pytest.mark.blender, pytest.mark.temporal]

KEYS = RevisionKeys("bands", "r1")
BAND = {"solved_by": "oracle", "not_always_solved_by": "nop"}
REVISION = ["--namespace", "bands", "--revision", "r1"]


def spec_of(seed: Path, **over) -> dict:
    return {"namespace": "bands", "revision": "r1", "seeds": [str(seed)], "splits": {"test": 1},
            "max_per_source": 1, "selection_seed": 5, "concurrency": 1,
            "options": {"pilot_policies": ["oracle"], "evaluation_policies": ["oracle"], "k": 1},
            "bands": {"test": BAND}, **over}


def freeze_check(on) -> tuple[int, dict]:
    done = run_cli(on, str(ARKEVO), "dataset", "freeze-check", *REVISION, "--json")
    return done.returncode, json.loads(done.stdout)


def candidates_campaign(on, registry: Path, campaign_id: str, *configs: str) -> dict:
    done = run_cli(on, str(ARKEVO), "campaign", "start", "--dataset", f"bands/{KEYS.revision}", "--id", campaign_id,
                   "--mode", "it", "--registry", str(registry), "--bootstrap", "500",
                   *[a for c in configs for a in ("--config", c)], "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((on.var / KEYS.difficulty(campaign_id)).read_text())
    assert record["target"] == "candidates" and record["split"] is None
    (task,) = record["tasks"]
    return task


# the stack and FAKE endpoint fixtures of test_dataset_production (imported above)
async def test_bands_measured_before_the_freeze_refuse_then_allow_it(stack, tmp_path):  # noqa: F811
    from workers.client import connect

    client = await connect(address=stack.address)
    seed = light_copy("fence-array", tmp_path)

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(spec_of(seed, revision="r0", bands={"test": {"solved_by": "gpt-oracle"}})))
    refused = run_cli(stack, str(ARKEVO), "dataset", "start", str(bad))
    assert refused.returncode == 2
    assert "bands.test.solved_by: unknown config 'gpt-oracle'" in refused.stderr.replace("\n", "")
    with pytest.raises(WorkflowFailureError) as e:
        await client.execute_workflow("DatasetProduction", DatasetProductionInput(spec=json.loads(bad.read_text())),
                                      id="dataset-bands-r0", task_queue=queues.CONTROL)
    assert e.value.cause.cause.type == "InvalidDatasetSpec"
    assert "bands.test.solved_by" in str(e.value.cause.cause)
    assert not (stack.var / "datasets" / "bands").exists()  # nothing written

    result = await client.execute_workflow("DatasetProduction", DatasetProductionInput(spec=spec_of(seed)),
                                           id="dataset-bands-r1", task_queue=queues.CONTROL,
                                           result_type=DatasetProductionResult)
    assert sorted(result.published) == ["fence-array"] and result.failed == {}

    code, report = freeze_check(stack)
    assert code == 1 and [b["status"] for b in report["bands"]] == ["unmeasured"]
    assert [g["rule"] for g in report["gaps"]] == ["difficulty_bands"]
    assert run_cli(stack, str(ARKEVO), "dataset", "freeze", *REVISION).returncode == 1
    assert not (stack.var / KEYS.manifest).exists()

    registry = tmp_path / "solver_configs.json"
    registry.write_text(json.dumps(REGISTRY))
    nop = candidates_campaign(stack, registry, "bands-nop", "nop")
    (counts,) = nop["configs"]
    assert (counts["config_id"], counts["k"], counts["scored"], counts["solved"]) == ("nop", 1, 1, 0)
    assert counts["label"] == "scripted policy — not a model result"
    code, report = freeze_check(stack)
    (band,) = report["bands"]
    assert code == 1 and report["possibly_impossible"] == ["fence-array"] and band["possibly_impossible"]
    assert band["status"] == "unmeasured" and band["reasons"] == [
        "solved_by oracle: no scored attempt recorded"]
    table = run_cli(stack, str(ARKEVO), "dataset", "freeze-check", *REVISION)
    assert "difficulty bands" in table.stdout and "possibly impossible" in table.stdout
    assert run_cli(stack, str(ARKEVO), "dataset", "freeze", *REVISION).returncode == 1

    solved = candidates_campaign(stack, registry, "bands-solvers", "oracle", "llm-it")
    by_config = {c["config_id"]: c for c in solved["configs"]}
    assert (by_config["oracle"]["scored"], by_config["oracle"]["solved"]) == (1, 1)
    model = by_config["llm-it"]  # the FAKE endpoint's planted solve: counted as what it is
    assert model["kind"] == "model" and (model["scored"], model["solved"]) == (1, 1)
    assert solved["verifier_version"] == nop["verifier_version"]
    code, report = freeze_check(stack)
    (band,) = report["bands"]
    assert code == 0 and band["status"] == "in_band" and band["fits"] == ["test"]
    assert report["possibly_impossible"] == []
    assert band["measured"]["nop"]["campaigns"] == ["bands-nop"]
    frozen = run_cli(stack, str(ARKEVO), "dataset", "freeze", *REVISION)
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert (stack.var / KEYS.manifest).exists()

