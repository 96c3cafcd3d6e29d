"""VL judge activities, meant for the rate-limited ``arkevo-llm`` queue.

API keys live only on the llm workers: the judge client is built here from injected settings,
never inside a sandbox or a Blender process.  Every model request takes a slot from the llm
workers' shared budget (`modelapi.rate_budget.TemporalBudget`, default 4 requests / minute
across every llm worker process).

Evidence travels by reference: the request names a store tree of the delivery's renders (and
of the reference deliverable's renders for the offline ``image-metric`` judge); the VL result
goes back to the store and the outcome carries its reference plus the few fields a workflow
branches on.

Failure semantics: an unparsable model answer is a *missing* answer (the result says why; the
total becomes null) -- not an error.  A busy endpoint (429 / 5xx / transport) raises a
retryable ``ModelEndpointUnavailable`` application error whose ``next_retry_delay`` is the
server's Retry-After: Temporal's retry of this activity is the request's only retry, it asks
only the questions not yet answered (answers are kept in the store under ``vl-answer/<key>``),
and a failure is never recorded as a score.  A refused request (other 4xx) raises a
non-retryable ``ModelEndpointError``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

from temporalio import activity
from temporalio.exceptions import ApplicationError

from contracts.errors import model_endpoint_error
from storage.content import ContentStore
from contracts.digests import canonical_json_bytes, sha256_hex
from contracts.payloads.common import BlobRef
from contracts.payloads.vl_grading import VLJudgeOutcome, VLJudgeRequest
from modelapi.client import ModelEndpointError, ModelEndpointUnavailable
from modelapi.rate_budget import Budget, LocalBudget
from modelapi.retry import activity_error
from verifiers.evidence import Evidence
from verifiers.vl import Answer, VLResult, image_metric_judge, load_judge_config, no_evidence_result, image_metric_judge_id
from verifiers.vl_model_judge import JudgeSettings, OpenAIVisionJudge
from observability import telemetry
from observability.heartbeats import heartbeating

HEARTBEAT_SECONDS = 10.0


def evidence_tree(store: ContentStore, evidence: Evidence) -> BlobRef:
    """Put a rendered evidence folder (files + manifest.json) into the store as a tree."""
    names = sorted(evidence.files) + ["manifest.json"]
    return store.put_tree(evidence.folder, names)


class StoredAnswers:
    """The judge's answers kept in the store by name: an activity retried after a busy endpoint
    asks only the questions still unanswered."""

    def __init__(self, store: ContentStore):
        self.store = store

    def get(self, key: str) -> Answer | None:
        ref = self.store.get_name(f"vl-answer/{key}")
        return None if ref is None else Answer(**cast(dict, self.store.get_json(ref)))

    def put(self, key: str, answer: Answer) -> None:
        self.store.set_name(f"vl-answer/{key}", self.store.put_json(dataclasses.asdict(answer)))


class JudgeActivities:
    """Dependencies are injected: the store, the request budget (on llm workers the shared
    `TemporalBudget`), and how to build the model judge (``judge_factory(budget, answers)``;
    default: ``OpenAIVisionJudge`` from ``settings`` or the environment)."""

    def __init__(self, store: ContentStore, budget: Budget | None = None, *,
                 settings: JudgeSettings | None = None,
                 judge_factory: Callable[..., OpenAIVisionJudge] | None = None):
        self.store = store
        self.budget = budget or LocalBudget()
        self._settings = settings
        self._factory = judge_factory

    def _client(self) -> OpenAIVisionJudge:
        answers = StoredAnswers(self.store)
        if self._factory is not None:
            return self._factory(self.budget, answers)
        return OpenAIVisionJudge(self._settings or JudgeSettings.from_env(), self.budget, answers=answers)

    @activity.defn(name="judge_vl")
    async def judge_vl(self, req: VLJudgeRequest) -> VLJudgeOutcome:
        if req.judge not in ("image-metric", "model"):
            raise ApplicationError(f"unknown judge {req.judge!r}", type="InvalidJudge", non_retryable=True)
        client = self._configured_client() if req.judge == "model" else None
        judge_id = client.judge_id["id"] if client else image_metric_judge_id()["id"]
        # The same evidence, reference and questions before the same judge: reuse its answer.
        cache_name = "vl-judgement/" + sha256_hex(canonical_json_bytes({
            "judge": judge_id, "task_id": req.task_id, "config": req.judge_config.sha256,
            "evidence": req.evidence.sha256 if req.evidence else None,
            "reference": req.reference_evidence.sha256 if req.reference_evidence else None,
            "evidence_error": req.evidence_error}))
        if (hit := self.store.get_name(cache_name)) is not None:
            telemetry.cache_lookup("vl_judgement", hit=True)
            telemetry.judge_call(req.judge, "cached")
            return self._outcome(hit, cast(dict, self.store.get_json(hit)))
        telemetry.cache_lookup("vl_judgement", hit=False)
        config = load_judge_config(cast(dict, self.store.get_json(req.judge_config)))
        with tempfile.TemporaryDirectory(prefix="arkevo-vl-") as tmp:
            folder = Path(tmp) / "delivery"
            folder.mkdir()
            if req.evidence is not None:
                self.store.materialize_tree(req.evidence, folder)
            if client is None:
                result = await asyncio.to_thread(self._image_metric, config, req, folder, Path(tmp))
            else:
                result = await self._model(client, config, req, folder)
        telemetry.judge_call(req.judge, "missing" if result.missing_reason else "scored")
        doc = {"task_id": req.task_id, **result.to_dict()}
        ref = self.store.put_json(doc)
        if client is None or result.missing_reason is None:  # a model's missing answer may be transient
            self.store.set_name(cache_name, ref)
        return self._outcome(ref, doc)

    @staticmethod
    def _outcome(ref: BlobRef, doc: dict) -> VLJudgeOutcome:
        return VLJudgeOutcome(ref, doc["judge"]["id"], doc.get("vl_score"), doc.get("missing_reason"),
                              bool(doc.get("gated")))

    def _configured_client(self) -> OpenAIVisionJudge:
        try:
            return self._client()
        except RuntimeError as exc:  # no endpoint on this llm worker: a deployment mistake
            raise ApplicationError(f"model judge asked for, but {exc}", type="JudgeNotConfigured",
                                   non_retryable=True) from exc

    def _image_metric(self, config, req: VLJudgeRequest, folder: Path, tmp: Path) -> VLResult:
        if req.evidence_error:
            return no_evidence_result(config, image_metric_judge_id(), req.evidence_error)
        if req.reference_evidence is None:
            raise ApplicationError("image-metric needs reference_evidence", type="InvalidJudge", non_retryable=True)
        reference = self.store.materialize_tree(req.reference_evidence, tmp / "reference")
        frames = sorted(p.name for p in folder.glob("frame_*.png")) or sorted(p.name for p in reference.glob("frame_*.png"))
        return image_metric_judge(config, folder, reference, frames)

    async def _model(self, client: OpenAIVisionJudge, config, req: VLJudgeRequest, folder: Path) -> VLResult:
        try:
            async with heartbeating("judging", every=HEARTBEAT_SECONDS):  # budget waits can be long
                return await client.judge(config, folder, req.evidence_error)
        except ModelEndpointUnavailable as exc:
            telemetry.judge_call("model", "unavailable")
            raise activity_error(exc, "VL judge") from None
        except ModelEndpointError as exc:
            telemetry.judge_call("model", "refused")
            raise model_endpoint_error(f"VL judge: {exc}") from None
