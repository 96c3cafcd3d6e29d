"""`arkevo seed new`: every required file, each part to write marked `ARKEVO-TODO:`; `check`
then names those parts and nothing else (admission refuses the same, first marker first); a
folder that is not empty, a bad id, an unknown --like or --kind are bad input and write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.admission import AdmissionActivities
from cli.arkevo import main
from contracts.payloads.admission import AdmissionInput
from storage.content import FilesystemStore
from workers.settings import PROJECT_ROOT

REQUIRED = ["seed.json", "materials/brief.md", "materials/build_reference.py", "draft/task.json",
            "draft/rubric.json", "draft/instruction.md", "draft/public/spec.md", "draft/solution/solve.py"]


@pytest.mark.parametrize("how", [["--like", "robot-carry"], ["--kind", "MOD-01"]])
def test_a_new_seed_fails_check_only_on_what_is_still_to_write(how, tmp_path, capsys):
    seed = tmp_path / "my-seed"
    assert main(["seed", "new", str(seed), *how]) == 0
    assert all((seed / rel).is_file() for rel in REQUIRED)
    for kind, least in (("defects", 1), ("variants", 1), ("gaming", 2)):
        assert len(list((seed / "draft" / "calibration" / kind).glob("*.py"))) >= least
    manifest = json.loads((seed / "seed.json").read_text())
    assert manifest["seed_id"] == "my-seed"
    if how[0] == "--like":
        like = json.loads((PROJECT_ROOT / "seeds" / "robot-carry" / "seed.json").read_text())
        assert [manifest[k] for k in ("start_mode", "workflow_primary")] == [like["start_mode"], like["workflow_primary"]]
    else:
        assert (manifest["workflow_primary"], manifest["profession_primary"]) == ("MOD-01", "PRF-3DART")
    capsys.readouterr()

    assert main(["seed", "check", str(seed), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    findings = verdict["findings"]
    assert {f["error_type"] for f in findings} == {"InvalidSeed"}
    assert all("still to write" in f["message"] and f["field"].startswith("line ") for f in findings), findings
    marked = {f["file"] for f in findings}
    assert {"seed.json", "materials/brief.md", "draft/solution/solve.py", "draft/rubric.json"} <= marked, marked
    # admission refuses the same seed with the first of them
    with pytest.raises(ApplicationError) as refused:
        AdmissionActivities(FilesystemStore(tmp_path / "store"), PROJECT_ROOT).admit_seed(
            AdmissionInput(seed=str(seed), admitted_at="2026-12-04T00:00:00+00:00"))
    assert (refused.value.type, refused.value.message) == ("InvalidSeed", findings[0]["message"])


def test_bad_input_writes_nothing(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    assert main(["seed", "new", str(taken), "--kind", "MOD-01"]) == 2
    assert sorted(p.name for p in taken.iterdir()) == ["notes.txt"]
    assert main(["seed", "new", str(tmp_path / "Bad_Name"), "--kind", "MOD-01"]) == 2
    assert main(["seed", "new", str(tmp_path / "a-seed"), "--like", "no-such-seed"]) == 2
    assert main(["seed", "new", str(tmp_path / "b-seed"), "--kind", "MOD-99"]) == 2
    errors = capsys.readouterr().err
    assert "not empty" in errors and "seed id" in errors and "no such bundled seed" in errors and "MOD-99" in errors
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["taken"]
