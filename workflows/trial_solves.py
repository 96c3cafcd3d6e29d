"""04 trial solves: a pilot of solver configurations tries the task; what looks wrong
(verifier disagreement, trivial task) becomes a finding for review.

The scripted `oracle` and `nop` were already graded on this very package in stage 03 (the
reference deliverable and the input baseline, same trial path and grading): a pilot that names
them carries those outcomes instead of running the same scripts again. Every other policy (a
model, a registry config, a script) is a new trial."""

import asyncio

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.evaluation import EvaluationActivities
    from contracts.payloads.trials import PilotRecordInput, TrialRequest, TrialSolvesInput, TrialSolvesResult
    from workflows.activity_options import CPU
    from workflows.stage_progress import StageProgress
    from workflows.trial_calls import grade_trial_reporting


# Policies whose stage-03 outcome on the same package is the pilot's outcome.
GRADED_IN_AUTHORING = {"oracle": "reference_trial", "nop": "input_trial"}


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
        carried = GRADED_IN_AUTHORING if workflow.patched("pilot-carries-stage-03-trials") else {}

        async def pilot(policy: str):
            if policy in carried:
                return getattr(auth, carried[policy])
            return await grade_trial_reporting(
                TrialRequest(auth.task_package, auth.identity, policy, f"{wid}/{policy}", "pilot"),
                auth.grading)

        progress = StageProgress("04-trial-solves")
        await progress.expect({f"trials {p}": 1 for p in req.policies})
        outcomes = await asyncio.gather(*(progress.count(f"trials {p}", pilot(p)) for p in req.policies))
        findings = pilot_findings(outcomes)
        record = await workflow.execute_activity_method(
            EvaluationActivities.write_pilot_record,
            PilotRecordInput(auth.task_id, list(outcomes), findings), **CPU)
        return TrialSolvesResult(list(outcomes), findings, record)
