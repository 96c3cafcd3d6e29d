"""Verifier version: a digest of everything that decides a grade — probe code, rubric, and the
task's criteria, verification weights and scoring profile. Status and pipeline_ref are left out,
so freezing a task does not change its verifier version.

One form, ``vv2-…`` (``scoring_verifier_version``), used by the pipeline and the CLIs alike: the
full scoring identity -- probe code (every file the standalone probe needs, plus a task's own
``task_probes.py``), rubric, the task's grading fields, the scoring profile with its params, the
evidence renderer version and the judge questions (when the profile weights VL).  Every trial
record and score record carries it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from contracts.digests import canonical_file_bytes, canonical_json_bytes, sha256_hex

GRADING_TASK_FIELDS = ("criteria", "verification", "scoring_profile")
VERIFIERS = Path(__file__).resolve().parent
# Every file the standalone rule probe needs (stdlib + bpy + numpy, sibling imports only): copy
# them together into a packaged task's tests/.
PROBE_FILES = (
    "rule_probe.py", "probe_primitives.py", "probe_core.py", "probes_objects.py", "probes_geometry.py",
    "probes_animation.py", "probes_materials.py", "probes_render_spec.py", "probes_solid.py",
    "probes_surface.py", "probes_scene.py", "probes_visibility.py", "colour_math.py", "scoring.py",
    "tbb_threads.py",
)
# A task's own files that decide its grade beside the probe code (in its tests/, in the basis).
TASK_VERIFIER_FILES = ("task_probes.py", "start_scene.json")
# What a packaged task's tests/ holds to also run under Harbor + RewardKit (python -m rewardkit).
REWARDKIT_FILES = PROBE_FILES + ("rewardkit_rules.py",)


def probe_code_digests(extra: Path | None = None, start_scene: Path | None = None,
                       code: Path = VERIFIERS) -> dict[str, str]:
    """{file: sha256 of its canonical bytes} of the probe code in `code` (the workers' own
    `verifiers/` unless a candidate's folder is named) + a task's own probes and the start
    scene's snapshot."""
    out = {name: sha256_hex(canonical_file_bytes(Path(code) / name)) for name in PROBE_FILES}
    if extra is not None and Path(extra).is_file():
        out["task_probes.py"] = sha256_hex(canonical_file_bytes(Path(extra)))
    if start_scene is not None and Path(start_scene).is_file():  # decides the scene-diff criteria
        out["start_scene.json"] = sha256_hex(canonical_file_bytes(Path(start_scene)))
    return out


def task_verifier_digests(task_files: Mapping[str, bytes], code: Path = VERIFIERS) -> dict[str, str]:
    """The probe files of a packaged task's verifier as stage 03 fixes its basis: the probe code
    in `code` and the task's own files among `task_files` ({"task_probes.py" | "start_scene.json":
    bytes}), each the sha256 of its text with LF line endings."""
    out = probe_code_digests(code=code)
    for name in TASK_VERIFIER_FILES:
        if name in task_files:
            out[name] = sha256_hex(task_files[name].replace(b"\r\n", b"\n").replace(b"\r", b"\n"))
    return out


def verifier_code_id(code: Path = VERIFIERS, extra: Sequence[str] = ()) -> tuple[str, dict[str, str]]:
    """(`vc-` + 12 hex, {file: sha256}) of the verifier code in `code` shared by every task: the
    probe files and `extra` files beside them (mutation operators). Names the code a drift check
    re-scored with; a task's own verifier version adds its rubric, probes and grading."""
    files = {**probe_code_digests(code=code),
             **{name: sha256_hex(canonical_file_bytes(Path(code) / name)) for name in extra}}
    return "vc-" + sha256_hex(canonical_json_bytes(dict(sorted(files.items()))))[:12], files


def scoring_verifier_basis(*, task: Mapping, rubric: Mapping, profile_ref: Mapping,
                           renderer: str | None = None, judge_config: Mapping | None = None,
                           probe_files: Mapping[str, str] | None = None) -> str:
    """Digest of everything that decides a grade except the profile's params: probe code,
    rubric, the task's grading fields, the profile, the renderer version and judge questions.
    Calibration may choose params after this is fixed (``verifier_version_from``)."""
    basis = {
        "probe": dict(sorted((probe_files or probe_code_digests()).items())),
        "rubric": rubric,
        "task": {k: task[k] for k in GRADING_TASK_FIELDS},
        "profile": dict(profile_ref),
        "renderer": renderer,
        "judge": judge_config,
    }
    return sha256_hex(canonical_json_bytes(basis))


def verifier_version_from(basis: str, params: Mapping | None) -> str:
    """``vv2-`` + 16 hex: the basis digest with the profile params in force."""
    return "vv2-" + sha256_hex(canonical_json_bytes({"basis": basis, "params": dict(params or {})}))[:16]


def scoring_verifier_version(*, task: Mapping, rubric: Mapping, profile_ref: Mapping,
                             profile_params: Mapping | None = None, renderer: str | None = None,
                             judge_config: Mapping | None = None,
                             probe_files: Mapping[str, str] | None = None) -> str:
    """The full scoring identity, computed the same way by the pipeline (basis at stage 03,
    params at calibration) and by the CLIs.  ``task`` is the task as graded."""
    basis = scoring_verifier_basis(task=task, rubric=rubric, profile_ref=profile_ref, renderer=renderer,
                                   judge_config=judge_config, probe_files=probe_files)
    return verifier_version_from(basis, profile_params)
