"""Score deliveries of one task: rule probe + evidence + VL judge + scoring profile.

The worker-side (or author-side) composition of the verifier parts; used by the one-delivery
CLI (``verifiers.score_delivery``) and by calibration (``verifiers.calibration``)::

    bundle = TaskBundle.load(Path("seeds/table-model/draft"))
    scorer = Scorer(bundle, get_profile("blender-70-30"), cache=EvidenceCache(root), judge="image-metric")
    record = scorer.score(Path("result.blend"))

The *reference deliverable* the image-metric judge compares against is the task's reference
solution (``judge.json`` ``reference.solution``, default ``solution/solve.py``) applied to the
starting workspace built from the seed's reference project.  Its renders are cached under a
key of everything that produces them (seed materials, solution, build/apply scripts, bpy,
view spec, renderer version) -- its .blend bytes differ on every rebuild, so they cannot key it.

Every Blender run on the seed's or draft's code (build script, solution, task probes) and on
the deliveries goes through ``bpy_procs`` with the scorer's ``sandbox`` choice: the trial
sandbox unless ``LOCAL`` or ``ARKEVO_TRIAL_BACKEND=local``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import tempfile
from dataclasses import dataclass, field
from importlib.metadata import version as pkg_version
from pathlib import Path
from typing import cast

from contracts.digests import canonical_json_bytes, sha256_file
from sandbox.script_run import ScriptIsolation
from verifiers import bpy_procs
from verifiers.evidence import (
    Evidence, EvidenceCache, EvidenceRenderer, renderer_version, resolve_spec,
)
from verifiers.profiles import ScoringProfile, score_record, task_with_profile
from verifiers.version import probe_code_digests, scoring_verifier_version
from verifiers.vl import (
    JudgeConfig, VLResult, image_metric_judge, image_metric_judge_id, load_judge_config, no_evidence_result,
)

JUDGES = ("image-metric", "model")


@dataclass
class TaskBundle:
    """A task draft folder (``<seed>/draft``): task, rubric, judge questions, seed facts."""

    draft: Path
    task: dict
    rubric: dict
    judge: JudgeConfig | None
    seed_dir: Path
    seed: dict

    @classmethod
    def load(cls, draft: Path) -> "TaskBundle":
        draft = Path(draft).resolve()
        task = json.loads((draft / "task.json").read_text(encoding="utf-8"))
        rubric = json.loads((draft / "rubric.json").read_text(encoding="utf-8"))
        judge = load_judge_config(draft / "judge.json") if (draft / "judge.json").is_file() else None
        seed_json = draft.parent / "seed.json"
        seed = json.loads(seed_json.read_text(encoding="utf-8")) if seed_json.is_file() else {}
        return cls(draft, task, rubric, judge, draft.parent, seed)

    @property
    def task_path(self) -> Path:
        return self.draft / "task.json"

    @property
    def rubric_path(self) -> Path:
        return self.draft / "rubric.json"

    @property
    def task_probes(self) -> Path | None:
        p = self.draft / "task_probes.py"
        return p if p.is_file() else None

    @property
    def start_scene(self) -> Path | None:
        """The start scene's snapshot (``start_scene.json``, written by ``verifiers.start_scene``)."""
        p = self.draft / "start_scene.json"
        return p if p.is_file() else None

    @property
    def start_mode(self) -> str:
        return self.seed.get("start_mode") or self.task["start_mode"]

    @property
    def reference_project(self) -> Path:
        ref = next((m["path"] for m in self.seed.get("materials", []) if m["role"] == "reference_project"), None)
        if ref is None:
            raise FileNotFoundError(f"{self.seed_dir}: seed.json names no reference_project")
        return self.seed_dir / ref

    @property
    def solution(self) -> Path:
        rel = (self.judge.reference if self.judge else {}).get("solution", "solution/solve.py")
        return self.draft / rel

    def build_start(self, folder: Path, sandbox: ScriptIsolation = None) -> Path:
        """Build ``inputs/start.blend`` (and the private reference scene) into ``folder``."""
        start, reference = folder / "inputs" / "start.blend", folder / "private" / "reference.blend"
        bpy_procs.build_workspace(self.reference_project, self.start_mode, start, reference,
                                  seed_dir=self.seed_dir, sandbox=sandbox)
        return start


@dataclass
class ScoreOptions:
    judge: str | None = "image-metric"  # image-metric | model | None (no VL even if weighted)
    engine: str | None = None
    resolution: tuple[int, int] | None = None
    render: bool = True  # render evidence even when the profile does not weight VL
    profile_params: dict = field(default_factory=dict)


