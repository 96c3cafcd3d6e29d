"""`arkevo seed calibrate`: stage 05's judgement of a draft offline, real Blender in the
sandbox. A lightened table seed (rules only, one defect, two gaming samples: `light_copy`)
passes with its sample, mutation and gaming tables (exit 0); the same seed with a "defect" that
is the reference solution itself fails, naming the sample that missed (exit 1); a seed that
`check` refuses is not calibrated at all. `arkevo seed submit --wait` is run by
tests/integration/test_task_production.py (robot-carry through all seven stages)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.bad_seeds import weights_not_one
from tests.integration.test_dataset_production import light_copy
from workers.settings import PROJECT_ROOT

pytestmark = [pytest.mark.blender]


def arkevo(*args: str, var) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          env={**os.environ, "ARKEVO_VAR": str(var), "COLUMNS": "200"}, timeout=600)


def test_calibrate_passes_a_sound_draft_and_names_the_sample_of_an_unsound_one(tmp_path):
    seed = light_copy("table-model", tmp_path)
    good = arkevo("seed", "calibrate", str(seed), "--out", str(tmp_path / "good"), var=tmp_path / "var")
    assert good.returncode == 0, good.stdout + good.stderr
    out = good.stdout
    assert "as stage 05 judges it (margin 0.2, reference at least 0.9)" in out
    assert "table-model under rule-only@1: margin" in out and "(passed)" in out
    assert "mutation score" in out and "gaming samples refused 2/2" in out
    assert (tmp_path / "good" / "private" / "validation" / "report.json").is_file()

    shutil.copy(seed / "draft" / "solution" / "solve.py", seed / "draft" / "calibration" / "defects" / "as_solved.py")
    bad = arkevo("seed", "calibrate", str(seed), "--out", str(tmp_path / "bad"), var=tmp_path / "var")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "(FAILED)" in bad.stdout
    assert any(line.startswith("miss") and "defect:as_solved" in line for line in bad.stdout.splitlines()), bad.stdout


def test_calibrate_refuses_what_check_refuses_before_any_blender(tmp_path):
    seed = light_copy("table-model", tmp_path)
    weights_not_one(seed)
    refused = arkevo("seed", "calibrate", str(seed), "--out", str(tmp_path / "out"), var=tmp_path / "var")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "1 finding(s)" in refused.stdout and "draft/task.json" in refused.stdout
    assert not (tmp_path / "out").exists()
