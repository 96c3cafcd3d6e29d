"""VL grading of one delivery: evidence renders on the gpu pool (sandboxed, reused by content
hash), then the judge on the rate-limited arkevo-llm pool — a model, or the offline image-metric
judge against the reference deliverable's renders. A delivery with nothing to render fails the
A-gate (VL 0); an answer the judge cannot parse is 'missing' (total null), never 0."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from temporalio import workflow
from temporalio.common import VersioningBehavior

with workflow.unsafe.imports_passed_through():
    from workflows.versioning import versioned  # the behaviour on versioned workers only
    from activities.evidence import EvidenceActivities
    from activities.vl_judge import JudgeActivities
    from contracts.payloads.vl_grading import (RenderEvidenceInput, VLGradingInput, VLJudgeOutcome,
                                               VLJudgeRequest)
    from workflows.activity_options import GPU, LLM


@workflow.defn(name="VLGrading", versioning_behavior=versioned(VersioningBehavior.PINNED))
class VLGradingWorkflow:
    @workflow.run
    async def run(self, req: VLGradingInput) -> VLJudgeOutcome:
        rendered = await workflow.execute_activity_method(
            EvidenceActivities.render_evidence,
            RenderEvidenceInput(req.delivery, req.judge_config), **GPU)
        outcome = await workflow.execute_activity_method(
            JudgeActivities.judge_vl,
            VLJudgeRequest(req.task_id, req.judge_config, rendered.evidence, req.judge,
                           req.reference_evidence, rendered.error),
            **LLM, schedule_to_close_timeout=timedelta(hours=2))
        return dataclasses.replace(outcome, evidence=rendered.evidence)
