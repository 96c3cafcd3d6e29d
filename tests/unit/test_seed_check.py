"""`check_seed_dir`: every problem of a seed folder is reported with its file and field."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contracts.seed_check import CheckedSeed
from verifiers.seed_check import check_seed_dir
from contracts.validation import ContractError

POLICY = {"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"}
SOFTWARE = {"name": "blender", "version": "5.2"}

SEED = {
    "seed_id": "robot-carry",
    "title": "Robot arm carries a box between tables",
    "software": SOFTWARE,
    "start_mode": "continue",
    "workflow_primary": "ANI-07",
    "profession_primary": "PRF-ANIM",
    "provenance": {"source": "hand-built", "license": "CC0-1.0", "collected_by": "arkevo"},
    "materials": [
        {"path": "materials/build_reference.py", "role": "reference_project", "public": False},
        {"path": "materials/brief.md", "role": "requirement_doc", "public": True},
    ],
    "sanitization_policy": POLICY,
}


def _criterion(cid: str, req: str, channel: str, method: str, weight: float) -> dict[str, Any]:
    return {"id": cid, "requirement_id": req, "channel": channel, "method": method,
            "weight": weight, "core": cid == "C01", "description": f"{req} holds"}


TASK = {
    "task_id": "robot-carry",
    "title": "Carry the box to table B",
    "status": "draft",
    "start_mode": "continue",
    "software": SOFTWARE,
    "workflow_primary": "ANI-07",
    "profession_primary": "PRF-ANIM",
    "instruction": "instruction.md",
    "public_attachments": ["public/spec.md"],
    "criteria": [
        _criterion("C01", "REQ-END-ON-B", "rule", "location_at_frame", 0.75),
        _criterion("C02", "REQ-LIFT", "rule", "max_height", 0.25),
        _criterion("C03", "REQ-LOOK", "vl", "vl_judge", 1.0),
    ],
    "verification": {"weights": {"rule": 0.8, "vl": 0.2, "agent": 0},
                     "pass_threshold": 0.7, "core_failure_cap": 0.4},
    "scoring_profile": {"profile_id": "rule-vl", "profile_version": "1"},
    "pipeline_ref": None,
    "sanitization_policy": POLICY,
}

RUBRIC = {
    "rubric_version": "1",
    "criteria": [
        {"id": "C01", "method": "location_at_frame",
         "params": {"object": "Box", "frame": 120, "expected": [0, 2, 0.9], "tolerance": 0.05}},
        {"id": "C02", "method": "max_height", "params": {"object": "Box", "min": 1.2}},
    ],
}

# max_height is the seed's own probe (not a built-in): admission reads its declaration.
TASK_PROBES = """from probe_core import binary_outcome, primitive

FRAMES = ("frame_start", "frame_end")
SAMPLING = {"frame_start": "integer", "frame_end": "integer"}


@primitive(required=("object", "min"), params={"object": "name", "min": "number", **SAMPLING})
def max_height(probe, p):
    top = max(probe.aabb(probe.obj(p["object"]), f)[1][2] for f in range(1, 121))
    return binary_outcome(top >= p["min"], top, p["min"], f"highest point {top:.3f}")
"""

INSTRUCTION = """# Carry the box

