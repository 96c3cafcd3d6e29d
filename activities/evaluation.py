"""Stage 06 bookkeeping: the pre-registered plan, trials.jsonl and avg@k / pass@k.

Infra exceptions are recorded with `reward: null` and counted apart; they never enter a mean.
"""

from __future__ import annotations

import dataclasses

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.policies import policy_from_name
from storage.content import ContentStore
from campaigns.records import outcome_record
from campaigns.statistics import task_score
from contracts.digests import canonical_json_bytes
from contracts.payloads.common import BlobRef, ref_dict
from contracts.payloads.evaluation import ConfigMetrics, EvaluationResult, PlanInput, ReportInput
from contracts.payloads.trials import FAILURE_KINDS, PilotRecordInput, TrialOutcome, failure_counts
from contracts.validation import build_document

def config_metrics(config: str, k: int, outcomes: list[TrialOutcome],
                   input_reward: float | None) -> ConfigMetrics:
    """avg@k and pass@k as campaigns define them (`campaigns.statistics.task_score`, the one
    definition): avg@k the mean reward of the scored attempts; pass@k 1 if a scored attempt
    succeeded, 0 only when all k were scored and none did, else undetermined (None): an attempt
    lost to infrastructure might have passed. A solver failure is a scored attempt (its
    delivery as it stands); an infra exception is not."""
    mine = [o for o in outcomes if o.policy == config]
    rewards = [o.reward if o.exception is None else None for o in mine]
    score = task_score(rewards, [o.success for o in mine], max(k, len(mine)))
    delta = score.avg - input_reward if score.avg is not None and input_reward is not None else None
    return ConfigMetrics(config, k, score.scored, len(mine) - score.scored, score.avg, score.passed,
                         delta, failure_counts(mine))


class EvaluationActivities:
    def __init__(self, store: ContentStore):
        self.store = store

    @activity.defn(name="write_pilot_record")
    def write_pilot_record(self, req: PilotRecordInput) -> BlobRef:
        return self.store.put_json({
            "task_id": req.task_id,
            "stage": "pilot",
            "findings": req.findings,
            "trials": [dataclasses.asdict(o) for o in req.outcomes],  # refs: {key, sha256, size}
        })

    @activity.defn(name="write_evaluation_plan")
    def write_evaluation_plan(self, req: PlanInput) -> BlobRef:
        frozen = req.frozen
        plan = {
            "plan_id": f"{frozen.task_id}@{frozen.task_version}/eval",
            "task_id": frozen.task_id,
            "task_version": frozen.task_version,
            "verifier_version": frozen.verifier_version,
            "scoring_profile": frozen.grading.profile,
            "pipeline_ref": frozen.pipeline_ref,
            "configs": [
                {"config_id": c, "kind": (p := policy_from_name(c)).kind, "label": p.label}
                for c in req.configs
            ],
            "k": req.k,
            "metrics": ["avg@k", "pass@k", "reward_delta"],
            "pass_threshold": frozen.grading.pass_threshold,
            "input_reward": frozen.input_reward,
            "created_at": req.created_at,
        }
        return self.store.put_json(build_document("evaluation-plan", plan, "evaluation-plan.json"))

    @activity.defn(name="write_evaluation_report")
    def write_evaluation_report(self, req: ReportInput) -> EvaluationResult:
        frozen = req.frozen
        lines = []
        for o in req.outcomes:
            if o.verifier_version not in (None, frozen.verifier_version):
                # Grades from another verifier are not comparable; mixing them is an error.
                raise ApplicationError(
                    f"trial {o.trial_id} was graded by verifier {o.verifier_version}, "
                    f"the frozen task by {frozen.verifier_version}",
                    type="VerifierVersionMismatch", non_retryable=True,
                )
            policy = policy_from_name(o.policy)
            record = outcome_record(o, frozen, config=o.policy, config_kind=policy.kind,
                                    label=policy.label, stage="evaluation")
            lines.append(canonical_json_bytes(
                build_document("trial-record", record, f"trials.jsonl:{o.trial_id}")))
        trials = self.store.put_bytes(b"\n".join(lines) + b"\n")
        configs = list(dict.fromkeys(o.policy for o in req.outcomes))
        metrics = [config_metrics(c, req.k, req.outcomes, frozen.input_reward) for c in configs]
        report = {
            "task_id": frozen.task_id,
            "task_version": frozen.task_version,
            "verifier_version": frozen.verifier_version,
            "scoring_profile": frozen.grading.profile,
            "profile_params": frozen.grading.params,
            "judge": frozen.grading.judge,
            "plan": ref_dict(req.plan),
            "trials": ref_dict(trials),
            "input_reward": frozen.input_reward,
            "metrics": [m.__dict__ for m in metrics],
            "failures": {kind: sum(m.failures.get(kind, 0) for m in metrics) for kind in FAILURE_KINDS},
        }
        return EvaluationResult(req.plan, trials, self.store.put_json(report), metrics)
