"""Evidence renders on the gpu pool: fixed views (and animation frames) of a delivery, through
the worker's content-hash cache, put into the store as a tree for the VL judge."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import cast

from temporalio import activity

from storage.content import ContentStore
from activities.vl_judge import evidence_tree
from contracts.payloads.vl_grading import RenderedEvidence, RenderEvidenceInput
from blender.runner import BlenderJob, DeliveryBrokeBlender
from sandbox.script_run import ScriptIsolation
from verifiers.bpy_procs import RENDER_EVIDENCE
from verifiers import vl
from verifiers.evidence import EvidenceCache, EvidenceRenderer, RenderFailed, resolve_spec, unseen_parts
from observability import telemetry


def evidence_budget_sec() -> float:
    """The grader's time budget for one delivery's evidence (the solver's problem past it)."""
    return float(os.environ.get("ARKEVO_EVIDENCE_BUDGET_SEC", vl.EVIDENCE_BUDGET_SEC))


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
            try:
                evidence = await self.renderer.render_elsewhere(
                    blend, spec, lambda job: self._render_one(job, Path(tmp)))
            except RenderFailed as exc:  # the delivery broke the renderer: nothing to judge
                telemetry.cache_lookup("evidence", hit=False)
                return RenderedEvidence(None, str(exc), False)
        telemetry.cache_lookup("evidence", hit=evidence.cache_hit)
        if evidence.error:
            return RenderedEvidence(None, evidence.error, evidence.cache_hit)
        unseen = unseen_parts(evidence.manifest, req.graded, spec["hide"]) if req.graded else {}
        return RenderedEvidence(evidence_tree(self.store, evidence), None, evidence.cache_hit, unseen)

    async def _render_one(self, render: dict, work: Path) -> None:
        """Render one job in its own Blender process (a fresh sandbox, or unisolated with
        LOCAL): the delivery and the job go in; the render folder comes out into the cache's
        scratch folder `render["out"]`. A crash, or a run past the grader's budget, is the
        delivery's (RenderFailed, named); a sandbox that cannot start raises (infrastructure)."""
        job = BlenderJob(self.sandbox)
        jobs = work / "jobs.json"
        jobs.write_text(json.dumps([{"blend": job.input(Path(render["blend"]), "/workspace/delivery.blend"),
                                     "spec": render["spec"],
                                     "out": job.output(Path(render["out"]), "/workspace/evidence")}]),
                        encoding="utf-8")
        try:
            await job.run(RENDER_EVIDENCE, ["--jobs", job.input(jobs, "/tests/jobs.json")],
                          timeout=evidence_budget_sec(), log=work / "render.log", delivery=True)
        except DeliveryBrokeBlender as exc:  # the grader's budget is the solver's problem: graded 0
            kind = vl.BUDGET_EXCEEDED if exc.timed_out else vl.RENDERER_BROKEN
            raise RenderFailed(f"{kind}: {str(exc).splitlines()[0]}") from None