Animate the arm so that it lifts the box clear of table A (REQ-LIFT) and leaves it resting
on table B at the last frame (REQ-END-ON-B). See public/spec.md.
"""
SPEC = "The carry must look careful and deliberate: REQ-LOOK.\n"


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    _write_json(path, value)


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    """A valid seed folder with a draft, inside tmp_path/"seeds"."""
    root = tmp_path / "seeds" / "robot-carry"
    _write_json(root / "seed.json", SEED)
    (root / "materials").mkdir()
    (root / "materials" / "build_reference.py").write_text("import bpy\n")
    (root / "materials" / "brief.md").write_text("Carry the box.\n")
    _write_json(root / "draft" / "task.json", TASK)
    _write_json(root / "draft" / "rubric.json", RUBRIC)
    (root / "draft" / "task_probes.py").write_text(TASK_PROBES)
    (root / "draft" / "instruction.md").write_text(INSTRUCTION)
    (root / "draft" / "public").mkdir()
    (root / "draft" / "public" / "spec.md").write_text(SPEC)
    (root / "draft" / "solution").mkdir()
    (root / "draft" / "solution" / "solve.py").write_text("import bpy\n")
    return root


def _fails(seed_dir: Path, file: str, field: str, reason: str = "") -> ContractError:
    with pytest.raises(ContractError) as info:
        check_seed_dir(seed_dir)
    error = info.value
    assert error.file == str(seed_dir / file), str(error)
    assert error.field == field, str(error)
    assert reason in error.reason, str(error)
    assert str(error).startswith(f"{seed_dir / file}: {field}: ")
    return error


# --- valid seeds ------------------------------------------------------------------------------


def test_valid_seed_passes(seed: Path) -> None:
    (seed / "draft" / "solution" / "__pycache__").mkdir()
    (seed / "draft" / "solution" / "__pycache__" / "solve.cpython-313.pyc").write_bytes(b"\0")
    checked = check_seed_dir(seed)
    assert isinstance(checked, CheckedSeed)
    assert checked.manifest.seed_id == "robot-carry"
    assert checked.task is not None and checked.task.task_id == "robot-carry"
    assert checked.rubric is not None and [c.id for c in checked.rubric.criteria] == ["C01", "C02"]
    assert checked.material_paths == ("materials/build_reference.py", "materials/brief.md")
    assert checked.reference_project == "materials/build_reference.py"
    assert checked.draft_files == (
        "draft/instruction.md",
        "draft/public/spec.md",
        "draft/rubric.json",
        "draft/solution/solve.py",
        "draft/task.json",
        "draft/task_probes.py",
    )


def test_seed_without_draft_passes(seed: Path) -> None:
    for path in sorted(seed.joinpath("draft").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    seed.joinpath("draft").rmdir()
    checked = check_seed_dir(seed)
    assert (checked.task, checked.rubric, checked.draft_files) == (None, None, ())


def test_rule_only_task_needs_no_vl_weights(seed: Path) -> None:
    def rule_only(task: dict[str, Any]) -> None:
        task["criteria"] = task["criteria"][:2]
        task["verification"]["weights"] = {"rule": 1, "vl": 0, "agent": 0}

    _edit(seed / "draft" / "task.json", rule_only)
    assert check_seed_dir(seed).task is not None


def test_symlink_inside_the_seed_is_fine(seed: Path) -> None:
    brief = seed / "materials" / "brief.md"
    (seed / "materials" / "brief-copy.md").write_text(brief.read_text())
    brief.unlink()
    brief.symlink_to("brief-copy.md")
    check_seed_dir(seed)


def test_check_is_read_only(seed: Path) -> None:
    def snapshot() -> dict[str, tuple[int, int]]:
        paths = [seed, *seed.rglob("*")]
        return {str(p): (p.stat().st_mtime_ns, p.stat().st_size) for p in paths}

    before = snapshot()
    check_seed_dir(seed)
    assert snapshot() == before


# --- seed.json --------------------------------------------------------------------------------


def test_missing_seed_folder(tmp_path: Path) -> None:
    with pytest.raises(ContractError, match="no such directory"):
        check_seed_dir(tmp_path / "nope")


def test_missing_seed_json(seed: Path) -> None:
    (seed / "seed.json").unlink()
    _fails(seed, "seed.json", "<root>", "file not found")


def test_malformed_seed_json(seed: Path) -> None:
    (seed / "seed.json").write_text('{"seed_id": "robot-carry",\n  "title": }')
    _fails(seed, "seed.json", "<root>", "line 2, column 12")


def test_invalid_seed_json(seed: Path) -> None:
    _edit(seed / "seed.json", lambda s: s.pop("title"))
    _fails(seed, "seed.json", "title", "required")


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("workflow_primary", "ANI-99", "not a workflow of the taxonomy"),
        ("profession_primary", "PRF-CHEF", "not a profession of the taxonomy"),
    ],
)
def test_seed_taxonomy_references(seed: Path, field: str, value: str, reason: str) -> None:
    _edit(seed / "seed.json", lambda s: s.update({field: value}))
    _fails(seed, "seed.json", field, reason)


def test_missing_material(seed: Path) -> None:
    (seed / "materials" / "brief.md").unlink()
    _fails(seed, "seed.json", "materials[1].path", "does not exist")


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.md", "materials/../../outside.md"])
def test_material_path_escaping_the_seed(seed: Path, path: str) -> None:
    (seed.parent / "outside.md").write_text("secret")
    _edit(seed / "seed.json", lambda s: s["materials"][1].update(path=path))
    _fails(seed, "seed.json", "materials[1].path", "relative POSIX path")


def test_material_symlink_resolving_outside(seed: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("secret")
    (seed / "materials" / "brief.md").unlink()
    (seed / "materials" / "brief.md").symlink_to(tmp_path / "secret.md")
    _fails(seed, "seed.json", "materials[1].path", "resolves outside the seed folder")


def test_material_in_symlinked_folder_resolving_outside(seed: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "brief.md").write_text("secret")
    (seed / "linked").symlink_to(tmp_path / "elsewhere")
    _edit(seed / "seed.json", lambda s: s["materials"][1].update(path="linked/brief.md"))
    _fails(seed, "seed.json", "materials[1].path", "resolves outside the seed folder")


@pytest.mark.parametrize(("role", "reason"), [("reference_project", "at most 1"), ("other", "")])
def test_not_exactly_one_reference_project(seed: Path, role: str, reason: str) -> None:
    index = 1 if role == "reference_project" else 0
    _edit(seed / "seed.json", lambda s: s["materials"][index].update(role=role))
    _fails(seed, "seed.json", "materials", reason)


def test_reference_project_is_a_blend_or_a_build_script(seed: Path) -> None:
    def swap(s: dict[str, Any]) -> None:
        s["materials"][0]["role"], s["materials"][1]["role"] = "other", "reference_project"

    _edit(seed / "seed.json", swap)
    _fails(seed, "seed.json", "materials[1].path", ".blend or a .py")


def test_material_listed_twice(seed: Path) -> None:
    _edit(seed / "seed.json", lambda s: s["materials"].append(dict(s["materials"][1])))
    _fails(seed, "seed.json", "materials[2].path", "listed twice")


# --- draft files ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["task.json", "rubric.json"])
def test_draft_documents_must_exist(seed: Path, name: str) -> None:
    (seed / "draft" / name).unlink()
    _fails(seed, f"draft/{name}", "<root>", "file not found")


def test_instruction_must_exist(seed: Path) -> None:
    (seed / "draft" / "instruction.md").unlink()
    _fails(seed, "draft/task.json", "instruction", "does not exist in draft/")


def test_invalid_task_json(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t["criteria"][2].update(weight=-1))
    _fails(seed, "draft/task.json", "criteria[2].weight", "-1 is less than the minimum of 0")


def test_invalid_rubric_json(seed: Path) -> None:
    _edit(seed / "draft" / "rubric.json", lambda r: r["criteria"][1].pop("params"))
    _fails(seed, "draft/rubric.json", "criteria[1].params", "required")


def test_task_workflow_not_in_taxonomy(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t.update(workflow_primary="PIP-77"))
    _fails(seed, "draft/task.json", "workflow_primary", "not a workflow of the taxonomy")


def test_task_profession_not_in_taxonomy(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t.update(profession_primary="PRF-CHEF"))
    _fails(seed, "draft/task.json", "profession_primary", "not a profession of the taxonomy")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("start_mode", "refine"),
        ("workflow_primary", "MOD-01"),
        ("profession_primary", "PRF-TD"),
        ("software", {"name": "blender", "version": "4.2"}),
    ],
)
def test_task_disagrees_with_seed(seed: Path, field: str, value: Any) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t.update({field: value}))
    _fails(seed, "draft/task.json", field, f"disagrees with seed.json {field}")


def test_public_attachment_missing(seed: Path) -> None:
    (seed / "draft" / "public" / "spec.md").unlink()
    _fails(seed, "draft/task.json", "public_attachments[0]", "does not exist in draft/")


def test_public_attachment_escaping_draft(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t.update(public_attachments=["../seed.json"]))
    _fails(seed, "draft/task.json", "public_attachments[0]", "relative POSIX path")


def test_public_attachment_symlink_out_of_draft(seed: Path) -> None:
    spec = seed / "draft" / "public" / "spec.md"
    (seed / "materials" / "spec.md").write_text(SPEC)
    spec.unlink()
    spec.symlink_to(seed / "materials" / "spec.md")
    _fails(seed, "draft/task.json", "public_attachments[0]", "resolves outside draft/")


def test_public_attachments_with_one_file_name_would_overwrite_each_other(seed: Path) -> None:
    (seed / "draft" / "public" / "more").mkdir()
    (seed / "draft" / "public" / "more" / "spec.md").write_text(SPEC)
    _edit(seed / "draft" / "task.json",
          lambda t: t.update(public_attachments=["public/spec.md", "public/more/spec.md"]))
    _fails(seed, "draft/task.json", "public_attachments[1]", "inputs/spec.md, as does public_attachments[0]")


def test_a_public_attachment_named_like_the_start_scene_is_refused(seed: Path) -> None:
    (seed / "draft" / "public" / "start.blend").write_bytes(b"BLENDER")
    _edit(seed / "draft" / "task.json",
          lambda t: t.update(public_attachments=["public/spec.md", "public/start.blend"]))
    _fails(seed, "draft/task.json", "public_attachments[1]", "the start scene, inputs/start.blend")


def test_draft_folder_symlinked_outside_the_seed(seed: Path, tmp_path: Path) -> None:
    (seed / "draft").rename(tmp_path / "elsewhere")
    (seed / "draft").symlink_to(tmp_path / "elsewhere")
    _fails(seed, "draft", "<root>", "resolves outside the seed folder")


def test_vl_only_task_has_an_empty_rubric(seed: Path) -> None:
    def vl_only(task: dict[str, Any]) -> None:
        task["criteria"] = task["criteria"][2:]
        task["verification"]["weights"] = {"rule": 0, "vl": 1, "agent": 0}

    _edit(seed / "draft" / "task.json", vl_only)
    _edit(seed / "draft" / "rubric.json", lambda r: r.update(criteria=[]))
    checked = check_seed_dir(seed)
    assert checked.rubric is not None and checked.rubric.criteria == []


def test_draft_symlink_resolving_outside_the_seed(seed: Path, tmp_path: Path) -> None:
    (tmp_path / "key.txt").write_text("secret")
    (seed / "draft" / "solution" / "key.txt").symlink_to(tmp_path / "key.txt")
    _fails(seed, "draft/solution/key.txt", "<root>", "resolves outside the seed folder")


# --- criteria, weights and rubric -------------------------------------------------------------


def test_duplicate_criterion_ids(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t["criteria"][1].update(id="C01"))
    _fails(seed, "draft/task.json", "criteria[1].id", "duplicate id 'C01'")


def test_rule_weights_must_sum_to_one(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t["criteria"][1].update(weight=0.2))
    _fails(seed, "draft/task.json", "criteria", "rule criteria weights sum to 0.95")


def test_vl_weights_must_sum_to_one(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t["criteria"][2].update(weight=0.5))
    _fails(seed, "draft/task.json", "criteria", "vl criteria weights sum to 0.5")


def test_weights_within_tolerance(seed: Path) -> None:
    def thirds(task: dict[str, Any]) -> None:
        task["criteria"][0]["weight"] = 0.3333333
        task["criteria"][1]["weight"] = 0.6666667

    _edit(seed / "draft" / "task.json", thirds)
    check_seed_dir(seed)


def test_agent_weight_must_be_zero(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t["verification"]["weights"].update(agent=0.1))
    _fails(seed, "draft/task.json", "verification.weights.agent", "0 was expected")


def test_channel_weights_must_sum_to_one(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t["verification"]["weights"].update(vl=0.5))
    _fails(seed, "draft/task.json", "verification.weights", "rule + vl weights sum to 1.3")


def test_weighted_channel_needs_criteria(seed: Path) -> None:
    _edit(seed / "draft" / "task.json", lambda t: t.update(criteria=t["criteria"][:2]))
    _fails(seed, "draft/task.json", "verification.weights.vl", "no criteria")


def test_rubric_misses_a_rule_criterion(seed: Path) -> None:
    _edit(seed / "draft" / "rubric.json", lambda r: r["criteria"].pop())
    _fails(seed, "draft/rubric.json", "criteria", "['C02']")


def test_rubric_has_an_unknown_criterion(seed: Path) -> None:
    extra = {"id": "C09", "method": "max_height", "params": {}}
    _edit(seed / "draft" / "rubric.json", lambda r: r["criteria"].append(extra))
    _fails(seed, "draft/rubric.json", "criteria[2].id", "not a rule criterion")


def test_rubric_cannot_grade_a_vl_criterion(seed: Path) -> None:
    extra = {"id": "C03", "method": "vl_judge", "params": {}}
    _edit(seed / "draft" / "rubric.json", lambda r: r["criteria"].append(extra))
    _fails(seed, "draft/rubric.json", "criteria[2].id", "not a rule criterion")


def test_rubric_duplicate_criterion(seed: Path) -> None:
    _edit(seed / "draft" / "rubric.json", lambda r: r["criteria"].append(r["criteria"][0]))
    _fails(seed, "draft/rubric.json", "criteria[2].id", "duplicate id")


def test_rubric_method_mismatch(seed: Path) -> None:
    _edit(seed / "draft" / "rubric.json", lambda r: r["criteria"][0].update(method="rotation"))
    _fails(seed, "draft/rubric.json", "criteria[0].method", "differs from the task's method")


def test_requirement_not_discoverable(seed: Path) -> None:
    (seed / "draft" / "instruction.md").write_text(INSTRUCTION.replace("(REQ-LIFT)", ""))
    _fails(seed, "draft/task.json", "criteria[1].requirement_id", "'REQ-LIFT' appears neither")


def test_requirement_must_appear_as_a_whole_id(seed: Path) -> None:
    (seed / "draft" / "instruction.md").write_text(INSTRUCTION.replace("REQ-LIFT", "REQ-LIFTED"))
    _fails(seed, "draft/task.json", "criteria[1].requirement_id", "appears neither")


def test_requirement_in_a_public_attachment_is_enough(seed: Path) -> None:
    (seed / "draft" / "instruction.md").write_text("Do what public/spec.md says.\n")
    (seed / "draft" / "public" / "spec.md").write_text(SPEC + "REQ-END-ON-B, REQ-LIFT.\n")
    check_seed_dir(seed)


def test_requirement_in_a_private_file_does_not_count(seed: Path) -> None:
    (seed / "draft" / "public" / "spec.md").write_text("Nothing here.\n")
    (seed / "draft" / "solution" / "notes.md").write_text(SPEC)
    _fails(seed, "draft/task.json", "criteria[2].requirement_id", "'REQ-LOOK'")


# --- rubric params against the probe library --------------------------------------------------


def _set_params(index: int, params: dict[str, Any], method: str | None = None) -> Callable[[dict], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["criteria"][index]["params"] = params
        if method is not None:
            doc["criteria"][index]["method"] = method

    return change


def _use_method(seed: Path, index: int, method: str, params: dict[str, Any]) -> None:
    """Give rule criterion `index` another method, in the task and in the rubric alike."""
    _edit(seed / "draft" / "task.json", lambda t: t["criteria"][index].update(method=method))
    _edit(seed / "draft" / "rubric.json", _set_params(index, params, method))


def _names(error: ContractError, *parts: str) -> None:
    """The one-line message names the file, the criterion id and the param."""
    for part in parts:
        assert part in str(error), str(error)


def test_unknown_probe_method(seed: Path) -> None:
    _use_method(seed, 0, "box_location", {"object": "Box"})
    error = _fails(seed, "draft/rubric.json", "criteria[0].method", "unknown probe method 'box_location'")
    _names(error, "draft/rubric.json", "C01", "box_location")


def test_missing_required_param(seed: Path) -> None:
    params = {"object": "Box", "frame": 120, "expected": [0, 2, 0.9]}
    _edit(seed / "draft" / "rubric.json", _set_params(0, params))
    error = _fails(seed, "draft/rubric.json", "criteria[0].params.tolerance", "missing required param")
    _names(error, "draft/rubric.json", "C01 (location_at_frame)", "params.tolerance")


def test_either_one_param_missing(seed: Path) -> None:
    _use_method(seed, 0, "dimensions", {"expected": [1, 1, 1], "tolerance": 0.01})
    error = _fails(seed, "draft/rubric.json", "criteria[0].params", "one of 'object', 'objects'")
    _names(error, "draft/rubric.json", "C01 (dimensions)")


def test_either_one_param_given_either_way(seed: Path) -> None:
    _use_method(seed, 0, "base_color", {"object": "Box", "expected": "#ff0000", "max_delta_e": 2})
    check_seed_dir(seed)
    _edit(seed / "draft" / "rubric.json",
          _set_params(0, {"material": "Wood", "expected": [0.8, 0.1, 0.1], "max_delta_e": 2}))
    check_seed_dir(seed)


def test_param_of_the_wrong_type(seed: Path) -> None:
    params = {"object": "Box", "frame": 120, "expected": [0, 2, 0.9], "tolerance": "5mm"}
    _edit(seed / "draft" / "rubric.json", _set_params(0, params))
    error = _fails(seed, "draft/rubric.json", "criteria[0].params.tolerance", 'expected number >= 0, got "5mm"')
    _names(error, "draft/rubric.json", "C01", "tolerance")


def test_param_of_the_wrong_shape(seed: Path) -> None:
    params = {"object": "Box", "frame": 120, "expected": [0, 2], "tolerance": 0.05}
    _edit(seed / "draft" / "rubric.json", _set_params(0, params))
    error = _fails(seed, "draft/rubric.json", "criteria[0].params.expected", "expected vec3 [x, y, z], got [0, 2]")
    _names(error, "draft/rubric.json", "C01", "expected")


def test_same_param_name_typed_per_method(seed: Path) -> None:
    """`expected` is a vec3 for dimensions but a number for object_min_z."""
    _use_method(seed, 0, "object_min_z", {"object": "Box", "expected": [0, 0, 0], "tolerance": 0.01})
    _fails(seed, "draft/rubric.json", "criteria[0].params.expected", "expected number, got [0, 0, 0]")
    _edit(seed / "draft" / "rubric.json", _set_params(0, {"object": "Box", "expected": 0.9, "tolerance": 0.01}))
    check_seed_dir(seed)


def test_nested_param_shape(seed: Path) -> None:
    regions = {"Box": {"min": [0, 0, 0], "max": [1, 1]}}
    _use_method(seed, 0, "aabb_within", {"regions": regions})
    error = _fails(seed, "draft/rubric.json", "criteria[0].params.regions.Box.max", "expected vec3")
    _names(error, "C01 (aabb_within)")


def test_unknown_param_is_refused(seed: Path) -> None:
    """A misspelt optional param would silently take its default (max_stpe: no teleport check)."""
    params = {"object": "Box", "frame": 120, "expected": [0, 2, 0.9], "tolerance": 0.05, "pointt": "origin"}
    _edit(seed / "draft" / "rubric.json", _set_params(0, params))
    error = _fails(seed, "draft/rubric.json", "criteria[0].params.pointt", "unknown param")
    _names(error, "C01 (location_at_frame)")


def test_enum_param(seed: Path) -> None:
    params = {"object": "Box", "frame": 120, "expected": [0, 2, 0.9], "tolerance": 0.05, "point": "bottom"}
    _edit(seed / "draft" / "rubric.json", _set_params(0, params))
    _fails(seed, "draft/rubric.json", "criteria[0].params.point", 'got "bottom"')


def test_first_problem_is_reported(seed: Path) -> None:
    """Missing before unknown before mistyped; mistyped ones in the rubric's order."""
    params = {"frame": "1", "object": 3, "expected": [0, 2, 0.9], "tolerance": 0.05}
    _edit(seed / "draft" / "rubric.json", _set_params(0, params))
    _fails(seed, "draft/rubric.json", "criteria[0].params.frame", 'expected integer, got "1"')
    _edit(seed / "draft" / "rubric.json", _set_params(0, {**params, "extra": 1}))
    _fails(seed, "draft/rubric.json", "criteria[0].params.extra", "unknown param")
    _edit(seed / "draft" / "rubric.json", _set_params(0, {"frame": "1", "extra": 1}))
    _fails(seed, "draft/rubric.json", "criteria[0].params.object", "missing required param")


