"""04 trial solves: a pilot of solver configurations tries the task; what looks wrong
(verifier disagreement, trivial task) becomes a finding for review."""

import asyncio
from dataclasses import dataclass

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.evaluation import EvaluationActivities, PilotRecordInput
    from contracts.payloads import AuthoringResult, TrialRequest, TrialSolvesResult
    from workflows.activity_options import CPU
    from workflows.trial_calls import run_trial_reporting


@dataclass
class TrialSolvesInput:
    authoring: AuthoringResult
    policies: list[str]


def pilot_findings(outcomes) -> list[str]:
    findings = []
    for o in outcomes:
        if o.exception:
            findings.append(f"{o.policy}: infrastructure failure ({o.exception['type']})")
        elif o.policy == "oracle" and not o.success:
            findings.append(f"verifier disagreement: reference solution scored {o.reward}")
        elif o.policy == "nop" and o.success:
            findings.append(f"trivial task: the untouched input passes ({o.reward})")
    return findings


@workflow.defn(name="TrialSolves")
class TrialSolvesWorkflow:
    @workflow.run
    async def run(self, req: TrialSolvesInput) -> TrialSolvesResult:
        wid = workflow.info().workflow_id
        outcomes = await asyncio.gather(*(
            run_trial_reporting(TrialRequest(req.authoring.task_package, p, f"{wid}/{p}", "pilot"))
            for p in req.policies
        ))
        findings = pilot_findings(outcomes)
        record = await workflow.execute_activity_method(
            EvaluationActivities.write_pilot_record,
            PilotRecordInput(req.authoring.task_id, list(outcomes), findings), **CPU)
        return TrialSolvesResult(list(outcomes), findings, record)
