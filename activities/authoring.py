"""Stage 03: turn an admitted draft into a task package (a tree in the store).

Package layout, shared by trials, review and packaging:

    instruction.md                task text the solver reads
    workspace/inputs/...          start.blend + public attachments: the solver's whole world
    tests/...                     verifier: rule probe code, task.json, rubric.json
    solution/solve.py             reference solution (oracle policy)
    private/reference.blend       the reference project's scene
    private/calibration/...       defect and variant scripts
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from temporalio import activity

from activities.blender.runner import BLENDER_SCRIPTS, run_bpy
from activities.errors import invalid_draft
from activities.store import ContentStore
from contracts.digests import canonical_json_bytes, sha256_file, sha256_hex
from contracts.payloads import BlobRef, CalibrationSample
from contracts.seed_check import check_seed_dir
from contracts.validation import ContractError
from verifiers.version import REWARDKIT_FILES

VERIFIER_DIR = Path(__file__).resolve().parent.parent / "verifiers"


@dataclass
class DraftSummary:
    task_id: str
    pass_threshold: float
    scoring_profile: dict
    calibration_samples: list[CalibrationSample]


@dataclass
class BuildWorkspaceInput:
    seed_tree: BlobRef
    reference_project: str
    start_mode: str


@dataclass
class WorkspaceBuild:
    start_blend: BlobRef
    reference_blend: BlobRef


@dataclass
class AssembleInput:
    seed_tree: BlobRef
    workspace: WorkspaceBuild


class AuthoringActivities:
    def __init__(self, store: ContentStore):
        self.store = store

    def _checked_draft(self, seed_tree: BlobRef, workdir: Path):
        seed_dir = self.store.materialize_tree(seed_tree, workdir / "seed")
        try:
            checked = check_seed_dir(seed_dir)
        except ContractError as e:
            raise invalid_draft(str(e)) from e
        if checked.task is None:
            raise invalid_draft(
                "draft/task.json: <file>: seed has no draft and no author model is configured"
            )
        return seed_dir, checked

    @activity.defn(name="validate_draft")
    def validate_draft(self, seed_tree: BlobRef) -> DraftSummary:
        with tempfile.TemporaryDirectory(prefix="arkevo-draft-") as tmp:
            seed_dir, checked = self._checked_draft(seed_tree, Path(tmp))
            samples = [
                CalibrationSample("reference", "reference", "oracle"),
                CalibrationSample("input", "input", "nop"),
            ]
            for kind in ("defect", "variant"):
                folder = seed_dir / "draft" / "calibration" / f"{kind}s"
                for script in sorted(folder.glob("*.py")):
                    policy = f"script:private/calibration/{kind}s/{script.name}"
                    samples.append(CalibrationSample(f"{kind}:{script.stem}", kind, policy))
            task = checked.task
            return DraftSummary(task.task_id, task.verification.pass_threshold,
                                task.scoring_profile.model_dump(), samples)

    def _build_cache_name(self, req: BuildWorkspaceInput) -> str:
        """Everything a build depends on: the seed's materials, the mode, builder and Blender."""
        materials = {p: e["sha256"] for p, e in self.store.tree_entries(req.seed_tree).items()
                     if not p.startswith("draft/")}
        basis = {"materials": materials, "reference_project": req.reference_project,
                 "start_mode": req.start_mode, "bpy": version("bpy"),
                 "builder": sha256_file(BLENDER_SCRIPTS / "build_workspace.py")}
        return "workspace-build/" + sha256_hex(canonical_json_bytes(basis))

    @activity.defn(name="build_workspace")
    async def build_workspace(self, req: BuildWorkspaceInput) -> WorkspaceBuild:
        # Saved .blend bytes differ between identical builds; reusing a build whose inputs
        # match by hash keeps reruns on the same task version.
        cache_name = self._build_cache_name(req)
        if cached := self.store.get_name(cache_name):
            refs = self.store.get_json(cached)
            activity.logger.info("workspace build reused (%s)", cache_name)
            return WorkspaceBuild(BlobRef(**refs["start_blend"]), BlobRef(**refs["reference_blend"]))
        build = await self._build(req)
        self.store.set_name(cache_name, self.store.put_json(
            {"start_blend": build.start_blend.__dict__,
             "reference_blend": build.reference_blend.__dict__}))
        return build

    async def _build(self, req: BuildWorkspaceInput) -> WorkspaceBuild:
        with tempfile.TemporaryDirectory(prefix="arkevo-build-") as tmp:
            work = Path(tmp)
            seed_dir = self.store.materialize_tree(req.seed_tree, work / "seed")
            start, reference = work / "start.blend", work / "reference.blend"
            await run_bpy(
                BLENDER_SCRIPTS / "build_workspace.py",
                ["--reference", str(seed_dir / req.reference_project),
                 "--start-mode", req.start_mode,
                 "--out-start", str(start), "--out-reference", str(reference)],
                cwd=seed_dir, timeout=600, log=work / "build.log",
            )
            return WorkspaceBuild(self.store.put_file(start), self.store.put_file(reference))

    @activity.defn(name="assemble_task_package")
    def assemble_task_package(self, req: AssembleInput) -> BlobRef:
        with tempfile.TemporaryDirectory(prefix="arkevo-assemble-") as tmp:
            _, checked = self._checked_draft(req.seed_tree, Path(tmp))
        seed = self.store.tree_entries(req.seed_tree)
        task = checked.task
        entries: dict[str, dict] = {}

        def take(src: str, dest: str) -> None:
            entries[dest] = seed[src]

        take(f"draft/{task.instruction}", "instruction.md")
        for rel in task.public_attachments:
            take(f"draft/{rel}", f"workspace/inputs/{Path(rel).name}")
        take("draft/task.json", "tests/task.json")
        take("draft/rubric.json", "tests/rubric.json")
        take("draft/solution/solve.py", "solution/solve.py")
        for rel in seed:
            if rel.startswith("draft/calibration/"):
                take(rel, "private/" + rel[len("draft/"):])
        for name in REWARDKIT_FILES:  # standalone probe files + RewardKit's entry point, for tests/
            ref = self.store.put_file(VERIFIER_DIR / name)
            entries[f"tests/{name}"] = {"sha256": ref.sha256, "size": ref.size}
        for dest, ref in (("workspace/inputs/start.blend", req.workspace.start_blend),
                          ("private/reference.blend", req.workspace.reference_blend)):
            entries[dest] = {"sha256": ref.sha256, "size": ref.size}
        return self.store.put_tree_manifest(entries)