def test_task_probe_params_are_checked(seed: Path) -> None:
    """max_height comes from draft/task_probes.py: its declared types hold like a built-in's."""
    _edit(seed / "draft" / "rubric.json", _set_params(1, {"object": "Box", "min": "high"}))
    error = _fails(seed, "draft/rubric.json", "criteria[1].params.min", 'expected number, got "high"')
    _names(error, "draft/rubric.json", "C02 (max_height)", "min")
    _edit(seed / "draft" / "rubric.json", _set_params(1, {"object": "Box", "min": 1.2, "frame_start": 1.5}))
    _fails(seed, "draft/rubric.json", "criteria[1].params.frame_start", "expected integer")


def test_valid_task_probe_is_accepted(seed: Path) -> None:
    params = {"object": "Box", "min": 1.2, "frame_start": 1, "frame_end": 120}
    _edit(seed / "draft" / "rubric.json", _set_params(1, params))
    assert "draft/task_probes.py" in check_seed_dir(seed).draft_files


def test_method_of_a_missing_task_probe(seed: Path) -> None:
    (seed / "draft" / "task_probes.py").unlink()
    error = _fails(seed, "draft/rubric.json", "criteria[1].method", "unknown probe method 'max_height'")
    _names(error, "C02")


@pytest.mark.parametrize(("source", "line", "reason"), [
    ("LIMIT = float('1.2')\n@primitive(required=('object',), params={'object': 'name', 'min': LIMIT})\n",
     "line 4", "argument 'params' is not a literal or a module-level literal constant (LIMIT)"),
    ("@primitive(required=REQUIRED)\n", "line 3", "(REQUIRED)"),
    ("@primitive(required=('object',), params={'object': 'vec9'})\n", "line 3", "unknown type 'vec9'"),
    ("@primitive(required=('object',), group='physics')\n", "line 3", "unknown probe group 'physics'"),
    ("@primitive(**OPTIONS)\n", "line 3", "**kwargs cannot be read"),
])
def test_task_probe_decorator_must_be_literal(seed: Path, source: str, line: str, reason: str) -> None:
    body = "def max_height(probe, p):\n    return None\n"
    head = "from probe_core import primitive\n\n"
    (seed / "draft" / "task_probes.py").write_text(head + source + body)
    error = _fails(seed, "draft/task_probes.py", line, reason)
    _names(error, "draft/task_probes.py", "max_height")


