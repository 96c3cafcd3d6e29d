"""03 authoring: build the starting workspace in the sandbox, assemble the task package from
the checked draft, run the reference solution (the reference deliverable, whose renders the
image-metric judge compares against) and grade the untouched input (the input baseline).

A seed without a draft is first authored by the author model (`ModelAuthoring`, a child
`<id>.model`, docs/authoring.md); its accepted round already prepared and graded the package,
which is carried on as this stage's result.
"""

import dataclasses

from temporalio import workflow
from temporalio.common import VersioningBehavior
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from contracts.errors import AUTHORING_NEEDS_INPUT, AUTHORING_REJECTED
    from contracts import queues
    from contracts.payloads.authoring import AuthoringInput
    from contracts.payloads.model_authoring import ModelAuthoringInput
    from contracts.payloads.trials import AuthoringResult
    from workflows.model_authoring import ModelAuthoringWorkflow
    from workflows.task_preparation import prepare_task


@workflow.defn(name="Authoring", versioning_behavior=versioned(VersioningBehavior.PINNED))
class AuthoringWorkflow:
    @workflow.run
    async def run(self, req: AuthoringInput) -> AuthoringResult:
        adm, wid = req.admission, workflow.info().workflow_id
        if adm.draft is not None:
            return await prepare_task(adm.seed_tree, adm.reference_project, adm.start_mode,
                                      adm.draft, adm.run.vl_judge, wid)
        authored = await workflow.execute_child_workflow(
            ModelAuthoringWorkflow.run,
            ModelAuthoringInput(adm.seed_id, adm.seed_tree, adm.reference_project, adm.start_mode,
                                adm.run),
            id=f"{wid}.model", task_queue=queues.CONTROL)
        if authored.outcome == "needs_input":
            raise ApplicationError(
                f"{adm.seed_id}: the materials cannot support a task (record "
                f"{authored.record.key}): " + "; ".join(authored.reasons),
                {"record": authored.record.as_dict(), "missing": authored.reasons},
                type=AUTHORING_NEEDS_INPUT, non_retryable=True)
        if authored.outcome != "authored" or authored.check is None:
            raise ApplicationError(
                f"{adm.seed_id}: the authored draft was rejected (record {authored.record.key}): "
                + "; ".join(authored.reasons),
                {"record": authored.record.as_dict(), "reasons": authored.reasons},
                type=AUTHORING_REJECTED, non_retryable=True)
        assert authored.check.prepared is not None  # the accepted round was prepared
        return dataclasses.replace(authored.check.prepared, authoring_record=authored.record)
