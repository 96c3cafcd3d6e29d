"""02 admission: validate the seed folder (once, for the whole run) and hash its files into the
store."""

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.admission import AdmissionActivities
    from contracts.payloads.admission import AdmissionInput, AdmissionResult
    from workflows.activity_options import CPU


@workflow.defn(name="Admission", versioning_behavior=versioned(VersioningBehavior.PINNED))
class AdmissionWorkflow:
    @workflow.run
    async def run(self, req: AdmissionInput) -> AdmissionResult:
        return await workflow.execute_activity_method(AdmissionActivities.admit_seed, req, **CPU)
