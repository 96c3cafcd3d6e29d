"""A seed family through DatasetProduction for real: the `temporal` dev server, the four worker
pools, Blender in the sandbox. The spec asks for table-model's first 3 instances
(`family_instances`); the revision publishes the root and each instance as a task of its own:
admitted from the content store, its own rubric values, calibrated (reference, defects, the
variant, the gaming samples) and mutation-tested in stage 05 on its own, its values and the
root's lineage in task.toml, one lineage family for all four (docs/datasets.md, "Seed
families"). An instance whose values make it unsound is refused by the same calibration:
tests/integration/test_seed_calibrate.py.

The family is table-model's, lightened (`light_family`): one defect and two gaming samples,
taken out of the root and its templates alike, so it is still a family whose defaults give the
root back. What is under test is that each instance is produced and calibrated on its own; every
sample of the bundled seed is probed by test_blender_calibration and calibrated in `make demo`."""

from __future__ import annotations

import asyncio
import json
import shutil
import tomllib
from pathlib import Path

import pytest

from contracts import queues
from contracts.payloads.datasets import DatasetProductionInput, DatasetProductionResult
from contracts.validation import validate_document
from dataset_revisions.layout import RevisionKeys
from seed_families.expansion import instances
from tests.conftest import free_port
from tests.seed_copies import keep_calibration_scripts
from workers.settings import PROJECT_ROOT
from workers.stack import Stack

pytestmark = [pytest.mark.blender, pytest.mark.temporal]

KEYS = RevisionKeys("fam", "r1")
SPEC = {
    "namespace": "fam", "revision": "r1", "seeds": ["<light family>"], "family_instances": 3,
    "splits": {"train": 4}, "max_per_source": 4, "concurrency": 2,
    "options": {"pilot_policies": ["oracle"], "evaluation_policies": ["oracle"], "k": 1},
}


KEPT = {"defects": ("bar_height.py",), "gaming": ("card_legs.py", "display_box.py")}


def light_family(tmp_path: Path) -> Path:
    """table-model as bundled, with only KEPT of its defects and gaming samples, in the root's
    draft and in its templates (family/draft) alike."""
    root = tmp_path / "seeds" / "table-model"
    shutil.copytree(PROJECT_ROOT / "seeds" / "table-model", root)
    for draft in (root / "draft", root / "family" / "draft"):
        keep_calibration_scripts(draft, KEPT)
    return root


@pytest.fixture
def stack(tmp_path):
    stack = Stack(tmp_path / "var", free_port(), free_port())
    stack.up()
    yield stack
    stack.down()


async def test_a_family_of_three_instances_is_produced_each_calibrated_on_its_own(stack, tmp_path):
    from workers.client import connect

    root = light_family(tmp_path)
    client = await connect(address=stack.address)
    handle = await client.start_workflow("DatasetProduction", DatasetProductionInput(spec={**SPEC, "seeds": [str(root)]}),
                                         id="dataset-fam-r1", task_queue=queues.CONTROL,
                                         result_type=DatasetProductionResult)
    result = await asyncio.wait_for(handle.result(), 900)
    assert result.failed == {}, result.failed
    assert sorted(result.published) == ["table-model", "table-model-001", "table-model-002", "table-model-003"]
    outcome = json.loads((stack.var / KEYS.root / "outcomes" / "table-model-002.json").read_text())
    assert outcome["state"] == "published" and outcome["seed"] == f"{root}#002"

    doc = json.loads((root / "seed.json").read_text())
    family = validate_document("seed", doc, "seed.json").family  # type: ignore[attr-defined]
    expected = {i.seed_id: i.parameters for i in instances(root, doc, family, 3)}
    links = [json.loads(p.read_text()) for p in sorted((stack.var / KEYS.root / "chain").glob("*.json"))]
    assert sorted(link["seed_id"] for link in links) == sorted(result.published)  # each once
    references = {}
    for link in links:
        pub = stack.var / link["publication_key"]
        # one lineage family: the root's, so the four can only ever sit in one split
        assert (link["lineage_root"], link["lineage_family"]) == ("table-model", "arkevo-examples/workshop")
        meta = tomllib.loads((pub / "task" / "task.toml").read_text())["metadata"]
        assert meta["task_id"] == link["task_id"] == link["seed_id"]
        report = json.loads((pub / "review" / "calibration-report.json").read_text())
        assert report["task_id"] == link["seed_id"] and report["passed"]
        samples = {(s["kind"], s["policy"].rsplit("/", 1)[-1]) for s in report["samples"]}
        assert {("reference", "oracle"), ("input", "nop"), ("defect", "bar_height.py"),
                ("variant", "tapered_round_legs.py")} <= samples and all(s["met"] for s in report["samples"])
        # mutation-tested and attacked: this task itself, every applicable operator killed
        assert report["mutations"]["applicable"] == report["mutations"]["killed"] > 0
        assert report["gaming"]["refused"] == len(report["gaming"]["samples"]) == len(KEPT["gaming"])
        references[link["seed_id"]] = next(x for x in report["samples"] if x["kind"] == "reference")["delivery"]["sha256"]
        if link["seed_id"] == "table-model":
            assert "family_parameters" not in meta
            continue
        values = expected[link["seed_id"]]
        assert meta["family_root"] == "table-model"
        assert meta["family_instance"] == link["seed_id"].rsplit("-", 1)[1].lstrip("0")
        assert json.loads(meta["family_parameters"]) == values
        # the instance's own specification reached its grader
        tests_rubric = json.loads((pub / "task" / "tests" / "rubric.json").read_text())
        dims = next(c for c in tests_rubric["criteria"] if c["id"] == "C02")["params"]["expected"]
        assert dims == [values["width"], values["depth"], values["height"]]
    assert len(set(references.values())) == 4  # four reference deliveries: four tables, four calibrations
