"""`arkevo seed check` is admission's own judgement, offline: on every held-in bad seed
(tests/bad_seeds.py: the cases stage 02 is tested with end to end in
tests/integration/test_bad_input.py, and a secret in a material) its first finding is the error admission raises (the same
type, the same message) and it exits 1; every bundled seed passes (exit 0); findings of
independent checks are all listed; nothing is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from activities.admission import AdmissionActivities
from cli.arkevo import main
from contracts.payloads.admission import AdmissionInput
from storage.content import FilesystemStore
from tests.bad_seeds import CASES, PRIVACY_CASES, edit_json, judge_questions_missing, older_blender
from workers.settings import PROJECT_ROOT

BUNDLED = sorted(p.parent.name for p in (PROJECT_ROOT / "seeds").glob("*/seed.json"))


def table_copy(tmp_path: Path) -> Path:
    seed = tmp_path / "seeds" / "table-model"
    shutil.copytree(PROJECT_ROOT / "seeds" / "table-model", seed)
    return seed


def seed_check(capsys, seed: Path) -> tuple[int, dict]:
    code = main(["seed", "check", str(seed), "--json"])
    return code, json.loads(capsys.readouterr().out)


def admission_error(tmp_path: Path, seed: Path) -> ApplicationError:
    activities = AdmissionActivities(FilesystemStore(tmp_path / "store"), PROJECT_ROOT)
    with pytest.raises(ApplicationError) as raised:
        activities.admit_seed(AdmissionInput(seed=str(seed), admitted_at="2026-12-04T00:00:00+00:00"))
    return raised.value


@pytest.mark.parametrize("breaker,file,field", CASES + PRIVACY_CASES, ids=[c[0].__name__ for c in CASES + PRIVACY_CASES])
def test_check_agrees_with_admission_on_every_bad_seed(breaker, file, field, tmp_path, capsys):
    seed = table_copy(tmp_path)
    breaker(seed)
    refused = admission_error(tmp_path, seed)
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").rglob("*.*"))
    code, verdict = seed_check(capsys, seed)
    assert code == 1 and verdict["admitted"] is False
    first = verdict["findings"][0]
    assert (first["error_type"], first["message"]) == (refused.type, refused.message)
    assert file in first["message"] and field in first["message"]
    assert first["file"] and first["see"]


@pytest.mark.parametrize("seed_id", BUNDLED)
def test_every_bundled_seed_passes(seed_id, capsys):
    code, verdict = seed_check(capsys, PROJECT_ROOT / "seeds" / seed_id)
    assert (code, verdict["admitted"], verdict["findings"]) == (0, True, [])


def test_findings_of_independent_checks_are_all_listed_and_nothing_is_written(tmp_path, capsys):
    seed = table_copy(tmp_path)
    older_blender(seed)
    judge_questions_missing(seed)
    edit_json(seed / "draft" / "ledger.json", lambda d: d["requirements"][0].update(criteria=["C99"]))
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    refused = admission_error(tmp_path, seed)
    code, verdict = seed_check(capsys, seed)
    assert code == 1
    types = [f["error_type"] for f in verdict["findings"]]
    assert types[0] == refused.type == "BlenderVersionMismatch"
    files = [f["file"] for f in verdict["findings"]]
    assert "seed.json" in files[0] and any("judge.json" in m["message"] for m in verdict["findings"])
    assert any(f == "draft/ledger.json" for f in files), files
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before

    # the table a person reads: every finding numbered, with its file and where the rule is written
    assert main(["seed", "check", str(seed)]) == 1
    out = capsys.readouterr().out
    assert f"{len(types)} finding(s)" in out and "docs/scoring.md" in out


def test_a_missing_folder_is_bad_input(tmp_path, capsys):
    assert main(["seed", "check", str(tmp_path / "nowhere")]) == 2
    assert "no such seed folder" in capsys.readouterr().err


def test_calibrate_says_when_the_pipelines_judge_cannot_run_offline(tmp_path, capsys, monkeypatch):
    """A pipeline set to the model judge: calibrate runs the image-metric stand-in and says so
    (the calibration itself is tested end to end in tests/integration/test_seed_calibrate.py)."""
    from contracts import digests
    from verifiers import calibration

    real = digests.load_pipeline_config(PROJECT_ROOT)
    monkeypatch.setattr(digests, "load_pipeline_config", lambda root: real.model_copy(update={"vl_judge": "model"}))
    ran: list[list[str]] = []
    monkeypatch.setattr(calibration, "main", lambda argv: ran.append(argv) or 0)
    assert main(["seed", "calibrate", str(table_copy(tmp_path)), "--out", str(tmp_path / "out")]) == 0
    (argv,) = ran
    assert argv[argv.index("--judge") + 1] == "image-metric"
    err = capsys.readouterr().err
    assert "judges VL with 'model'" in err and "image-metric stand-in" in err, err
