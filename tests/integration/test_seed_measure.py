"""`arkevo seed measure`: the reference solution measured by the draft's rubric, real Blender in
the sandbox. On a table seed whose rubric leaves two `expected` values out, the measured
dimensions are printed to copy (1.2 x 0.8 x 0.75 and the top's 0.04), every other criterion
passes on the reference (exit 0), and the rubric is not written; a rubric whose expected
height is wrong makes the reference fail it, named (exit 1)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.integration.test_seed_calibrate import arkevo
from workers.settings import PROJECT_ROOT

pytestmark = [pytest.mark.blender]


def test_measure_prints_what_to_copy_and_names_what_the_reference_fails(tmp_path):
    seed = tmp_path / "table-model"
    shutil.copytree(PROJECT_ROOT / "seeds" / "table-model", seed)
    rubric_path = seed / "draft" / "rubric.json"
    rubric = json.loads(rubric_path.read_text())
    for criterion in rubric["criteria"]:
        if criterion["id"] in ("C02", "C03"):
            del criterion["params"]["expected"]
    rubric_path.write_text(json.dumps(rubric, indent=2))
    before = rubric_path.read_bytes()

    measured = arkevo("seed", "measure", str(seed), var=tmp_path / "var")
    assert measured.returncode == 0, measured.stdout + measured.stderr
    rows = {line.split("│")[1].strip(): line for line in measured.stdout.splitlines() if line.count("│") > 6}
    assert "not set: copy [1.2, 0.8, 0.75]" in rows["C02"] and "not set: copy [1.2, 0.8, 0.04]" in rows["C03"]
    assert all("yes" in rows[c] for c in rows if c not in ("C02", "C03", "id")), measured.stdout
    assert "2 criterion(s) without an expected value: C02, C03" in measured.stdout
    assert rubric_path.read_bytes() == before  # never written

    for criterion in rubric["criteria"]:
        if criterion["id"] == "C02":
            criterion["params"]["expected"] = [1.2, 0.8, 0.80]  # the brief says 0.75 m
    rubric_path.write_text(json.dumps(rubric, indent=2))
    wrong = arkevo("seed", "measure", str(seed), var=tmp_path / "var")
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "the reference fails C02" in wrong.stdout
