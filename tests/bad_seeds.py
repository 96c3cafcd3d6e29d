"""Held-in bad seeds: each breaks one rule of stage 02 in a copy of the bundled table seed, with
the file and field admission must name. Stage 02 is tested with them end to end
(tests/integration/test_bad_input.py) and `arkevo seed check` against admission
(tests/unit/test_seed_cli.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def _index_of(criterion_id: str) -> int:
    """Where the bundled table-model's task.json lists a criterion (errors name it by index)."""
    task = json.loads((Path(__file__).resolve().parents[1] / "seeds" / "table-model" / "draft" / "task.json")
                      .read_text(encoding="utf-8"))
    return next(i for i, c in enumerate(task["criteria"]) if c["id"] == criterion_id)


def edit_json(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2))


def malformed_seed_json(seed: Path) -> None:
    (seed / "seed.json").write_text('{"seed_id": "table-model", ')


def unknown_workflow_id(seed: Path) -> None:
    edit_json(seed / "seed.json", lambda d: d.update(workflow_primary="MOD-99"))


def weights_not_one(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: d["criteria"][0].update(weight=d["criteria"][0]["weight"] + 0.25))


def agent_weight_nonzero(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: d["verification"]["weights"].update(agent=0.1))


def missing_material(seed: Path) -> None:
    doc = json.loads((seed / "seed.json").read_text())
    os.remove(seed / doc["materials"][0]["path"])


def escaping_material(seed: Path) -> None:
    edit_json(seed / "seed.json",
              lambda d: d["materials"][0].update(path="../../../etc/passwd"))


def requirement_nowhere_public(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: d["criteria"][0].update(requirement_id="REQ-NOWHERE-PUBLIC"))


def rubric_unknown_method(seed: Path) -> None:
    for name in ("task.json", "rubric.json"):  # the same method in both: only the library lacks it
        edit_json(seed / "draft" / name, lambda d: d["criteria"][0].update(method="objects_present"))


def rubric_param_wrong_type(seed: Path) -> None:
    edit_json(seed / "draft" / "rubric.json",
              lambda d: d["criteria"][2]["params"].update(tolerance="5mm"))


def rubric_param_missing(seed: Path) -> None:
    edit_json(seed / "draft" / "rubric.json", lambda d: d["criteria"][5]["params"].pop("others"))


def task_probe_shadows_builtin(seed: Path) -> None:
    (seed / "draft" / "task_probes.py").write_text(
        "from probe_core import primitive\n\n\n@primitive(required=('object',), params={'object': 'name'})\n"
        "def object_exists(probe, p):\n    return None\n")


def weights_disagree_with_profile(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",  # still sums to 1, but blender-70-30 weighs 0.7 / 0.3
              lambda d: d["verification"]["weights"].update(rule=0.8, vl=0.2))


def vl_criterion_names_no_question(seed: Path) -> None:
    edit_json(seed / "draft" / "task.json",
              lambda d: next(c for c in d["criteria"] if c["id"] == "V01").update(method="judge_z"))


def judge_questions_missing(seed: Path) -> None:
    os.remove(seed / "draft" / "judge.json")


def older_blender(seed: Path) -> None:
    for declared in (seed / "seed.json", seed / "draft" / "task.json"):  # the draft agrees with its seed
        edit_json(declared, lambda d: d["software"].update(version="4.0"))


def accepted_range_without_the_runtime(seed: Path) -> None:
    for declared in (seed / "seed.json", seed / "draft" / "task.json"):
        edit_json(declared, lambda d: d["software"].update(version="4.0", accepts={"min": "4.0", "max": "4.2"}))


CASES = [
    (malformed_seed_json, "seed.json", "<root>"),
    # the Blender the seed declares against the runtime's (BlenderVersionMismatch)
    (older_blender, "seed.json", "software.version: the seed declares Blender 4.0; this runtime is Blender 5.2"),
    (accepted_range_without_the_runtime, "seed.json", "software.accepts: the seed accepts Blender 4.0 to 4.2"),
    (unknown_workflow_id, "seed.json", "workflow_primary"),
    (weights_not_one, "task.json", "weight"),
    (agent_weight_nonzero, "task.json", "verification.weights.agent"),
    (missing_material, "seed.json", "materials[0].path"),
    (escaping_material, "seed.json", "materials[0].path"),
    (requirement_nowhere_public, "task.json", "criteria[0].requirement_id"),
    # the rubric against the probe library (field, then the criterion id and method)
    (rubric_unknown_method, "rubric.json", "criteria[0].method: C01: unknown probe method"),
    (rubric_param_wrong_type, "rubric.json", 'criteria[2].params.tolerance: C03 (dimensions): expected number'),
    (rubric_param_missing, "rubric.json", "criteria[5].params.others: C06 (parts_touch): missing"),
    (task_probe_shadows_builtin, "task_probes.py", "line 4: rule method 'object_exists' is a built-in"),
    # the VL channel and the scoring profile
    (weights_disagree_with_profile, "task.json", "scoring_profile: task table-model: verification.weights.rule=0.8"),
    (vl_criterion_names_no_question, "task.json",
     f"criteria[{_index_of('V01')}].method (V01): 'judge_z' names no judge question"),
    (judge_questions_missing, "judge.json", "weights the VL channel"),
]


def secret_in_the_brief(seed: Path) -> None:
    with open(seed / "materials" / "brief.md", "a") as brief:
        brief.write("\nstorage key: " + "AKIA" + "Q3EGRIT4" + "VZ7XK2MB" + "\n")  # split: no secret in this file


# Privacy checkpoint 1 (PrivacyFinding); end to end in tests/integration/test_privacy_checkpoints.py.
PRIVACY_CASES = [(secret_in_the_brief, "materials/brief.md", "rule aws-access-key-id (secret)")]
