"""Grade a delivery of a published task under its scoring profile, offline, inside the verifier.

    python3 /tests/packaged_grade.py --tests /tests --blend /workspace/outputs/result.blend \
        --report /logs/verifier/report.json --out /logs/verifier

A publication whose profile weights VL ships what the pipeline's grading used, so `harbor run`
on it gives the same reward the pipeline gave: `grading.json` (profile, params, verification,
the resolved view spec, the verifier version), the reference deliverable's renders
(`reference_evidence/`), the renderer (`render_evidence.py`) and the scoring code as the package
`verifiers/` (vl, colour_math, profiles, scoring). The judge is the offline image-metric judge,
labelled as such in `score.json`; a model judge needs the pipeline's llm workers.

Runs in the verifier sandbox with bpy's Python: the task image's /opt/bpy venv, where numpy comes
with bpy and `environment/Dockerfile` installs Pillow beside it (arkevo's own sandbox runs the
worker's venv, which has both). Writes `evidence/`, `score.json` and Harbor's `reward.json`; a
null total writes no reward and exits 3 with the reason — never a renormalised rule score.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

SHEET = "frames_sheet.png"
# The grader's budget for one delivery's evidence renders (the pipeline's: verifiers/evidence.py).
EVIDENCE_BUDGET_SEC = 600
BUDGET_EXCEEDED = "GraderBudgetExceeded"


def render(tests: Path, blend: Path, spec: dict, out: Path) -> dict:
    """The delivery's evidence, as the pipeline's sandboxed render makes it (+ contact sheet)."""
    from verifiers import vl

    jobs = out.parent / "evidence-jobs.json"
    jobs.write_text(json.dumps([{"blend": str(blend), "spec": spec, "out": str(out)}]), encoding="utf-8")
    budget = float(os.environ.get("ARKEVO_EVIDENCE_BUDGET_SEC", EVIDENCE_BUDGET_SEC))
    try:
        subprocess.run([sys.executable, str(tests / "render_evidence.py"), "--jobs", str(jobs)], check=True,
                       timeout=budget)
    except subprocess.TimeoutExpired:
        # the grader's render settings keep an honest delivery far inside the budget: a delivery
        # that exhausts it is the solver's failure, graded 0 -- never an infrastructure retry
        return {"files": {}, "error": f"{BUDGET_EXCEEDED}: the evidence render ran past {budget:.0f}s"}
    except subprocess.CalledProcessError as exc:  # it opened the delivery and died on it
        return {"files": {}, "error": f"the evidence renderer failed on this delivery (exit {exc.returncode})"}
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    frames = sorted((e["index"], n) for n, e in manifest.get("files", {}).items() if e.get("kind") == "frame")
    if frames:
        vl.contact_sheet([out / n for _, n in frames], columns=4).save(out / SHEET)
    return manifest


def grade(tests: Path, blend: Path, report: Path, out: Path) -> dict:
    sys.path.insert(0, str(tests))
    from verifiers import profiles, vl

    grading = json.loads((tests / "grading.json").read_text(encoding="utf-8"))
    config = vl.load_judge_config(tests / "judge.json")
    evidence = out / "evidence"
    manifest = render(tests, blend, grading["evidence_spec"], evidence)
    if manifest.get("error"):
        answer = vl.no_evidence_result(config, vl.image_metric_judge_id(), manifest["error"])
    else:
        reference = tests / "reference_evidence"
        frames = (sorted(p.name for p in evidence.glob("frame_*.png"))
                  or sorted(p.name for p in reference.glob("frame_*.png")))
        answer = vl.image_metric_judge(config, evidence, reference, frames)
    profile = profiles.get_profile(grading["profile"]["profile_id"], grading["profile"]["profile_version"])
    task = {"task_id": grading["task_id"], "verification": grading["verification"]}
    return profiles.score_record(profile, json.loads(report.read_text(encoding="utf-8")), answer, task,
                                 verifier_version=grading["verifier_version"], params=grading["params"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=Path, default=Path("/tests"))
    ap.add_argument("--blend", type=Path, required=True)
    ap.add_argument("--report", type=Path, required=True, help="the rule probe's report.json")
    ap.add_argument("--out", type=Path, required=True, help="folder for evidence/, score.json, reward.json")
    args = ap.parse_args(argv)
    record = grade(args.tests.resolve(), args.blend, args.report, args.out)
    (args.out / "score.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    if record["total"] is None:
        print(f"no reward: {record['total_null_reason']}", file=sys.stderr)
        return 3
    (args.out / "reward.json").write_text(json.dumps({"reward": record["total"]}) + "\n", encoding="utf-8")
    print(f"packaged_grade: total={record['total']} success={record['success']} ({record['profile']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
