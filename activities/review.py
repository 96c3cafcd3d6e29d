"""Stage 05: judge calibration against its expectations, then freeze the task version.

Expectations: the reference scores at least `reference_min`; the untouched input and every
defect stay below the pass threshold; every reasonable variant reaches it. A frozen version is
content-addressed and written once; a rerun with identical content finds and reuses it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity

from activities.store import ContentStore
from contracts.digests import canonical_json_bytes, pipeline_ref, task_version_of
from contracts.payloads import BlobRef, CalibrationSample, FrozenTask, TrialOutcome
from contracts.validation import validate_document


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


def expectation(kind: str, threshold: float, reference_min: float) -> tuple[str, float]:
    """(comparison, bound) a sample of this kind must meet."""
    return {
        "reference": (">=", reference_min),
        "variant": (">=", threshold),
        "input": ("<", threshold),
        "defect": ("<", threshold),
    }[kind]


def _meets(reward: float | None, op: str, bound: float) -> bool:
    if reward is None:
        return False
    return reward >= bound if op == ">=" else reward < bound


class ReviewActivities:
    def __init__(self, store: ContentStore, project_root: Path, tasks_root: Path):
        self.store = store
        self.project_root = project_root
        self.tasks_root = tasks_root

    @activity.defn(name="judge_calibration")
    def judge_calibration(self, req: CalibrationInput) -> CalibrationVerdict:
        rows, misses = [], []
        for sample, outcome in zip(req.samples, req.outcomes, strict=True):
            op, bound = expectation(sample.kind, req.pass_threshold, req.reference_min)
            report = self.store.get_json(outcome.report) if outcome.report else {"criteria": []}
            met = _meets(outcome.reward, op, bound)
            rows.append({
                "sample": sample.name, "kind": sample.kind, "policy": sample.policy,
                "reward": outcome.reward, "expected": f"{op} {bound}", "met": met,
                "verifier_version": outcome.verifier_version,
                "delivery": _ref(outcome.delivery), "report": _ref(outcome.report),
                "criteria": [
                    {k: c.get(k) for k in ("id", "passed", "score", "measured", "expected", "detail")}
                    for c in report["criteria"]
                ],
            })
            if not met:
                misses.append(_describe_miss(sample, outcome, op, bound, report))
        misses += [f"pilot finding: {f}" for f in req.pilot_findings]
        doc = {
            "task_id": req.task_id,
            "pass_threshold": req.pass_threshold,
            "reference_min": req.reference_min,
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


def _describe_miss(sample, outcome, op, bound, report) -> str:
    if outcome.reward is None:
        return f"sample {sample.name!r}: no reward ({report.get('reward_null_reason')}), expected {op} {bound}"
    if op == ">=":
        failed = [c["id"] for c in report["criteria"] if not c["passed"]]
        why = f"failed criteria: {', '.join(failed)}" if failed else "no criterion failed"
    else:
        passed = [c["id"] for c in report["criteria"] if c["passed"]]
        why = f"criteria that did not catch it: {', '.join(passed)}"
    return f"sample {sample.name!r} scored {outcome.reward:.3f}, expected {op} {bound} ({why})"