class Scorer:
    def __init__(self, bundle: TaskBundle, profile: ScoringProfile, *, cache: EvidenceCache | None = None,
                 options: ScoreOptions | None = None, vl_client=None, warm_probe=None,
                 sandbox: ScriptIsolation = None):
        self.bundle = bundle
        self.sandbox = sandbox  # where Blender runs the author's code and the deliveries
        self.profile = profile
        self.options = options or ScoreOptions()
        if self.options.judge not in (None, *JUDGES):
            raise ValueError(f"unknown judge {self.options.judge!r}; use one of {', '.join(JUDGES)}")
        self.task = task_with_profile(bundle.task, profile)
        self.cache = cache
        self.renderer = EvidenceRenderer(cache, sandbox=sandbox) if cache is not None else None
        self.vl_client = vl_client
        self.warm_probe = warm_probe
        self.needs_vl = profile.uses_vl and self.options.judge is not None
        if self.needs_vl and bundle.judge is None:
            raise FileNotFoundError(f"{bundle.draft}/judge.json is needed for the VL channel")
        if self.needs_vl and cache is None:
            raise ValueError("the VL channel needs evidence renders: give an EvidenceCache")
        self.spec = resolve_spec(bundle.judge.evidence if bundle.judge else None,
                                 engine=self.options.engine, resolution=self.options.resolution)
        self._reference: Evidence | None = None

    # --- identity -------------------------------------------------------------------------

    @property
    def uses_evidence(self) -> bool:
        return self.cache is not None and (self.needs_vl or self.options.render)

    def verifier_version(self) -> str:
        return scoring_verifier_version(
            task=self.task, rubric=self.bundle.rubric, profile_ref=self.profile.ref(),
            profile_params=self.profile.params(self.options.profile_params),
            renderer=renderer_version() if self.needs_vl else None,
            judge_config=cast(JudgeConfig, self.bundle.judge).raw if self.needs_vl else None,  # set: __init__
            probe_files=probe_code_digests(self.bundle.task_probes, self.bundle.start_scene))

    # --- parts ------------------------------------------------------------------------------

    def probe(self, blend: Path, out: Path) -> dict:
        b = self.bundle
        if self.warm_probe is not None:
            return self.warm_probe.probe(blend, b.task_path, b.rubric_path, out, b.task_probes)
        return bpy_procs.probe_fresh(blend, b.task_path, b.rubric_path, out, b.task_probes,
                                     sandbox=self.sandbox)

    def reference_key(self) -> str:
        b = self.bundle
        materials = {p.relative_to(b.seed_dir).as_posix(): sha256_file(p)
                     for p in sorted((b.seed_dir / "materials").rglob("*")) if p.is_file()}
        basis = {"materials": materials, "seed": b.seed, "solution": sha256_file(b.solution),
                 "apply": sha256_file(bpy_procs.APPLY_SCRIPT), "build": sha256_file(bpy_procs.BUILD_WORKSPACE),
                 "bpy": pkg_version("bpy"), "spec": self.spec, "renderer": renderer_version()}
        return hashlib.sha256(canonical_json_bytes(basis)).hexdigest()

    def _ref_pointer(self) -> Path:
        assert self.cache is not None  # the reference renders are cached: only with a cache
        return self.cache.root / "refs" / f"{self.reference_key()}.json"

    def remember_reference(self, evidence: Evidence) -> None:
        """Record ``evidence`` as the reference deliverable's renders (calibration builds it)."""
        p = self._ref_pointer()
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps({"evidence_key": evidence.key}), encoding="utf-8")
        tmp.replace(p)
        self._reference = evidence

    def reference_evidence(self, start_blend: Path | None = None) -> Evidence:
        """The reference deliverable's renders: from the cache, or built (workspace -> solution
        -> render) and cached."""
        if self._reference is not None:
            return self._reference
        assert self.cache is not None and self.renderer is not None  # needs_vl: __init__ requires a cache
        pointer = self._ref_pointer()
        if pointer.is_file():
            hit = self.cache.lookup(json.loads(pointer.read_text(encoding="utf-8"))["evidence_key"])
            if hit is not None:
                with self.cache._lock:
                    self.cache.counters.hits += 1
                self._reference = hit
                return hit
        with tempfile.TemporaryDirectory(prefix="arkevo-reference-") as tmp:
            work = Path(tmp)
            start = start_blend or self.bundle.build_start(work, self.sandbox)
            delivery = bpy_procs.apply_script(start, self.bundle.solution, work / "reference-delivery.blend",
                                              sandbox=self.sandbox)
            evidence = self.renderer.render(delivery, self.spec)
        self.remember_reference(evidence)
        return evidence

    def judge_vl(self, evidence: Evidence | None, reference: Evidence | None) -> VLResult | None:
        if not self.needs_vl:
            return None
        config = self.bundle.judge
        assert config is not None  # needs_vl: __init__ requires judge.json
        if self.options.judge == "image-metric":
            if evidence is None or evidence.error:
                return no_evidence_result(config, image_metric_judge_id(),
                                          cast(str, evidence.error) if evidence else "no evidence rendered")
            assert reference is not None  # rendered whenever the delivery's evidence is (score, calibration)
            frames = evidence.names("frame") or reference.names("frame")
            return image_metric_judge(config, evidence.folder, reference.folder, frames)
        if self.vl_client is None:
            raise RuntimeError("judge 'model' needs a vl_client (verifiers.vl_model_judge.OpenAIVisionJudge)")
        assert evidence is not None  # needs_vl: __init__ requires a cache, so evidence is rendered
        return asyncio.run(self.vl_client.judge(config, evidence.folder, evidence.error))

    def record(self, rule_report: dict, vl: VLResult | None, evidence: Evidence | None) -> dict:
        return score_record(self.profile, rule_report, vl, self.task, verifier_version=self.verifier_version(),
                            params=self.options.profile_params,
                            evidence=evidence.summary() if evidence is not None else None)

    # --- one delivery -----------------------------------------------------------------------

    def score(self, blend: Path, workdir: Path | None = None) -> dict:
        with tempfile.TemporaryDirectory(prefix="arkevo-score-") as tmp:
            report_path = Path(workdir or tmp) / "report.json"
            report_path.parent.mkdir(parents=True, exist_ok=True)
            rule_report = self.probe(Path(blend), report_path)
        renderer = cast(EvidenceRenderer, self.renderer)  # set whenever uses_evidence (it needs a cache)
        evidence = renderer.render(Path(blend), self.spec) if self.uses_evidence else None
        wants_reference = self.needs_vl and self.options.judge == "image-metric" and not (evidence and evidence.error)
        reference = self.reference_evidence() if wants_reference else None  # nothing to compare: gate 0
        vl = self.judge_vl(evidence, reference)
        return self.record(rule_report, vl, evidence)
