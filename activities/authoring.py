"""Stage 03: turn an admitted draft into a task package (a tree in the store), and fix how it
is graded (`GradingSpec`) and who it is (`TaskIdentity`).

Package layout, shared by trials, review and packaging:

    instruction.md                task text the solver reads
    workspace/inputs/...          start.blend + public attachments: the solver's whole world
    tests/...                     verifier: rule probe code, task.json, rubric.json, the task's
                                  own task_probes.py, judge.json when VL is weighted
    solution/solve.py             reference solution (oracle policy)
    private/reference.blend       the reference project's scene
    private/calibration/...       defect and variant scripts
    private/ledger.json           requirement ledger, when the draft has one
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import cast

from temporalio import activity

from blender.runner import BLENDER_SCRIPTS, ScriptFailed
from blender.runtime import blender_version
from contracts.errors import author_script_failed
from storage.content import ContentStore
from contracts.digests import canonical_json_bytes, sha256_file, sha256_hex
from contracts.payloads.authoring import (AssembledPackage, AssembleInput, BuildWorkspaceInput, GradingSpec,
                                          TaskIdentity, WorkspaceBuild)
from contracts.payloads.common import BlobRef
from sandbox.script_run import ScriptIsolation
from verifiers.bpy_procs import build_workspace
from verifiers.evidence import renderer_version, rubric_names
from verifiers.profiles import get_profile
from verifiers.version import (REWARDKIT_FILES, TASK_VERIFIER_FILES, scoring_verifier_basis,
                               task_verifier_digests, verifier_version_from)
from observability import telemetry
from observability.heartbeats import in_thread

VERIFIER_DIR = Path(__file__).resolve().parent.parent / "verifiers"
BUILD_TIMEOUT_SEC = 600


class AuthoringActivities:
    def __init__(self, store: ContentStore, sandbox: ScriptIsolation = None):
        self.store = store
        self.sandbox = sandbox  # a seed's build script is outside code: it runs sandboxed

    def _build_cache_name(self, req: BuildWorkspaceInput) -> str:
        """Everything a build depends on: the seed's materials, the mode, builder and Blender."""
        materials = {p: e["sha256"] for p, e in self.store.tree_entries(req.seed_tree).items()
                     if not p.startswith("draft/")}
        basis = {"materials": materials, "reference_project": req.reference_project,
                 "start_mode": req.start_mode, "bpy": blender_version(),
                 "builder": sha256_file(BLENDER_SCRIPTS / "build_workspace.py")}
        return "workspace-build/" + sha256_hex(canonical_json_bytes(basis))

    @activity.defn(name="build_workspace")
    async def build_workspace(self, req: BuildWorkspaceInput) -> WorkspaceBuild:
        # Saved .blend bytes differ between identical builds; reusing a build whose inputs
        # match by hash keeps reruns on the same task version.
        cache_name = self._build_cache_name(req)
        if cached := self.store.get_name(cache_name):
            telemetry.cache_lookup("workspace_build", hit=True)
            refs = cast(dict, self.store.get_json(cached))
            activity.logger.info("workspace build reused (%s)", cache_name)
            # the cache name holds the Blender version: a hit was built by this one
            return WorkspaceBuild(BlobRef(**refs["start_blend"]), BlobRef(**refs["reference_blend"]),
                                  blender_version())
        telemetry.cache_lookup("workspace_build", hit=False)
        build = await self._build(req)
        self.store.set_name(cache_name, self.store.put_json(
            {"start_blend": build.start_blend.__dict__,
             "reference_blend": build.reference_blend.__dict__}))
        return build

    async def _build(self, req: BuildWorkspaceInput) -> WorkspaceBuild:
        """Build in Blender from the seed's materials only: draft/ (the private rubric,
        solution and calibration) never reaches the build script. A script that raises, or a
        reference .blend that cannot be opened, is the author's (AuthorScriptFailed, not
        retried); a crash, a timeout or a sandbox that cannot start is infrastructure."""
        with tempfile.TemporaryDirectory(prefix="arkevo-build-") as tmp:
            work = Path(tmp)
            seed_dir = work / "seed"
            self.store.materialize_tree(req.seed_tree, seed_dir, exclude="draft/")
            start, reference = work / "start.blend", work / "reference.blend"
            build = functools.partial(build_workspace, seed_dir / req.reference_project, req.start_mode,
                                      start, reference, BUILD_TIMEOUT_SEC, seed_dir=seed_dir,
                                      sandbox=self.sandbox)
            try:  # the one build every caller uses (bpy_procs), off the event loop, heartbeating
                await in_thread(build, what="building the workspace")
            except ScriptFailed as exc:
                exception = exc.problems[0][1]
                raise author_script_failed(f"{req.reference_project}: {exception}", file=req.reference_project,
                                           exception=exception, log_tail=exc.log_tail) from None
            return WorkspaceBuild(self.store.put_file(start), self.store.put_file(reference), blender_version())

    @activity.defn(name="assemble_task_package")
    def assemble_task_package(self, req: AssembleInput) -> AssembledPackage:
        """Compose the package from admitted blobs (no data copied) and fix how it is graded."""
        seed = self.store.tree_entries(req.seed_tree)
        draft = req.draft
        entries: dict[str, dict] = {}

        def take(src: str, dest: str) -> None:
            entries[dest] = seed[src]

        take(f"draft/{draft.instruction}", "instruction.md")
        for rel in draft.public_attachments:
            take(f"draft/{rel}", f"workspace/inputs/{Path(rel).name}")
        take("draft/task.json", "tests/task.json")
        take("draft/rubric.json", "tests/rubric.json")
        if draft.has_task_probes:  # the seed's own primitives travel with its verifier
            take("draft/task_probes.py", "tests/task_probes.py")
        if "draft/start_scene.json" in seed:  # what the scene-diff criteria compare against
            take("draft/start_scene.json", "tests/start_scene.json")
        take("draft/solution/solve.py", "solution/solve.py")
        if "draft/ledger.json" in seed:  # cites private materials: reviewers' eyes only
            take("draft/ledger.json", "private/ledger.json")
        for rel in seed:
            if rel.startswith("draft/calibration/"):
                take(rel, "private/" + rel[len("draft/"):])
        for name in REWARDKIT_FILES:  # standalone probe files + RewardKit's entry point, for tests/
            ref = self.store.put_file(VERIFIER_DIR / name)
            entries[f"tests/{name}"] = {"sha256": ref.sha256, "size": ref.size}
        for dest, ref in (("workspace/inputs/start.blend", req.workspace.start_blend),
                          ("private/reference.blend", req.workspace.reference_blend)):
            entries[dest] = {"sha256": ref.sha256, "size": ref.size}
        profile = get_profile(draft.scoring_profile["profile_id"],
                              draft.scoring_profile["profile_version"])
        judge_config = None
        if profile.uses_vl:
            take("draft/judge.json", "tests/judge.json")
            judge_config = self._ref(seed["draft/judge.json"])
        package = self.store.put_tree_manifest(entries)
        rubric = cast(dict, self.store.get_json(self._ref(entries["tests/rubric.json"])))
        basis = self._verifier_basis(entries, rubric, profile, judge_config)
        params = profile.params()
        grading = GradingSpec(
            task_id=draft.task_id, profile=profile.ref(), params=params,
            verification=draft.verification, uses_vl=profile.uses_vl,
            judge=req.vl_judge if profile.uses_vl else None, judge_config=judge_config,
            verifier_basis=basis, verifier_version=verifier_version_from(basis, params))
        identity = TaskIdentity(
            task_id=draft.task_id, task_version="draft", verifier_version=grading.verifier_version,
            pipeline_digest="", workflow_primary=draft.workflow_primary,
            profession_primary=draft.profession_primary, blender_version=req.workspace.blender_version)
        return AssembledPackage(package, identity, grading, sorted(rubric_names(rubric)))

    def _ref(self, entry: dict) -> BlobRef:
        return self.store.ref_for(entry["sha256"], entry["size"])

    def _verifier_basis(self, entries: dict, rubric: dict, profile, judge_config: BlobRef | None) -> str:
        """Everything that decides a grade except the profile's params (calibration may still
        choose those): the package's tests/ code and rubric, the grading fields, the renderer
        and the judge questions when VL is weighted."""
        task = cast(dict, self.store.get_json(self._ref(entries["tests/task.json"])))
        probe_files = task_verifier_digests({  # the task's own verifier files, if any
            name: self.store.get_bytes(self._ref(entries[f"tests/{name}"]))
            for name in TASK_VERIFIER_FILES if f"tests/{name}" in entries})
        return scoring_verifier_basis(
            task=task, rubric=rubric, profile_ref=profile.ref(),
            renderer=renderer_version() if profile.uses_vl else None,
            judge_config=cast(dict, self.store.get_json(judge_config)) if judge_config else None,
            probe_files=probe_files)
