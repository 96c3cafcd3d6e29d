"""Stage 05: judge calibration against its expectations, then freeze the task version.

The judgement is `verifiers.calibration.judge_samples`, the same one the calibration step
applies: the reference reaches `reference_min` and succeeds; every reasonable variant reaches
the pass threshold and succeeds; the untouched input and every defect do not succeed and stay
at least the margin (`calibration_margin` in `contracts/pipeline.json`) below the lowest good
reward; no reward is null; and lowest good - highest bad >= the margin. Pilot findings are
misses too. A frozen version is content-addressed and written once; a rerun with identical
content finds and reuses it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity

from activities.store import ContentStore
from contracts.digests import canonical_json_bytes, load_pipeline_config, pipeline_ref, task_version_of
from contracts.payloads import BlobRef, CalibrationSample, FrozenTask, TrialOutcome
from contracts.validation import validate_document
from verifiers.calibration import judge_samples


@dataclass
class CalibrationInput:
    task_id: str
    pass_threshold: float
    reference_min: float
    samples: list[CalibrationSample]
    outcomes: list[TrialOutcome]
    pilot_findings: list[str]


@dataclass
class CalibrationVerdict:
    report: BlobRef
    passed: bool
    misses: list[str]


@dataclass
class FreezeInput:
    task_id: str
    task_package: BlobRef
    calibration_report: BlobRef
    verifier_version: str
    input_reward: float | None
    frozen_at: str


class ReviewActivities:
    def __init__(self, store: ContentStore, project_root: Path, tasks_root: Path):
        self.store = store
        self.project_root = project_root
        self.tasks_root = tasks_root

    @activity.defn(name="judge_calibration")
    def judge_calibration(self, req: CalibrationInput) -> CalibrationVerdict:
        margin = float(load_pipeline_config(self.project_root).calibration_margin)
        pairs = list(zip(req.samples, req.outcomes, strict=True))
        reports = [self.store.get_json(o.report) if o.report else {"criteria": []} for _, o in pairs]
        judgement = judge_samples(
            [{"name": s.name, "kind": s.kind, "total": o.reward, "success": o.success,
              "criteria": r["criteria"], "null_reason": _null_reason(o, r)}
             for (s, o), r in zip(pairs, reports)],
            pass_threshold=req.pass_threshold, reference_min=req.reference_min, margin=margin)
        rows = []
        for (sample, outcome), report, j in zip(pairs, reports, judgement.samples):
            rows.append({
                "sample": sample.name, "kind": sample.kind, "policy": sample.policy,
                "reward": outcome.reward, "success": outcome.success,
                "expected": j.expected, "met": j.met, "margin": j.margin,
                "verifier_version": outcome.verifier_version,
                "delivery": _ref(outcome.delivery), "report": _ref(outcome.report),
                "criteria": [
                    {k: c.get(k) for k in ("id", "passed", "score", "measured", "expected", "detail")}
                    for c in report["criteria"]
                ],
            })
        misses = judgement.misses + [f"pilot finding: {f}" for f in req.pilot_findings]
        doc = {
            "task_id": req.task_id,
            "pass_threshold": req.pass_threshold,
            "reference_min": req.reference_min,
            "required_margin": margin,
            "margin": judgement.margin,
            "min_good": judgement.min_good,
            "max_bad": judgement.max_bad,
            "passed": not misses,
            "misses": misses,
            "samples": rows,
        }
        return CalibrationVerdict(self.store.put_json(doc), not misses, misses)

    @activity.defn(name="freeze_task")
    def freeze_task(self, req: FreezeInput) -> FrozenTask:
        entries = self.store.tree_entries(req.task_package)
        task = json.loads(self.store.get_bytes(self.store.tree_file(req.task_package, "tests/task.json")))
        ref = pipeline_ref(self.project_root)
        task["status"] = "frozen"
        task["pipeline_ref"] = ref.model_dump()
        validate_document("task", task, "frozen tests/task.json")
        task_blob = self.store.put_json(task)
        entries["tests/task.json"] = {"sha256": task_blob.sha256, "size": task_blob.size}
        frozen_tree = self.store.put_tree_manifest(entries)
        version = task_version_of(frozen_tree.sha256)

        record = {
            "task_id": req.task_id,
            "task_version": version,
            "task_package": _ref(frozen_tree),
            "pipeline_ref": task["pipeline_ref"],
            "verifier_version": req.verifier_version,
            "calibration_report": _ref(req.calibration_report),
            "input_reward": req.input_reward,
            "frozen_at": req.frozen_at,
        }
        record = self._write_once(req.task_id, version, record)
        return FrozenTask(
            task_id=req.task_id,
            task_version=version,
            task_package=frozen_tree,
            frozen_record=self.store.put_json(record),
            calibration_report=req.calibration_report,
            verifier_version=req.verifier_version,
            input_reward=req.input_reward,
            pipeline_digest=ref.pipeline_digest,
        )

    def _write_once(self, task_id: str, version: str, record: dict) -> dict:
        """Frozen versions are immutable: the first record written for a version stands."""
        path = self.tasks_root / task_id / f"{version}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(canonical_json_bytes(record))
        try:
            os.link(tmp, path)  # atomic create-if-absent
        except FileExistsError:
            record = json.loads(path.read_text())
        finally:
            tmp.unlink()
        return record


def _ref(ref: BlobRef | None) -> dict | None:
    return None if ref is None else {"key": ref.key, "sha256": ref.sha256, "size": ref.size}


def _null_reason(outcome: TrialOutcome, report: dict) -> str | None:
    if outcome.exception:
        return f"{outcome.exception.get('type')}: {outcome.exception.get('message')}"
    return report.get("reward_null_reason")
