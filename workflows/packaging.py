"""07 packaging: an immutable publication with per-file sha256 and a handoff event."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.packaging import PackagingActivities
    from contracts.payloads import PublicationResult, PublishInput
    from workflows.activity_options import CPU


@workflow.defn(name="Packaging")
class PackagingWorkflow:
    @workflow.run
    async def run(self, req: PublishInput) -> PublicationResult:
        return await workflow.execute_activity_method(PackagingActivities.publish_task, req, **CPU)
