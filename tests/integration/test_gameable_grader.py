"""A seed whose grader measures proxies is refused at stage 05 with GraderGameable naming the
operators it did not kill -- on a real dev server, with the real gaming operators in Blender.
The seed is table-model as the dataset test runs it (`light_copy`: graded on rules alone, no
evidence renders): mutation testing judges the rule channel with a perfect VL answer assumed,
so the VL channel changes nothing here. The same seed with its strengthened rubric publishes:
that run is tests/integration/test_dataset_production.py's, and its calibration report carries
the mutation table (every applicable operator killed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from tests.integration.test_bad_input import _published, produce_failing
from tests.integration.test_dataset_production import light_copy

pytestmark = [pytest.mark.temporal, pytest.mark.blender]

# The hardened methods and the proxy each stood in for before issue 22: vertex boxes, names in
# any slot, nothing at all.
def _weak(method: str, params: dict) -> tuple[str, dict]:
    names = params.get("objects") or ([params["object"]] if "object" in params else None)
    if method == "ground_contact":
        return "object_min_z", {"objects": params["objects"], "expected": params.get("z", 0.0),
                                "tolerance": params.get("tolerance", 0.003)}
    if method == "parts_touch":
        return "aabb_contact", {k: params[k] for k in ("object", "others", "tolerance")}
    if method == "material_on_faces":
        return "material_assigned", {"objects": names, "material": params["material"]}
    if method in ("solid_parts", "shape_measures", "shape_match") and names:
        return "objects_exist", {"objects": names}
    return "object_count", {"min": 0}  # surface_shader, new_objects, scene_unchanged: unchecked


def weaken_to_proxies(seed: Path) -> list[str]:
    """Give the seed's rule criteria the proxies they replaced; returns the methods replaced."""
    draft = seed / "draft"
    rubric = json.loads((draft / "rubric.json").read_text())
    task = json.loads((draft / "task.json").read_text())
    methods = {}
    for entry in rubric["criteria"]:
        method, params = _weak(entry["method"], entry.get("params", {}))
        if method != entry["method"] and entry["method"] not in ("dimensions", "aabb_within", "objects_exist"):
            methods[entry["id"]] = entry["method"]
            entry["method"], entry["params"] = method, params
    for criterion in task["criteria"]:
        if criterion["id"] in methods:
            criterion["method"] = next(e["method"] for e in rubric["criteria"] if e["id"] == criterion["id"])
    (draft / "rubric.json").write_text(json.dumps(rubric, indent=1))
    (draft / "task.json").write_text(json.dumps(task, indent=1))
    return sorted(set(methods.values()))


async def test_a_seed_graded_by_proxies_is_refused_at_review_naming_the_operators(
        temporal_env, workers, settings, tmp_path):
    seed = light_copy("table-model", tmp_path)
    replaced = weaken_to_proxies(seed)
    assert {"ground_contact", "parts_touch", "material_on_faces", "solid_parts"} <= set(replaced), replaced
    before = _published(settings)
    handle, failure, _ = await produce_failing(temporal_env, "gameable-table", seed)
    chain, err = [], failure.value.cause
    while err is not None:
        chain.append(err)
        err = err.cause
    gameable = next((e for e in chain if isinstance(e, ApplicationError) and e.type == "GraderGameable"), None)
    assert gameable is not None and gameable.non_retryable, chain
    named = str(gameable).split("operators not killed: ")[1].split(";")[0].split(", ")
    # the proxies let loose vertices, a faceless shell, an open shell and a material on no face
    # through (a stand-in and an occluder no longer pass even the box proxies: a box is measured
    # on the visible shells' faces)
    assert {"bbox_vertices", "strip_faces", "open_shell", "material_unused_slot"} <= set(named), named
    progress = await handle.query("progress")
    assert progress["stages"]["05-review"] == "failed" and progress["stages"]["06-evaluation"] == "pending"
    assert _published(settings) == before  # nothing frozen, nothing published
