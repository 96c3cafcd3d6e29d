"""FAKE scripted model replies for tests of the final review and task derivation -- written by
hand, NOT produced by a model. Each helper returns a `Reply` for `FakeOpenAIServer`'s script
(or the dict that goes into one), so a test reads as the conversation it stages.

`table_like_candidate` builds a complete derived seed as the deriver would propose it: a client
brief with the given numbers and part names, a real bpy build script modelled on
seeds/table-model/materials/build_reference.py, and the requirements with their checks.
`harbor_task_from_draft` lays out a minimal Harbor task folder from a seed's draft (what a
publication's task/ holds that derivation reads), without running the pipeline.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.fakes.openai_server import Reply, final

CORNERS = ("FL", "FR", "BL", "BR")


def pattern_reply(skill: str = "model a piece of furniture from primitives to exact dimensions",
                  deliverable: str = "a .blend scene with named parts and one material",
                  check_kinds: list[str] | None = None, varies: list[str] | None = None) -> Reply:
    return final(json.dumps({
        "skill": skill, "deliverable": deliverable,
        "check_kinds": check_kinds or ["objects_exist", "dimensions", "object_min_z",
                                       "aabb_within", "aabb_contact", "material_assigned"],
        "varies": varies or ["the product", "overall size", "part names", "material name"],
        "keeps": ["named parts", "sizes graded on world bounding boxes", "one named material"]}))


def candidates_reply(candidates: list[dict]) -> Reply:
    return final(json.dumps({"candidates": candidates}))


def reviewer_reply(verdict: str, reasons: list[str], checks: dict | None = None) -> Reply:
    checks = checks or {name: {"ok": verdict == "accept", "note": "checked"}
                        for name in ("coverage", "leaks", "client_request", "margins")}
    return final(json.dumps({"verdict": verdict, "reasons": reasons, "checks": checks}))


def _m(value: float) -> str:
    return f"{value:.2f}"


def table_like_candidate(seed_id: str, title: str, product: str, width: float, depth: float,
                         height: float, top: float, leg: float, *, top_name: str = "Tabletop",
                         leg_prefix: str = "Leg", material: str = "Wood", inset: float = 0.03,
                         brief: str | None = None) -> dict:
    """A deriver's candidate: a four-legged `product` of width x depth x height metres with a
    `top`-thick top on square `leg` legs named `<leg_prefix>.FL` etc."""
    legs = [f"{leg_prefix}.{c}" for c in CORNERS]
    parts = [top_name, *legs]
    names = ", ".join(f"`{p}`" for p in parts)
    brief = brief or f"""# {product}: modelling request

Our shop is listing the {product} and needs it as a Blender model built in an empty scene
(`inputs/start.blend`). Deliver `outputs/result.blend`.

Measurements, in metres: overall footprint {_m(width)} along X by {_m(depth)} along Y, total
height {_m(height)} from the floor (z = 0). The board on top is {_m(top)} thick. Legs stand
at the four corners, each within {_m(min(width, depth) / 4)} of both edges of the board that
meet there, reach up to the board and rest on the floor.

Name the parts {names}, and give every part a material named `{material}`.

Checklist: REQ-PARTS, REQ-OVERALL-SIZE, REQ-TOP-SIZE, REQ-ON-FLOOR, REQ-LEG-PLACEMENT,
REQ-LEGS-MEET-TOP, REQ-MATERIAL.
"""
    build = f'''"""Reference project for {seed_id}: the {product} built from primitives (run in bpy).

{_m(width)} m (X) x {_m(depth)} m (Y) x {_m(height)} m (Z): a {_m(top)} m thick top on four
{_m(leg)} m square legs, standing on the floor (z = 0). Every part carries ``{material}``.
"""

import math

import bmesh
import bpy
from mathutils import Matrix, Vector

WIDTH, DEPTH, HEIGHT, TOP = {width}, {depth}, {height}, {top}
LEG, INSET = {leg}, {inset}


def box_object(name, size, base_center, mat):
    """A box-shaped object whose origin is the centre of its bottom face."""
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


def build():
    mat = bpy.data.materials.new("{material}")
    leg_h = HEIGHT - TOP
    box_object("{top_name}", (WIDTH, DEPTH, TOP), (0, 0, leg_h), mat)
    dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
    for tag, (x, y) in {{"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}}.items():
        box_object(f"{leg_prefix}.{{tag}}", (LEG, LEG, leg_h), (x, y, 0), mat)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(cam)
    cam.location = (2.2, -2.4, 1.7)
    cam.rotation_euler = (Vector((0, 0, HEIGHT / 2)) - cam.location).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    bpy.context.scene.collection.objects.link(sun)


build()
'''
    requirements = [
        ("REQ-PARTS", "objects_exist", ["objects"]),
        ("REQ-OVERALL-SIZE", "dimensions", ["objects", "expected", "tolerance"]),
        ("REQ-TOP-SIZE", "dimensions", ["object", "expected", "tolerance"]),
        ("REQ-ON-FLOOR", "object_min_z", ["objects", "expected", "tolerance"]),
        ("REQ-LEG-PLACEMENT", "aabb_within", ["regions"]),
        ("REQ-LEGS-MEET-TOP", "aabb_contact", ["object", "others", "tolerance"]),
        ("REQ-MATERIAL", "material_assigned", ["objects", "material"]),
    ]
    return {"seed_id": seed_id, "title": title, "workflow_primary": "MOD-01",
            "profession_primary": "PRF-3DART", "start_mode": "from_scratch", "brief": brief,
            "build_reference": build,
            "requirements": [{"id": i, "check": c, "params": p} for i, c, p in requirements]}


def harbor_task_from_draft(draft: Path, dest: Path) -> Path:
    """A minimal Harbor task folder from a seed draft: instruction.md, task.toml, tests/ (task
    and rubric), environment/workspace/inputs/ (the public attachments) and solution/."""
    task = json.loads((draft / "task.json").read_text())
    (dest / "tests").mkdir(parents=True)
    shutil.copyfile(draft / task["instruction"], dest / "instruction.md")
    for name in ("task.json", "rubric.json"):
        shutil.copyfile(draft / name, dest / "tests" / name)
    inputs = dest / "environment" / "workspace" / "inputs"
    for rel in task["public_attachments"]:
        (inputs / Path(rel).name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(draft / rel, inputs / Path(rel).name)
    shutil.copytree(draft / "solution", dest / "solution")
    (dest / "task.toml").write_text(
        f'schema_version = "1.4"\n\n[metadata]\ntask_id = "{task["task_id"]}"\n'
        f'workflow_primary = "{task["workflow_primary"]}"\n')
    return dest
