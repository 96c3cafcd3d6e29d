"""VL grading of one delivery: evidence renders on the gpu pool, then the judge on the
rate-limited arkevo-llm pool (model) — or the offline image-metric judge against the reference
deliverable's renders. A delivery with nothing to render fails the A-gate (VL 0); an answer
the judge cannot parse is 'missing' (total null), never 0."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.evidence import EvidenceActivities, RenderEvidenceInput
    from activities.vl_judge import JudgeActivities, VLJudgeOutcome, VLJudgeRequest
    from contracts.payloads import BlobRef
    from workflows.activity_options import GPU, LLM


@dataclass
class VLGradingInput:
    task_id: str
    judge_config: BlobRef
    delivery: BlobRef | None
    judge: str = "model"  # model | image-metric
    reference_delivery: BlobRef | None = None  # image-metric compares against its renders


@workflow.defn(name="VLGrading")
class VLGradingWorkflow:
    @workflow.run
    async def run(self, req: VLGradingInput) -> VLJudgeOutcome:
        rendered = await workflow.execute_activity_method(
            EvidenceActivities.render_evidence,
            RenderEvidenceInput(req.delivery, req.judge_config), **GPU)
        reference = None
        if req.judge == "image-metric" and req.reference_delivery is not None:
            reference = (await workflow.execute_activity_method(
                EvidenceActivities.render_evidence,
                RenderEvidenceInput(req.reference_delivery, req.judge_config), **GPU)).evidence
        return await workflow.execute_activity_method(
            JudgeActivities.judge_vl,
            VLJudgeRequest(req.task_id, req.judge_config, rendered.evidence, req.judge, reference,
                           rendered.error),
            **LLM, schedule_to_close_timeout=timedelta(hours=2))
