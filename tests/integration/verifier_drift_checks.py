"""The verifier drift check (docs/verifier-drift.md) on a real revision: the one
test_dataset_production.py makes (table-model and fence-array, frozen, with stage-06 trials and a
campaign with a recovered trial over both), on its stack of worker processes with real Blender
in the sandbox. Nothing is mocked.

First `arkevo verifier drift --deliveries-only` with the workers' own verifier: every stored
calibration sample, stage-06 trial and campaign trial is graded again, and nothing drifts (exit 0);
the references are not attacked again, and the report says so. Then, attacking every reference
again, with a
candidate's probe code -- a real change to one probe: a copy of `verifiers/probes_surface.py`
whose `material_on_faces` asks the material to cover 0.01 more of the faces than the rubric
says, which no delivery can (a share is at most 1) -- given with `--probe-code`: the workers lay
it over their own files and the warm probe runs it in the verifier sandbox. Only table-model's
rubric measures `material_on_faces` (C07, a core criterion), so the report must name
table-model, and exactly the samples and trials that passed before (reference, the variant, the
oracle trials), and nothing of fence-array; neither mutation score moves (a stricter grader
still refuses every attack). The frozen records are untouched (`arkevo dataset verify`), and
the review site shows the latest report.
"""

from __future__ import annotations

import json
from pathlib import Path

from dataset_revisions.layout import RevisionKeys
from verifiers.version import VERIFIERS

KEYS = RevisionKeys("it", "r1")
PROBE = "probes_surface.py"
MIN_SHARE = '    min_share = float(p.get("min_share", 0.999))\n'


def candidate(tmp_path: Path) -> Path:
    """A candidate's probe code: one probe module, changed in one line."""
    folder = tmp_path / "candidate-verifier"
    folder.mkdir()
    source = (VERIFIERS / PROBE).read_text(encoding="utf-8")
    assert source.count(MIN_SHARE) == 1, f"{PROBE} changed: the candidate's patch no longer applies"
    (folder / PROBE).write_text(source.replace(MIN_SHARE, MIN_SHARE.rstrip("\n") + " + 0.01\n"), encoding="utf-8")
    return folder


def report_of(stdout: str, var: Path) -> dict:
    line = next(x for x in stdout.splitlines() if x.startswith("report: "))
    path = Path(line.removeprefix("report: ").strip())
    assert path.parent == var / KEYS.drift_reports.rstrip("/"), path
    return json.loads(path.read_text())


# A drift check re-runs every task's mutation testing (284 operators known, a hundred and more
# applicable to each) beside its samples and trials: on a loaded 2-core machine that is minutes,
# not the two a quick CLI call gets -- the CLI waits for the workflow, the test for the CLI. The
# first check here grades the deliveries only (--deliveries-only, as `make demo` runs it); the
# candidate's attacks every reference again, and its mutation scores must hold.
DRIFT_TIMEOUT = 900


def check_verifier_drift(stack, tmp_path: Path, run_cli, arkevo: str) -> None:
    unchanged = run_cli(stack, arkevo, "verifier", "drift", "--dataset", "it/r1", "--deliveries-only",
                        timeout=DRIFT_TIMEOUT)
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    assert "zero drift" in unchanged.stdout and "attacks not run again (--deliveries-only)" in unchanged.stdout
    report = report_of(unchanged.stdout, stack.var)
    assert report["attacks"] is False
    summary = report["summary"]
    assert summary["zero_drift"] and summary["tasks_checked"] == 2 and summary["verdict_flips"] == 0
    tasks = {t["task_id"]: t for t in report["tasks"]}
    assert set(tasks) == {"table-model", "fence-array"}
    for t in tasks.values():
        assert t["frozen_verifier_version"] == t["current_verifier_version"] and t["frozen_version_reproduced"]
        sources = [r["source"] for r in t["records"]]
        # reference, input, one defect, the variant; one oracle attempt; oracle, nop and the model agent
        assert sources.count("calibration") == 4 and sources.count("evaluation") == 1, sources
        assert sources.count("campaign") == 3, sources
        assert all(r["rescored"] for r in t["records"] if r["source"] != "campaign"), t["records"]
        assert all(not r["drift"] for r in t["records"])
        assert not t["mutation"]["rescored"] and t["mutation"]["not_rescored"].startswith("not asked")
        assert t["calibration"] == {"passed_before": True, "passed_now": True, "misses_now": [], "changed": False}
    assert summary["samples_rescored"] == 8 and summary["trials_rescored"] >= 2 + 4

    changed = run_cli(stack, arkevo, "verifier", "drift", "--dataset", "it/r1", "--probe-code",
                      str(candidate(tmp_path)), timeout=DRIFT_TIMEOUT)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    report = report_of(changed.stdout, stack.var)
    assert report["verifier_code"]["replaced"] == [PROBE] and report["attacks"] is True
    for t in report["tasks"]:  # every reference attacked again: the same rows, the same score
        assert t["mutation"]["rescored"] and t["mutation"]["new_score"] == t["mutation"]["stored_score"] == 1.0
        assert not t["mutation"]["changed"]
    assert report["summary"]["tasks_with_drift"] == ["table-model"]
    flips = {(t["task_id"], r["source"], r["id"]) for t in report["tasks"] for r in t["records"] if r["verdict_flip"]}
    table = {t["task_id"]: t for t in report["tasks"]}["table-model"]
    oracle_trial = next(r["id"] for r in table["records"] if r["source"] == "evaluation")
    assert flips == {("table-model", "calibration", "reference"),
                     ("table-model", "calibration", "variant:tapered_round_legs"),
                     ("table-model", "evaluation", oracle_trial),
                     ("table-model", "campaign", "it-c1.table-model.oracle.1")}, flips
    for r in table["records"]:
        if r["verdict_flip"]:  # the core criterion caps the reward
            assert r["stored_success"] and not r["new_success"] and r["new_reward"] == 0.4, r
            assert r["criteria_changed"] == ["C07"] and r["criteria_added"] == r["criteria_removed"] == [], r
    assert table["current_verifier_version"] != table["frozen_verifier_version"]
    assert table["mutation"]["new_score"] == 1.0 and not table["mutation"]["changed"]
    assert table["calibration"]["passed_before"] and table["calibration"]["passed_now"] is False
    assert "drift table-model calibration reference: pass → fail; reward 1.000 → 0.400" in changed.stdout
    fence = {t["task_id"]: t for t in report["tasks"]}["fence-array"]
    assert not fence["drift"] and fence["current_verifier_version"] != fence["frozen_verifier_version"]

    # written beside the revision, the frozen records untouched
    assert len(list((stack.var / KEYS.drift_reports).glob("vc-*.json"))) == 2
    verify = run_cli(stack, arkevo, "dataset", "verify", "--namespace", "it", "--revision", "r1")
    assert verify.returncode == 0, verify.stdout
    site = tmp_path / "drift-site"
    built = run_cli(stack, arkevo, "site", "build", "--dataset", "it/r1", "--out", str(site))
    assert built.returncode == 0, built.stdout + built.stderr
    page = (site / "drift.html").read_text()
    assert "it-c1.table-model.oracle.1" in page and "variant:tapered_round_legs" in page
    assert 'href="drift.html"' in (site / "index.html").read_text()
