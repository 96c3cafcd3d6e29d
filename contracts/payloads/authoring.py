"""Stage 03: the task package a draft is assembled into, its identity and its grading."""

from dataclasses import dataclass, field

from contracts.payloads.admission import AdmissionResult, DraftPlan
from contracts.payloads.common import BlobRef


@dataclass
class TaskIdentity:
    """Who a task package is: written into task.toml's metadata and every record."""

    task_id: str
    task_version: str  # "draft" until frozen
    verifier_version: str
    pipeline_digest: str
    workflow_primary: str
    profession_primary: str
    blender_version: str = ""  # the Blender that built the workspace ("": not recorded)
    # The task's lineage (contracts/lineage.py), set at publication from the admission record;
    # "": not recorded (trial packages, runs before lineage).
    lineage_root: str = ""
    lineage_family: str = ""
    lineage_split: str = ""
    # a seed family's instance: contracts/lineage.instance_metadata of its provenance ({}: none)
    family_instance: dict[str, str] = field(default_factory=dict)


@dataclass
class GradingSpec:
    """How a delivery of this task is graded: the scoring profile with its params, the VL judge
    and the reference evidence it compares against. Carried to every trial."""

    task_id: str
    profile: dict  # {"profile_id", "profile_version"}
    params: dict  # profile params (kuka-80-20: core caps chosen by calibration)
    verification: dict  # weights, pass_threshold, core_failure_cap
    uses_vl: bool
    judge: str | None  # image-metric | model; None when the profile does not weight VL
    judge_config: BlobRef | None  # the task's judge.json
    verifier_basis: str  # digest of probe code, rubric, grading fields, renderer, judge
    verifier_version: str  # vv2-…: verifier_basis + params
    reference_evidence: BlobRef | None = None  # renders of the reference deliverable

    @property
    def pass_threshold(self) -> float:
        return float(self.verification["pass_threshold"])


@dataclass
class BuildWorkspaceInput:
    seed_tree: BlobRef
    reference_project: str
    start_mode: str


@dataclass
class WorkspaceBuild:
    start_blend: BlobRef
    reference_blend: BlobRef
    blender_version: str = ""  # the Blender that wrote them


@dataclass
class AssembleInput:
    seed_tree: BlobRef
    workspace: WorkspaceBuild
    draft: DraftPlan
    vl_judge: str


@dataclass
class AssembledPackage:
    task_package: BlobRef  # tree: instruction, workspace, tests, solution, private
    identity: TaskIdentity
    grading: GradingSpec
    graded_names: list[str] = field(default_factory=list)  # strings of the rubric's params


@dataclass
class AuthoringInput:
    admission: AdmissionResult
