"""Lines of trials.jsonl: the trial-record (contracts/schemas) of stage 06 and, for a campaign,
the same with the campaign's fields — the solver config, what the attempt spent, and links to
its evidence."""

from __future__ import annotations

import dataclasses
import json

from contracts.digests import canonical_json_bytes, sha256_hex
from contracts.payloads.campaigns import PlannedTask
from contracts.payloads.common import ref_dict
from contracts.payloads.review import FrozenTask
from contracts.payloads.trials import SolverSpec, TrialOutcome
from contracts.validation import build_document


def outcome_record(outcome: TrialOutcome, frozen: FrozenTask, *, config: str, config_kind: str,
                   label: str, stage: str, trial_id: str | None = None) -> dict:
    """The fields every trial record has, from the graded outcome and its frozen task."""
    return {
        "trial_id": trial_id or outcome.trial_id,
        "task_id": frozen.task_id,
        "task_version": frozen.task_version,
        "config": config,
        "config_kind": config_kind,
        "label": label,
        "stage": stage,
        "attempt": outcome.attempt,
        "verifier_version": outcome.verifier_version or frozen.verifier_version,
        "scoring_profile": frozen.grading.profile,
        "reward": outcome.reward,
        "success": outcome.success,
        "exception": outcome.exception,
        "failure": dataclasses.asdict(outcome.failure) if outcome.failure else None,
        "timed_out": outcome.timed_out,
        "judge": outcome.judge,
        "delivery": ref_dict(outcome.delivery),
        "report": ref_dict(outcome.report),
        "score": ref_dict(outcome.score),
        "renders": ref_dict(outcome.renders),
        "started_at": outcome.started_at,
        "finished_at": outcome.finished_at,
        **({"blender_version": outcome.blender_version} if outcome.blender_version else {}),
        # the schema's cost object is all-or-nothing: absent when unmeasured
        **({"cost": dataclasses.asdict(outcome.cost)} if outcome.cost else {}),
    }


def trial_record(campaign_id: str, trial_id: str, task: PlannedTask, solver: SolverSpec,
                 outcome: TrialOutcome, replaces_sha256: str | None = None,
                 recovery: int | None = None) -> dict:
    record = {
        **outcome_record(outcome, task.frozen, config=solver.config_id, config_kind=solver.kind,
                         label=solver.label, stage="campaign", trial_id=trial_id),
        "campaign_id": campaign_id,
        "publication_id": task.publication_id,
        "agent": solver.agent,
        "model": solver.model,
        "reasoning_effort": solver.reasoning_effort,
        "validated": solver.validated,
        "evidence": ref_dict(outcome.evidence),
        "trajectory": ref_dict(outcome.trajectory),
        "harbor_trial": outcome.harbor_trial,
        "recovery": ({"round": recovery, "replaces_sha256": replaces_sha256}
                     if recovery is not None else None),
    }
    return build_document("trial-record", record, f"trials.jsonl:{trial_id}")


def record_bytes(record: dict) -> bytes:
    return canonical_json_bytes(record)


def record_sha256(record: dict) -> str:
    return sha256_hex(record_bytes(record))


def jsonl(records: list[dict]) -> bytes:
    return b"".join(record_bytes(r) + b"\n" for r in records)


def read_jsonl(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def failure_of(record: dict) -> dict | None:
    """{kind, type, message} of a record that did not end cleanly: its failure, or an exception
    recorded without one (always infrastructure); None for a clean attempt."""
    if record.get("failure"):
        return record["failure"]
    exception = record.get("exception")
    if exception is not None:
        return {"kind": "infra", "type": exception.get("type") or "Exception",
                "message": exception.get("message")}
    return None


def is_infra(record: dict) -> bool:
    failure = failure_of(record)
    return failure is not None and failure["kind"] == "infra"
