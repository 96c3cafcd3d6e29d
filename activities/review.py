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

import dataclasses
import json
from typing import Any, cast

from temporalio import activity

from activities.scoring import grade_record, profile_and_task
from storage.content import ContentStore
from storage.objects import ObjectStore
from contracts.digests import canonical_json_bytes, task_version_of
from contracts.payloads.authoring import GradingSpec
from contracts.payloads.common import BlobRef, ref_dict
from contracts.payloads.review import (CalibrationInput, CalibrationVerdict, FreezeInput, FrozenTask,
                                       HumanReviewRequest)
from contracts.payloads.trials import TrialOutcome
from contracts.validation import validate_document
from verifiers.calibration import judge_samples
from verifiers.mutation_testing import allowed_operators, gaming_table, mutation_table
from verifiers.version import verifier_version_from


def frozen_record_key(task_id: str, version: str) -> str:
    """Where the first record of a frozen task version lives in the object store."""
    return f"tasks/{task_id}/{version}.json"


def pending_review_key(task_id: str) -> str:
    """Stage 05's human review record of a task (`review: human`): waiting, then decided."""
    return f"reviews/pending/{task_id}.json"


class ReviewActivities:
    def __init__(self, store: ContentStore, objects: ObjectStore):
        self.store = store
        # Frozen-version records are shared state: every cpu worker of a deployment must see
        # the first one written, so they live in the object store (create-only on S3 too).
        self.objects = objects

    @activity.defn(name="judge_calibration")
    def judge_calibration(self, req: CalibrationInput) -> CalibrationVerdict:
        pairs = list(zip(req.samples, req.outcomes, strict=True))
        reports = [cast(dict, self.store.get_json(o.report)) if o.report else None for _, o in pairs]
        vls = [cast(dict, self.store.get_json(o.vl)) if o.vl else None for _, o in pairs]
        grading = self._calibrated(req.grading, pairs, reports, vls, req.margin)
        # Every sample is re-scored under the params in force (kuka-80-20's caps change totals).
        records = [grade_record(grading, r, v) if r is not None else None
                   for r, v in zip(reports, vls)]
        judgement = judge_samples(
            [{"name": s.name, "kind": s.kind,
              "total": rec["total"] if rec else None, "success": rec["success"] if rec else None,
              "criteria": rec["criteria"] if rec else [],
              "null_reason": rec.get("total_null_reason") if rec else _null_reason(o)}
             for (s, o), rec in zip(pairs, records)],
            pass_threshold=grading.pass_threshold, reference_min=req.reference_min,
            margin=req.margin)
        rows: list[dict[str, Any]] = []
        for (sample, outcome), rec, j in zip(pairs, records, judgement.samples):
            rows.append({
                "sample": sample.name, "kind": sample.kind, "policy": sample.policy,
                "rule_score": rec["rule_score"] if rec else None,
                "vl_score": rec.get("vl_score") if rec else None,
                "reward": rec["total"] if rec else None, "success": rec["success"] if rec else None,
                "cap_applied": rec.get("cap_applied") if rec else None,
                "expected": j.expected, "met": j.met, "margin": j.margin,
                "failure": dataclasses.asdict(outcome.failure) if outcome.failure else None,
                # the trial that delivered the sample (stage 03's input and reference are carried)
                "trial_stage": outcome.stage,
                "cost": dataclasses.asdict(outcome.cost) if outcome.cost else None,
                "delivery": ref_dict(outcome.delivery), "report": ref_dict(outcome.report),
                "vl": ref_dict(outcome.vl), "renders": ref_dict(outcome.renders),
                "criteria": [
                    {k: c.get(k) for k in ("id", "passed", "score", "measured", "expected", "detail")}
                    for c in (rec["criteria"] if rec else [])
                ],
            })
        misses = judgement.misses + [f"pilot finding: {f}" for f in req.pilot_findings]
        mutations, gaming = self._attacks(req, grading)
        if mutations is not None and mutations["survivors"]:
            misses.append(f"grader gameable: operators not killed: {', '.join(mutations['survivors'])}")
        if gaming is not None:
            misses += gaming["misses"]
        doc = {
            "task_id": req.task_id,
            "scoring_profile": grading.profile,
            "profile_params": grading.params,
            "judge": grading.judge,
            "verifier_version": grading.verifier_version,
            "pass_threshold": grading.pass_threshold,
            "reference_min": req.reference_min,
            "required_margin": req.margin,
            "margin": judgement.margin,
            "min_good": judgement.min_good,
            "max_bad": judgement.max_bad,
            "passed": not misses,
            "misses": misses,
            "samples": rows,
            "mutations": mutations,
            "gaming": gaming,
        }
        input_row = next((r for r in rows if r["kind"] == "input"), None)
        return CalibrationVerdict(self.store.put_json(doc), not misses, misses, grading,
                                  input_row["reward"] if input_row else None,
                                  (list(mutations["survivors"]) if mutations else [])
                                  + [g["sample"] for g in (gaming or {}).get("samples", []) if not g["refused"]])

    def _attacks(self, req: CalibrationInput, grading: GradingSpec) -> tuple[dict | None, dict | None]:
        """The mutation table and the gaming samples' table under the calibrated grading (None
        when mutation testing did not run)."""
        if req.mutations is None:
            return None, None
        profile, task = profile_and_task(grading)
        doc = cast(dict, self.store.get_json(req.mutations.rows))
        package_task = cast(dict, self.store.get_json(self.store.tree_file(req.package, "tests/task.json"))) \
            if req.package is not None else {}
        table = mutation_table(doc["rows"], profile, task, grading.params, allowed_operators(package_task))
        if "cost" in doc:  # rows written before mutation testing measured itself have none
            table["cost"] = doc["cost"]
        return table, gaming_table(doc.get("gaming", []), profile, task, grading.params)

    def _calibrated(self, grading: GradingSpec, pairs, reports, vls, margin: float) -> GradingSpec:
        """The profile's params chosen from the samples (kuka-80-20: core caps); most profiles
        have none to choose, and keep their defaults."""
        profile, task = profile_and_task(grading)
        samples = [(s.kind, r, v) for (s, _), r, v in zip(pairs, reports, vls) if r is not None]
        params = profile.calibrate_params(samples, task, margin)
        return dataclasses.replace(grading, params=params,
                                   verifier_version=verifier_version_from(grading.verifier_basis, params))

    @activity.defn(name="freeze_task")
    def freeze_task(self, req: FreezeInput) -> FrozenTask:
        entries = self.store.tree_entries(req.task_package)
        task = json.loads(self.store.get_bytes(self.store.tree_file(req.task_package, "tests/task.json")))
        task["status"] = "frozen"
        task["pipeline_ref"] = req.pipeline_ref
        validate_document("task", task, "frozen tests/task.json")
        task_blob = self.store.put_json(task)
        entries["tests/task.json"] = {"sha256": task_blob.sha256, "size": task_blob.size}
        frozen_tree = self.store.put_tree_manifest(entries)
        version = task_version_of(frozen_tree.sha256)

        record: dict[str, Any] = {
            "task_id": req.identity.task_id,
            "task_version": version,
            "task_package": ref_dict(frozen_tree),
            "pipeline_ref": req.pipeline_ref,
            "verifier_version": req.grading.verifier_version,
            "grading": dataclasses.asdict(req.grading),
            "calibration_report": ref_dict(req.calibration_report),
            "input_reward": req.input_reward,
            "frozen_at": req.frozen_at,
        }
        if req.human_review is not None:  # review: human — who accepted it, when and why
            record["human_review"] = dataclasses.asdict(req.human_review)
        # A rerun that reaches the same version finds the record the first run wrote: that one
        # stands, with its calibration report and grading, so nothing pairs a frozen task with
        # another run's calibration.
        record = self._write_once(req.identity.task_id, version, record)
        grading = _grading_of(record["grading"])
        identity = dataclasses.replace(
            req.identity, task_version=version, verifier_version=grading.verifier_version,
            pipeline_digest=record["pipeline_ref"]["pipeline_digest"])
        return FrozenTask(
            task_id=req.identity.task_id,
            task_version=version,
            task_package=frozen_tree,
            frozen_record=self.store.put_json(record),
            calibration_report=self.store.ref_for(record["calibration_report"]["sha256"],
                                                  record["calibration_report"]["size"]),
            identity=identity,
            grading=grading,
            input_reward=record["input_reward"],
            pipeline_ref=record["pipeline_ref"],
        )

    @activity.defn(name="record_human_review")
    def record_human_review(self, req: HumanReviewRequest) -> str:
        """Stage 05's human review record (`reviews/pending/<task_id>.json`): written when it
        starts waiting (the workflow to signal, the evidence), replaced by the decision or the
        timeout. `arkevo review` reads it to find the waiting workflow. Its location."""
        key = pending_review_key(req.task_id)
        doc = dataclasses.asdict(req)
        # the evidence a reviewer reads now: the blobs, and the review site's page of the
        # waiting task (review_site/reviews.py) with the command that builds it; the task
        # page once it is published
        doc["evidence"] = {"calibration_report": self.store.location(req.calibration_report),
                           "task_package": self.store.location(req.task_package),
                           "review_site_page": f"reviews/{req.task_id}.html",
                           "review_site_build": "arkevo site build --pending-reviews --out <DIR>",
                           "published_page": f"tasks/{req.task_id}.html"}
        self.objects.replace(key, json.dumps(doc, indent=2).encode() + b"\n")
        return self.objects.location(key)

    def _write_once(self, task_id: str, version: str, record: dict) -> dict:
        """Frozen versions are immutable: the first record written for a version stands."""
        key = frozen_record_key(task_id, version)
        if self.objects.put_if_absent(key, canonical_json_bytes(record)):
            return record
        return json.loads(self.objects.get(key))


def _grading_of(doc: dict) -> GradingSpec:
    refs = {k: BlobRef(**doc[k]) if doc.get(k) else None
            for k in ("judge_config", "reference_evidence")}
    return GradingSpec(**{**doc, **refs})


def _null_reason(outcome: TrialOutcome) -> str | None:
    if outcome.exception:
        return f"{outcome.exception.get('type')}: {outcome.exception.get('message')}"
    return outcome.null_reason
