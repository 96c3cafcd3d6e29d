"""Scoring one trial under its task's scoring profile: the last step of every grade.

The rule report comes from the verifier sandbox, the VL judgement (when the profile weights VL)
from the llm pool; this applies the profile (rule-only, blender-70-30 with the A-gate,
kuka-80-20 with its core caps and independent success) — the same `score_record` the
calibration and score_delivery CLIs use — and stores the full record. A trial without a rule
report (an infra exception) is returned as it is: it has nothing to score.
"""

from __future__ import annotations

import dataclasses
from typing import cast

from temporalio import activity

from storage.content import ContentStore
from contracts.payloads.authoring import GradingSpec
from contracts.payloads.trials import ScoreTrialInput, TrialOutcome
from verifiers.profiles import ScoringProfile, get_profile, score_record


def profile_and_task(grading: GradingSpec) -> tuple[ScoringProfile, dict]:
    """The registered profile and the task fields it scores with (what the grading carries)."""
    profile = get_profile(grading.profile["profile_id"], grading.profile["profile_version"])
    return profile, {"task_id": grading.task_id, "verification": grading.verification}


def grade_record(grading: GradingSpec, rule_report: dict, vl: dict | None) -> dict:
    """The score record of one delivery under `grading` (pure)."""
    profile, task = profile_and_task(grading)
    return score_record(profile, rule_report, vl, task, verifier_version=grading.verifier_version,
                        params=grading.params)


class ScoringActivities:
    def __init__(self, store: ContentStore):
        self.store = store

    @activity.defn(name="score_trial")
    def score_trial(self, req: ScoreTrialInput) -> TrialOutcome:
        outcome = req.outcome
        if outcome.report is None:
            return outcome
        vl = cast(dict, self.store.get_json(req.vl.result)) if req.vl is not None else None
        record = grade_record(req.grading, cast(dict, self.store.get_json(outcome.report)), vl)
        return dataclasses.replace(
            outcome,
            reward=record["total"],
            success=record["success"],
            verifier_version=record["verifier_version"],
            vl=req.vl.result if req.vl is not None else None,
            renders=req.vl.evidence if req.vl is not None else None,
            judge=_judge_label(record.get("judge")),
            score=self.store.put_json({"trial_id": outcome.trial_id, **record}),
            null_reason=record.get("total_null_reason"),
        )


def _judge_label(judge: dict | None) -> dict | None:
    """What a trial record says of its judge: id, kind and the label it must be shown with."""
    return None if judge is None else {k: judge[k] for k in ("id", "kind", "label")}
