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
from sandbox.script_run import LOCAL, ScriptIsolation, run_sandboxed_script
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

    async def _render_in_sandbox(self, job: dict, work: Path) -> None:
        """Render one job in a fresh sandbox: the delivery and the job go in; the render folder
        comes out into the cache's scratch folder `job["out"]`. A crash or hang is the
        delivery's (RenderFailed); a sandbox that cannot start raises (infrastructure)."""
        assert self.sandbox != LOCAL  # render_evidence renders LOCAL unisolated
        jobs = work / "jobs.json"
        jobs.write_text(json.dumps([{"blend": "/workspace/delivery.blend", "spec": job["spec"],
                                     "out": "/workspace/evidence"}]), encoding="utf-8")
        run = await run_sandboxed_script(
            RENDER_EVIDENCE, ["--jobs", "/tests/jobs.json"],
            inputs={"/workspace/delivery.blend": Path(job["blend"]), "/tests/jobs.json": jobs},
            outputs={"/workspace/evidence": Path(job["out"])},
            timeout=self.renderer.timeout, log=work / "render.log", settings=self.sandbox)
        if not run.ok:
            what = (f"was killed after {run.seconds:.0f}s" if run.timed_out
                    else f"exited with {run.returncode}")
            raise RenderFailed(f"the evidence renderer {what} on this delivery; "
                               f"log tail:\n{run.log_tail[-1000:]}")
