"""`arkevo seed calibrate`: stage 05's judgement of a draft offline, real Blender in the
sandbox. A lightened table seed (rules only, one defect, two gaming samples: `light_copy`) with
a "defect" that is the reference solution itself fails, naming the sample that missed (exit 1);
a seed that `check` refuses is not calibrated at all. The same seed without that defect passes
with its sample, mutation and gaming tables (exit 0) in the authoring guide's walk-through
(tests/integration/test_seed_walkthrough.py), which also submits it."""

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
    """The `arkevo` command as a user runs it, with its own ARKEVO_VAR; wide enough for the tables."""
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          env={**os.environ, "ARKEVO_VAR": str(var), "COLUMNS": "220"}, timeout=600)


def test_calibrate_names_the_sample_of_an_unsound_draft(tmp_path):
    seed = light_copy("table-model", tmp_path)
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
