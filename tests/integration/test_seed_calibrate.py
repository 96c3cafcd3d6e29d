"""`arkevo seed calibrate`: stage 05's judgement of a draft offline, real Blender in the
sandbox. A lightened table seed (rules only, one defect, two gaming samples: `light_copy`) with
a "defect" that is the reference solution itself fails, naming the sample that missed (exit 1);
a seed that `check` refuses is not calibrated at all. The same seed without that defect passes
with its sample, mutation and gaming tables (exit 0) in the authoring guide's walk-through
(tests/integration/test_seed_walkthrough.py), which also submits it. A seed family's instance
whose values make it unsound (a table 1.80 m wide: the evidence views lose a leg) is refused
with the calibration's reason, as stage 05 refuses it in a production. Both refusals run
`--no-mutate` (what they name is in the samples and the evidence; it also keeps them from ever
passing): mutation testing is the walk-through's."""

from __future__ import annotations

import json
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
    # --no-mutate: the samples are what this names (mutation testing: the walk-through's passing run)
    bad = arkevo("seed", "calibrate", str(seed), "--out", str(tmp_path / "bad"), "--no-mutate", var=tmp_path / "var")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "(FAILED)" in bad.stdout
    misses = [line for line in bad.stdout.splitlines() if line.startswith("miss")]
    assert any("defect:as_solved" in line for line in misses), bad.stdout
    # a quick run never passes: no operator attacked the grader
    assert any("mutation testing did not run" in line for line in misses), bad.stdout
    assert "mutation score" not in bad.stdout


def test_calibrate_refuses_what_check_refuses_before_any_blender(tmp_path):
    seed = light_copy("table-model", tmp_path)
    weights_not_one(seed)
    refused = arkevo("seed", "calibrate", str(seed), "--out", str(tmp_path / "out"), var=tmp_path / "var")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "1 finding(s)" in refused.stdout and "draft/task.json" in refused.stdout
    assert not (tmp_path / "out").exists()


def test_an_instance_its_values_make_unsound_is_refused_with_the_reason(tmp_path):
    """`expand` writes the family's one instance (width 1.80, sampler seed 0); its calibration
    misses: the VL judge's evidence views no longer show every leg at 8 px."""
    seed = tmp_path / "wide-table"
    shutil.copytree(PROJECT_ROOT / "seeds" / "table-model", seed, ignore=shutil.ignore_patterns("__pycache__"))
    doc = json.loads((seed / "seed.json").read_text())
    doc["seed_id"] = "wide-table"
    doc["family"] = {"parameters": {"width": {"default": 1.2, "choices": [1.2, 1.8]},
                                    "depth": {"default": 0.8, "choices": [0.8, 0.85]},
                                    "height": {"default": 0.75, "choices": [0.75, 0.76]}},
                     "count": 1, "sampler_seed": 0}
    (seed / "seed.json").write_text(json.dumps(doc, indent=2) + "\n")
    expanded = arkevo("seed", "expand", str(seed), "--out", str(tmp_path / "out"), var=tmp_path / "var")
    assert expanded.returncode == 0, expanded.stdout + expanded.stderr
    instance = tmp_path / "out" / "wide-table-001"
    assert json.loads((instance / "seed.json").read_text())["provenance"]["family_instance"]["parameters"] == {
        "width": 1.8, "depth": 0.8, "height": 0.76}
    refused = arkevo("seed", "calibrate", str(instance), "--out", str(tmp_path / "cal"), "--no-mutate",
                     var=tmp_path / "var")
    assert refused.returncode == 1 and "(FAILED)" in refused.stdout, refused.stdout + refused.stderr
    assert any(line.startswith("miss evidence: the VL judge cannot see graded part(s): Leg.FL")
               for line in refused.stdout.splitlines()), refused.stdout
