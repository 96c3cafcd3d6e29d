"""04 trial solves: a pilot of solver configurations tries the task; what looks wrong
(verifier disagreement, trivial task) becomes a finding for review."""

import asyncio

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.evaluation import EvaluationActivities
    from contracts.payloads import (PilotRecordInput, TrialRequest, TrialSolvesInput,
                                    TrialSolvesResult)
    from workflows.activity_options import CPU
    from workflows.trial_calls import grade_trial_reporting


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


@workflow.defn(name="TrialSolves", versioning_behavior=versioned(VersioningBehavior.PINNED))
class TrialSolvesWorkflow:
    @workflow.run
    async def run(self, req: TrialSolvesInput) -> TrialSolvesResult:
        wid, auth = workflow.info().workflow_id, req.authoring
        outcomes = await asyncio.gather(*(
            grade_trial_reporting(
                TrialRequest(auth.task_package, auth.identity, p, f"{wid}/{p}", "pilot"), auth.grading)
            for p in req.policies
        ))
        findings = pilot_findings(outcomes)
        record = await workflow.execute_activity_method(
            EvaluationActivities.write_pilot_record,
            PilotRecordInput(auth.task_id, list(outcomes), findings), **CPU)
        return TrialSolvesResult(list(outcomes), findings, record)
