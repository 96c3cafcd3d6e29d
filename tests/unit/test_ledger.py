"""The requirement ledger and the rules only a model-authored draft has: each problem is a
finding naming the file and the field, so the author can repair exactly that."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from activities.model_drafts import authored_draft_rules
from verifiers.seed_check import check_seed_dir
from drafting.ledger import check_ledger

TABLE = Path(__file__).resolve().parents[2] / "seeds" / "table-model"


@pytest.fixture
def seed(tmp_path) -> Path:
    dest = tmp_path / "table-model"
    shutil.copytree(TABLE, dest)
    return dest


def findings(seed: Path) -> list[dict]:
    checked = check_seed_dir(seed, authored=True)
    return [f.as_dict() for f in authored_draft_rules(checked)]


def edit_ledger(seed: Path, change) -> None:
    path = seed / "draft" / "ledger.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_the_bundled_table_draft_satisfies_every_rule(seed):
    checked = check_seed_dir(seed)
    assert check_ledger(seed, checked.manifest, checked.task) == []
    assert findings(seed) == []


def test_a_passage_not_in_its_material_is_named(seed):
    edit_ledger(seed, lambda d: d["requirements"][1]["source"].update(passage="150 x 90 cm"))
    assert findings(seed) == [{"check": "ledger", "file": "draft/ledger.json",
                               "field": "requirements[1].source.passage",
                               "message": "the passage is not in materials/brief.md verbatim"}]


def test_criteria_and_coverage_are_traced_both_ways(seed):
    def change(doc):
        doc["requirements"][0]["criteria"] = ["C02"]  # grades REQ-OVERALL-SIZE, not REQ-PARTS
        doc["requirements"] = [r for r in doc["requirements"] if r["requirement_id"] != "REQ-MATERIAL"]
    edit_ledger(seed, change)
    got = findings(seed)
    assert {"check": "ledger", "file": "draft/ledger.json", "field": "requirements[0].criteria[0]",
            "message": "C02 grades REQ-OVERALL-SIZE, not REQ-PARTS"} in got
    uncovered = [f for f in got if f["file"] == "draft/task.json"]
    criteria = json.loads((seed / "draft" / "task.json").read_text())["criteria"]
    assert [f["field"] for f in uncovered] == [
        f"criteria[{i}].requirement_id" for i, c in enumerate(criteria) if c["requirement_id"] == "REQ-MATERIAL"]


def test_a_public_anchor_must_be_where_the_solver_reads(seed):
    edit_ledger(seed, lambda d: d["requirements"][2]["public"].update(file="rubric.json"))
    [finding] = findings(seed)
    assert finding["field"] == "requirements[2].public.file" and "public attachment" in finding["message"]


def test_an_authored_draft_is_the_seeds_task_with_enough_samples(seed):
    (seed / "draft" / "calibration" / "variants" / "tapered_round_legs.py").unlink()
    (seed / "draft" / "calibration" / "defects" / "no_material.py").unlink()
    manifest = json.loads((seed / "seed.json").read_text())
    (seed / "seed.json").write_text(json.dumps({**manifest, "seed_id": "other-table"}))
    assert {(f["field"] if "field" in f else f["file"]): f["message"] for f in findings(seed)} == {
        "task_id": "task_id must be the seed's id 'other-table'",
        "draft/calibration/defects/": "2 defect script(s), at least 3 needed",
        "draft/calibration/variants/": "0 variant script(s), at least 1 needed"}


def test_a_missing_ledger_is_a_finding_not_a_crash(seed):
    (seed / "draft" / "ledger.json").unlink()
    assert findings(seed) == [{"check": "ledger", "file": "draft/ledger.json",
                               "message": "a model-authored draft needs a requirement ledger"}]
