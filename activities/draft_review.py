"""Stage 03, final review: a separate reviewer model judges the authored draft in a fresh
context (drafting/final_review.py), one call, no tools, in the llm worker."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from contracts.errors import REVIEWER_REPLY_INVALID
from activities.model_calls import ReplyInvalid, ask_json, model_session, store_transcript
from storage.content import ContentStore
from contracts.payloads.model_authoring import FinalReviewInput, FinalReviewVerdict
from drafting.final_review import parse_verdict, review_facts, review_messages
from modelapi.rate_budget import Budget


class DraftReviewActivities:
    """`budget`: the llm workers' shared request budget (modelapi/rate_budget.py)."""

    def __init__(self, store: ContentStore, budget: Budget | None = None):
        self.store = store
        self.budget = budget

    @activity.defn(name="final_review")
    async def final_review(self, req: FinalReviewInput) -> FinalReviewVerdict:
        async with model_session("reviewer", budget=self.budget) as client:
            with tempfile.TemporaryDirectory(prefix="arkevo-review-") as tmp:
                seed_dir = self.store.materialize_tree(req.seed_tree, Path(tmp))
                report = cast(dict, self.store.get_json(req.calibration_report))
                facts = review_facts(seed_dir, report)
                messages = review_messages(seed_dir, report, facts)
            try:
                (verdict, reasons, checks), messages = await ask_json(client, messages, parse_verdict)
            except ReplyInvalid as exc:
                transcript = store_transcript(self.store, client, exc.messages,
                                              seed_id=req.seed_id, round=req.round)
                raise ApplicationError(
                    f"{req.seed_id} round {req.round}: the reviewer's verdict is unreadable after "
                    f"one corrective follow-up: {exc}", {"transcript": transcript.as_dict()},
                    type=REVIEWER_REPLY_INVALID, non_retryable=True) from None
            transcript = store_transcript(self.store, client, messages,
                                          seed_id=req.seed_id, round=req.round)
            reasons, checks = client.redactor.value([reasons, checks])  # they enter the history
            return FinalReviewVerdict(verdict, reasons, checks, facts, transcript, client.usage)
