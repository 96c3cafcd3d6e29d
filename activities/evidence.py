"""Evidence renders on the gpu pool: fixed views (and animation frames) of a delivery, through
the worker's content-hash cache, put into the store as a tree for the VL judge."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity

from activities.blender.runner import HEARTBEAT_SECONDS
from activities.store import ContentStore
from activities.vl_judge import evidence_tree
from contracts.payloads import BlobRef
from verifiers.evidence import EvidenceCache, EvidenceRenderer, resolve_spec


@dataclass
class RenderEvidenceInput:
    delivery: BlobRef | None  # None: nothing was delivered
    judge_config: BlobRef  # the task's judge.json (its "evidence" section is the view spec)


@dataclass
class RenderedEvidence:
    evidence: BlobRef | None
    error: str | None  # why there is nothing to judge (no delivery, unreadable .blend)
    cache_hit: bool


class EvidenceActivities:
    def __init__(self, store: ContentStore, cache_root: Path):
        self.store = store
        self.renderer = EvidenceRenderer(EvidenceCache(cache_root), processes=1)

    @activity.defn(name="render_evidence")
    async def render_evidence(self, req: RenderEvidenceInput) -> RenderedEvidence:
        if req.delivery is None:
            return RenderedEvidence(None, "nothing was delivered", False)
        spec = resolve_spec(self.store.get_json(req.judge_config).get("evidence"))
        with tempfile.TemporaryDirectory(prefix="arkevo-evidence-") as tmp:
            blend = self.store.fetch_to(req.delivery, Path(tmp) / "delivery.blend")
            render = asyncio.create_task(asyncio.to_thread(self.renderer.render, blend, spec))
            while not render.done():  # Blender renders off the event loop; keep heartbeating
                await asyncio.wait({render}, timeout=HEARTBEAT_SECONDS)
                if activity.in_activity():
                    activity.heartbeat("rendering evidence")
            evidence = render.result()
        if evidence.error:
            return RenderedEvidence(None, evidence.error, evidence.cache_hit)
        return RenderedEvidence(evidence_tree(self.store, evidence), None, evidence.cache_hit)
