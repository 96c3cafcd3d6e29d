"""Evidence renders on the gpu pool: fixed views (and animation frames) of a delivery, through
the worker's content-hash cache, put into the store as a tree for the VL judge."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import cast

from temporalio import activity

from storage.content import ContentStore
from activities.vl_judge import evidence_tree
from contracts.payloads.vl_grading import RenderedEvidence, RenderEvidenceInput
from blender.runner import BlenderJob, DeliveryBrokeBlender
from sandbox.script_run import LOCAL, ScriptIsolation
from verifiers.bpy_procs import RENDER_EVIDENCE
from verifiers.evidence import EvidenceCache, EvidenceRenderer, RenderFailed, resolve_spec, unseen_parts
from observability import telemetry
from observability.heartbeats import in_thread


class EvidenceActivities:
    def __init__(self, store: ContentStore, cache_root: Path, sandbox: ScriptIsolation = None):
        self.store = store
        self.renderer = EvidenceRenderer(EvidenceCache(cache_root), processes=1, sandbox=sandbox)
        self.sandbox = sandbox  # a delivery is solver output: Blender opens it sandboxed

    @activity.defn(name="render_evidence")
    async def render_evidence(self, req: RenderEvidenceInput) -> RenderedEvidence:
        if req.delivery is None:
            return RenderedEvidence(None, "nothing was delivered", False)
        spec = resolve_spec(cast(dict, self.store.get_json(req.judge_config)).get("evidence"))
        with tempfile.TemporaryDirectory(prefix="arkevo-evidence-") as tmp:
            blend = self.store.fetch_to(req.delivery, Path(tmp) / "delivery.blend")
            if self.sandbox == LOCAL:
                evidence = await self._render_unisolated(blend, spec)
            else:
                try:
                    evidence = await self.renderer.render_elsewhere(
                        blend, spec, lambda job: self._render_in_sandbox(job, Path(tmp)))
                except RenderFailed as exc:  # the delivery broke the renderer: nothing to judge
                    telemetry.cache_lookup("evidence", hit=False)
                    return RenderedEvidence(None, str(exc), False)
        telemetry.cache_lookup("evidence", hit=evidence.cache_hit)
        if evidence.error:
            return RenderedEvidence(None, evidence.error, evidence.cache_hit)
        unseen = unseen_parts(evidence.manifest, req.graded, spec["hide"]) if req.graded else {}
        return RenderedEvidence(evidence_tree(self.store, evidence), None, evidence.cache_hit, unseen)

    async def _render_unisolated(self, blend: Path, spec: dict):
        return await in_thread(self.renderer.render, blend, spec, what="rendering evidence")

    async def _render_in_sandbox(self, render: dict, work: Path) -> None:
        """Render one job in a fresh sandbox: the delivery and the job go in; the render folder
        comes out into the cache's scratch folder `render["out"]`. A crash or hang is the
        delivery's (RenderFailed); a sandbox that cannot start raises (infrastructure)."""
        assert self.sandbox != LOCAL  # render_evidence renders LOCAL unisolated
        job = BlenderJob(self.sandbox)
        jobs = work / "jobs.json"
        jobs.write_text(json.dumps([{"blend": job.input(Path(render["blend"]), "/workspace/delivery.blend"),
                                     "spec": render["spec"],
                                     "out": job.output(Path(render["out"]), "/workspace/evidence")}]),
                        encoding="utf-8")
        try:
            await job.run(RENDER_EVIDENCE, ["--jobs", job.input(jobs, "/tests/jobs.json")],
                          timeout=self.renderer.timeout, log=work / "render.log", delivery=True)
        except DeliveryBrokeBlender as exc:
            raise RenderFailed(f"the evidence renderer failed: {exc}") from None
