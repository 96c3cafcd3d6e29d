"""RewardKit criteria for a packaged task, so its ``tests/`` runs under Harbor + RewardKit:

    python -m rewardkit /tests --workspace /workspace --output /logs/verifier/reward.json

Copied into ``tests/`` next to the standalone probe files (``verifiers.version.REWARDKIT_FILES``),
``task.json`` and ``rubric.json``.  RewardKit imports every ``.py`` in ``tests/``; this one
registers one criterion per rule criterion of the task (weight 0: reported per criterion in
``reward-details.json`` with the probe's detail as reasoning) and ``total`` (weight 1), the
task's reward with its core cap -- so ``reward.json``'s ``reward`` equals the probe report's.
The probe runs once, in a subprocess (``rule_probe.py`` under this Python, which must have
``bpy``), on ``<workspace>/outputs/result.blend`` (``ARKEVO_DELIVERY`` overrides the relative
path); the report goes to ``/logs/verifier/report.json`` when that folder exists
(``ARKEVO_PROBE_REPORT`` overrides; elsewhere a scratch folder removed when the process ends).
A published task whose profile weights VL ships ``grading.json``: ``total`` is then
``packaged_grade.py``'s total (evidence renders, the offline image-metric judge, the scoring
profile), the same the pipeline gave; its files go to ``packaged-grade/`` next to the report.  A null total or a probe
crash raises: RewardKit fails loudly rather than writing a 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import rewardkit as rk
from rewardkit import criterion

HERE = Path(__file__).resolve().parent
_LOCK = threading.Lock()
_REPORTS: dict[str, dict] = {}


_SCRATCH: list[tempfile.TemporaryDirectory] = []  # outside Harbor: removed when the process ends


def _report_path() -> Path:
    if os.environ.get("ARKEVO_PROBE_REPORT"):
        return Path(os.environ["ARKEVO_PROBE_REPORT"])
    logs = Path("/logs/verifier")
    if logs.is_dir():
        return logs / "report.json"
    if not _SCRATCH:
        _SCRATCH.append(tempfile.TemporaryDirectory(prefix="arkevo-rk-"))
    return Path(_SCRATCH[0].name) / "report.json"


def probe_report(workspace: Path) -> dict:
    """The rule probe's report for this workspace's delivery (measured once per process)."""
    with _LOCK:
        key = str(workspace)
        if key not in _REPORTS:
            blend = Path(workspace) / os.environ.get("ARKEVO_DELIVERY", "outputs/result.blend")
            out = _report_path()
            proc = subprocess.run(
                [sys.executable, str(HERE / "rule_probe.py"), "--blend", str(blend),
                 "--task", str(HERE / "task.json"), "--rubric", str(HERE / "rubric.json"), "--out", str(out)],
                capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"rule probe failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
            _REPORTS[key] = json.loads(out.read_text(encoding="utf-8"))
        return _REPORTS[key]


@criterion(description="arkevo rule criterion {criterion_id}", shared=True)
def arkevo_rule(workspace: Path, criterion_id: str) -> dict:
    entry = next(c for c in probe_report(workspace)["criteria"] if c["id"] == criterion_id)
    return {"score": float(entry["score"]), "reasoning": f"passed={entry['passed']}: {entry['detail']}"}


def packaged_total(workspace: Path, report: dict) -> dict:
    """The scoring profile's record for a VL-weighted published task (packaged_grade.py)."""
    out = _report_path().parent / "packaged-grade"  # the evidence stays with the verifier's logs
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report), encoding="utf-8")
    blend = Path(workspace) / os.environ.get("ARKEVO_DELIVERY", "outputs/result.blend")
    proc = subprocess.run([sys.executable, str(HERE / "packaged_grade.py"), "--tests", str(HERE),
                           "--blend", str(blend), "--report", str(out / "report.json"), "--out", str(out)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"packaged grading failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads((out / "score.json").read_text(encoding="utf-8"))


@criterion(description="arkevo total: the task's reward under its scoring profile", shared=True)
def arkevo_total(workspace: Path) -> dict:
    report = probe_report(workspace)
    if (HERE / "grading.json").is_file():
        record = packaged_total(workspace, report)
        why = (f"{record['profile']['profile_id']}: rule={record['rule_score']} vl={record['vl_score']} "
               f"judge={record['judge']['id']} success={record['success']}")
        return {"score": float(record["total"]), "reasoning": why}
    if report["reward"] is None:
        raise RuntimeError(f"reward is null: {report['reward_null_reason']}")
    why = f"rule_score={report['rule_score']} core_failed={report['core_failed']} success={report['success']}"
    return {"score": float(report["reward"]), "reasoning": why}


if (HERE / "task.json").is_file():  # only inside a task's tests/ folder
    for _c in json.loads((HERE / "task.json").read_text(encoding="utf-8"))["criteria"]:
        if _c["channel"] == "rule":
            rk.arkevo_rule(_c["id"], weight=0.0, name=_c["id"])
    rk.arkevo_total(weight=1.0, name="total")