def test_task_probe_registered_other_than_by_decorator(seed: Path) -> None:
    source = ("from probe_core import primitive\n\n"
              "def max_height(probe, p):\n    return None\n\n"
              "primitive(required=('object',))(max_height)\n")
    (seed / "draft" / "task_probes.py").write_text(source)
    _fails(seed, "draft/task_probes.py", "line 6", "other than as the decorator")


def test_task_probe_shadowing_a_built_in(seed: Path) -> None:
    source = TASK_PROBES + ('\n\n@primitive("dimensions", required=("object",), params={"object": "name"})\n'
                            "def my_dimensions(probe, p):\n    return None\n")
    (seed / "draft" / "task_probes.py").write_text(source)
    error = _fails(seed, "draft/task_probes.py", "line 13", "'dimensions' is a built-in primitive")
    _names(error, "draft/task_probes.py", "probes_geometry.py")


def test_task_probe_that_is_not_python(seed: Path) -> None:
    (seed / "draft" / "task_probes.py").write_text("def max_height(:\n")
    _fails(seed, "draft/task_probes.py", "line 1", "not valid Python")


def test_task_probe_symlinked_out_of_the_draft(seed: Path, tmp_path: Path) -> None:
    (tmp_path / "probes.py").write_text(TASK_PROBES)
    (seed / "draft" / "task_probes.py").unlink()
    (seed / "draft" / "task_probes.py").symlink_to(tmp_path / "probes.py")
    _fails(seed, "draft/task_probes.py", "<root>", "resolves outside draft/")


@pytest.mark.parametrize("name", ["robot-carry", "table-model", "product-lighting", "asset-hygiene", "render-setup",
                                  "mug-material", "crate-texture", "fence-array"])
def test_bundled_seeds_fit_the_probe_library(name: str) -> None:
    checked = check_seed_dir(Path(__file__).resolve().parents[2] / "seeds" / name)
    assert checked.rubric is not None and checked.rubric.criteria
