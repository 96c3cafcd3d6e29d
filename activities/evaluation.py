"""Stage 06 bookkeeping: the pre-registered plan, trials.jsonl and avg@k / pass@k.

Infra exceptions are recorded with `reward: null` and counted apart; they never enter a mean.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.store import ContentStore
from activities.policies import policy_from_name
from contracts.digests import canonical_json_bytes
from contracts.payloads import BlobRef, ConfigMetrics, EvaluationResult, FrozenTask, TrialOutcome
from contracts.validation import validate_document


@dataclass
class PlanInput:
    frozen: FrozenTask
    configs: list[str]
    k: int
    pass_threshold: float
    scoring_profile: dict
    created_at: str


@dataclass
class PilotRecordInput:
    task_id: str
    outcomes: list[TrialOutcome]
    findings: list[str]


@dataclass
class ReportInput:
    frozen: FrozenTask
    plan: BlobRef
    k: int
    scoring_profile: dict
    outcomes: list[TrialOutcome]


def config_metrics(config: str, k: int, outcomes: list[TrialOutcome],
                   input_reward: float | None) -> ConfigMetrics:
    """avg@k: mean reward of the scored attempts; pass@k: 1 if any attempt succeeded."""
    mine = [o for o in outcomes if o.policy == config]
    scored = [o for o in mine if o.exception is None and o.reward is not None]
    avg = sum(o.reward for o in scored) / len(scored) if scored else None
    passed = float(any(o.success for o in scored)) if scored else None
    delta = avg - input_reward if avg is not None and input_reward is not None else None
    return ConfigMetrics(config, k, len(scored), len(mine) - len(scored), avg, passed, delta)


def _ref(ref: BlobRef | None) -> dict | None:
    return None if ref is None else {"key": ref.key, "sha256": ref.sha256, "size": ref.size}


class EvaluationActivities:
    def __init__(self, store: ContentStore):
        self.store = store

    @activity.defn(name="write_pilot_record")
    def write_pilot_record(self, req: PilotRecordInput) -> BlobRef:
        return self.store.put_json({
            "task_id": req.task_id,
            "stage": "pilot",
            "findings": req.findings,
            "trials": [{**o.__dict__, "delivery": _ref(o.delivery), "report": _ref(o.report)}
                       for o in req.outcomes],
        })

    @activity.defn(name="write_evaluation_plan")
    def write_evaluation_plan(self, req: PlanInput) -> BlobRef:
        frozen = self.store.get_json(req.frozen.frozen_record)
        plan = {
            "plan_id": f"{req.frozen.task_id}@{req.frozen.task_version}/eval",
            "task_id": req.frozen.task_id,
            "task_version": req.frozen.task_version,
            "verifier_version": req.frozen.verifier_version,
            "scoring_profile": req.scoring_profile,
            "pipeline_ref": frozen["pipeline_ref"],
            "configs": [
                {"config_id": c, "kind": (p := policy_from_name(c)).kind, "label": p.label}
                for c in req.configs
            ],
            "k": req.k,
            "metrics": ["avg@k", "pass@k", "reward_delta"],
            "pass_threshold": req.pass_threshold,
            "input_reward": req.frozen.input_reward,
            "created_at": req.created_at,
        }
        validate_document("evaluation-plan", plan, "evaluation-plan.json")
        return self.store.put_json(plan)

    @activity.defn(name="write_evaluation_report")
    def write_evaluation_report(self, req: ReportInput) -> EvaluationResult:
        lines = []
        for o in req.outcomes:
            if o.verifier_version not in (None, req.frozen.verifier_version):
                # Grades from another verifier are not comparable; mixing them is an error.
                raise ApplicationError(
                    f"trial {o.trial_id} was graded by verifier {o.verifier_version}, "
                    f"the frozen task by {req.frozen.verifier_version}",
                    type="VerifierVersionMismatch", non_retryable=True,
                )
            policy = policy_from_name(o.policy)
            record = {
                "trial_id": o.trial_id,
                "task_id": req.frozen.task_id,
                "task_version": req.frozen.task_version,
                "config": o.policy,
                "config_kind": policy.kind,
                "label": policy.label,
                "stage": "evaluation",
                "attempt": o.attempt,
                "verifier_version": o.verifier_version or req.frozen.verifier_version,
                "scoring_profile": req.scoring_profile,
                "reward": o.reward,
                "success": o.success,
                "exception": o.exception,
                "timed_out": o.timed_out,
                "delivery": _ref(o.delivery),
                "report": _ref(o.report),
                "started_at": o.started_at,
                "finished_at": o.finished_at,
            }
            validate_document("trial-record", record, f"trials.jsonl:{o.trial_id}")
            lines.append(canonical_json_bytes(record))
        trials = self.store.put_bytes(b"\n".join(lines) + b"\n")
        configs = list(dict.fromkeys(o.policy for o in req.outcomes))
        metrics = [config_metrics(c, req.k, req.outcomes, req.frozen.input_reward) for c in configs]
        report = {
            "task_id": req.frozen.task_id,
            "task_version": req.frozen.task_version,
            "verifier_version": req.frozen.verifier_version,
            "scoring_profile": req.scoring_profile,
            "plan": _ref(req.plan),
            "trials": _ref(trials),
            "input_reward": req.frozen.input_reward,
            "metrics": [m.__dict__ for m in metrics],
        }
        return EvaluationResult(req.plan, trials, self.store.put_json(report), metrics)
