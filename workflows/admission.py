"""02 admission: validate the seed folder (once, for the whole run) and hash its files into the
store."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.admission import AdmissionActivities
    from contracts.payloads import AdmissionInput, AdmissionResult
    from workflows.activity_options import CPU


@workflow.defn(name="Admission")
class AdmissionWorkflow:
    @workflow.run
    async def run(self, req: AdmissionInput) -> AdmissionResult:
        return await workflow.execute_activity_method(AdmissionActivities.admit_seed, req, **CPU)
