"""07 packaging: the export privacy checkpoint, then an immutable publication with per-file
sha256 and a handoff event.

Files no scanner could read (`coverage_pending`, docs/privacy.md) hold the publication until a
person settles them with the `review_privacy_coverage` signal; meanwhile the run shows
`ArkevoStage = "07-packaging:coverage-pending"` in the Web UI and its `privacy_review` query
lists the files:

    temporal workflow signal --workflow-id <id>.07-packaging --name review_privacy_coverage \\
        --input '{"approved": true, "reviewer": "ana", "note": "scan.bin is a colour LUT"}'

A rejection fails the stage with the non-retryable `PrivacyCoverageRejected`.
"""

import dataclasses

from temporalio import workflow
from temporalio.common import VersioningBehavior
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from contracts.errors import PRIVACY_COVERAGE_REJECTED
    from activities.packaging import PackagingActivities
    from contracts.payloads.admission import PrivacyPending
    from contracts.payloads.packaging import PrivacyReview, PublicationResult, PublishInput
    from workflows.activity_options import CPU
    from workflows.search_attributes import STAGE_KEY

PENDING_STAGE = "07-packaging:coverage-pending"


@workflow.defn(name="Packaging", versioning_behavior=versioned(VersioningBehavior.AUTO_UPGRADE))
class PackagingWorkflow:
    def __init__(self) -> None:
        self._pending: list[PrivacyPending] = []
        self._review: PrivacyReview | None = None

    @workflow.signal(name="review_privacy_coverage")
    def review_privacy_coverage(self, review: PrivacyReview) -> None:
        if self._review is None and self._pending:  # the first decision stands
            self._review = review

    @workflow.query(name="privacy_review")
    def privacy_review(self) -> dict:
        return {"pending": [p.__dict__ for p in self._pending],
                "review": None if self._review is None else dataclasses.asdict(self._review)}

    @workflow.run
    async def run(self, req: PublishInput) -> PublicationResult:
        if not workflow.patched("export-privacy-checkpoint"):
            # Runs started before the export checkpoint existed publish as they began.
            return await workflow.execute_activity_method(PackagingActivities.publish_task, req, **CPU)
        scan = await workflow.execute_activity_method(PackagingActivities.scan_export, req, **CPU)
        if scan.pending:
            self._pending = scan.pending
            workflow.upsert_search_attributes([STAGE_KEY.value_set(PENDING_STAGE)])
            workflow.logger.info("coverage pending for %d file(s); waiting for review_privacy_coverage",
                                 len(scan.pending))
            await workflow.wait_condition(lambda: self._review is not None)
            assert self._review is not None  # the condition just waited for
            review = dataclasses.replace(self._review, files=list(scan.pending),
                                         reviewed_at=workflow.now().isoformat(timespec="seconds"))
            if not review.approved:
                raise ApplicationError(
                    f"coverage_pending rejected by {review.reviewer}: {review.note or 'no note'} "
                    f"({', '.join(p.file for p in scan.pending)})",
                    type=PRIVACY_COVERAGE_REJECTED, non_retryable=True)
            req = dataclasses.replace(req, privacy_review=review)
            workflow.upsert_search_attributes([STAGE_KEY.value_set("07-packaging")])
        return await workflow.execute_activity_method(PackagingActivities.publish_task, req, **CPU)
