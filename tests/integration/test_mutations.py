"""The gaming operators (verifiers/mutations.py) in real Blender: each applies (a criterion made
to see its change fails on the mutated scene and passes on the original), the delivery is
reverted between operators (same file, same report after), and an operator that does not fit
the task is refused with its reason.  One warm probe process runs them all, as calibration and
stage 05 do."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sandbox.script_run import SlotUnavailable
from tests.probe_cases import local_probe, write_rule_task
from verifiers import bpy_procs

from verifiers.mutation_testing import OPERATOR_NAMES, mutation_table
from verifiers.profiles import get_profile
from tests.bpy_forks import run_bpy, run_bpy_script

pytestmark = pytest.mark.blender
VERIFIERS = Path(__file__).resolve().parents[2] / "verifiers"

SCENE = '''
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 20

def box(name, size=1.0, loc=(0, 0, 0)):
    s = size / 2
    verts = [(x, y, z) for x in (-s, s) for y in (-s, s) for z in (-s, s)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = loc
    scene.collection.objects.link(obj)
    return obj

paint = bpy.data.materials.new("Paint")
paint.use_nodes = True
paint.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.1, 0.1, 1)
part = box("Part", 1.0, (0, 0, 0.5))
part.rotation_euler = (0, 0, 0.3)
part.data.materials.append(paint)
row = box("Row", 0.2, (3, 0, 0.1))
arr = row.modifiers.new("Array", "ARRAY")
arr.count, arr.relative_offset_displace = 3, (1.5, 0, 0)
arm = bpy.data.objects.new("Arm", None)
scene.collection.objects.link(arm)
helper = bpy.data.objects.new("Helper", None)
scene.collection.objects.link(helper)
helper.parent = arm
helper.location = (1, 0, 0)
mover = box("Mover", 0.3, (0, 3, 0.15))
for frame, x in ((1, 0.0), (20, 2.0)):
    mover.location.x = x
    mover.keyframe_insert("location", index=0, frame=frame)
    arm.rotation_euler.z = x
    arm.keyframe_insert("rotation_euler", index=2, frame=frame)
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
cam.data.lens = 50
scene.collection.objects.link(cam)
scene.camera = cam
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
sun.data.energy = 3.0
scene.collection.objects.link(sun)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

# operator -> (criterion id, method, params): a criterion that sees exactly that operator's change
WATCH = {
    "bbox_vertices": ("faces", "mesh_counts", {"object": "Part", "faces": 6}),
    "strip_faces": ("faces2", "mesh_counts", {"object": "Mover", "faces": 6}),
    "shrink_standins": ("verts", "mesh_counts", {"object": "Part", "vertices": 8}),
    "emission_lookalike": ("bsdf", "material_node_types", {"material": "Paint", "node_types": ["BSDF_PRINCIPLED"]}),
    "material_unused_slot": ("on_faces", "material_on_faces", {"object": "Part", "material": "Paint"}),
    "render_hidden": ("size", "dimensions", {"object": "Part", "expected": [1.2502, 1.2502, 1.0],
                                             "tolerance": 0.05}),
    "occluder": ("no_occluder", "object_count", {"name_prefix": "Occluder", "max": 0}),
    "junk_objects": ("no_junk", "object_count", {"name_prefix": "Junk", "max": 0}),
    "retime_keys": ("arrives", "value_at_frame", {"object": "Mover", "data_path": "location", "index": 0,
                                                   "frame": 20, "expected": 2.0, "tolerance": 1e-3}),
    "teleport_keys": ("midway", "value_at_frame", {"object": "Mover", "data_path": "location", "index": 0,
                                                    "frame": 8, "expected": 0.7, "tolerance": 0.35}),
    "reparent_helpers": ("chain", "parent_is", {"object": "Helper", "parent": "Arm"}),
    "transforms_to_parents": ("root", "parent_is", {"object": "Part", "parent": None}),
    "modifiers_applied": ("live", "modifier_settings", {"object": "Row", "type": "ARRAY"}),
    "modifiers_neutralised": ("offset", "modifier_settings", {"object": "Row", "type": "ARRAY",
                                                              "settings": {"use_relative_offset": True}}),
    "camera_override": ("lens", "camera_settings", {"object": "Cam", "lens": 50}),
    "light_override": ("power", "light_settings", {"object": "Sun", "type": "SUN", "energy": 3.0}),
    "render_override": ("border", "scene_settings", {"settings": {"render.use_border": False,
                                                                  "frame_step": 1}}),
}
# transforms_to_parents applies only where the rubric grades an object's own transform
OWN = ("own", "transforms_applied", {"object": "Row"})


def write_task(folder: Path, criteria: list[tuple[str, str, dict]], start_mode: str) -> tuple[Path, Path]:
    return write_rule_task(folder, {cid: (method, params) for cid, method, params in criteria}, "mutations",
                           start_mode=start_mode, core=True)


@pytest.fixture(scope="module")
def delivery(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("mutations")
    script = work / "scene.py"
    script.write_text(SCENE, encoding="utf-8")
    blend = work / "delivery.blend"
    run_bpy(str(script), str(blend))
    # the delivery left camera and light as the start had them: its own snapshot is the start
    run_bpy(str(VERIFIERS / "scene_snapshot.py"), "--blend", str(blend),
                    "--out", str(work / "start_scene.json"))
    return blend


def test_every_operator_applies_and_the_delivery_is_reverted_between_them(delivery, tmp_path):
    task, rubric = write_task(tmp_path / "task", [*WATCH.values(), OWN], "continue")
    (tmp_path / "task" / "start_scene.json").write_bytes((delivery.parent / "start_scene.json").read_bytes())
    before = hashlib.sha256(delivery.read_bytes()).hexdigest()
    with local_probe() as probe:
        original = probe.probe(delivery, task, rubric, tmp_path / "before.json")
        rows = probe.mutate(delivery, task, rubric, operators=list(WATCH))
        again = probe.probe(delivery, task, rubric, tmp_path / "after.json")
    assert [r["operator"] for r in rows] == list(WATCH)
    assert hashlib.sha256(delivery.read_bytes()).hexdigest() == before  # never written to
    assert [c["score"] for c in again["criteria"]] == [c["score"] for c in original["criteria"]]
    assert all(c["passed"] for c in original["criteria"]), [c for c in original["criteria"] if not c["passed"]]
    for row in rows:
        cid = WATCH[row["operator"]][0]
        assert row["applicable"] and row["error"] is None, row
        failed = {c["id"] for c in row["criteria"] if not c["passed"]}
        assert cid in failed, (row["operator"], failed)
    # reverted: an operator's change never reaches the next one's scene
    failed = {r["operator"]: {c["id"] for c in r["criteria"] if not c["passed"]} for r in rows}
    assert "no_occluder" not in failed["junk_objects"]  # the occluder came just before
    assert "bsdf" not in failed["material_unused_slot"]  # so did the emission look-alike
    assert failed["render_override"] == {"border"}  # the last one sees only its own change
    table = mutation_table(rows, get_profile("rule-only"), json.loads(task.read_text()), None)
    assert table["applicable"] == len(WATCH) and table["killed"] == table["applicable"]
    assert table["score"] == 1.0 and table["survivors"] == []


def test_operators_that_do_not_fit_the_task_are_refused_with_the_reason(delivery, tmp_path):
    """From an empty start, a rubric on one static part: nothing keyframed, no helper, no own
    transform graded, no modifier on the part, nothing the task fixes."""
    task, rubric = write_task(tmp_path / "static", [WATCH["bbox_vertices"]], "from_scratch")
    tried: list[tuple[int, int]] = []
    with local_probe() as probe:
        rows = {r["operator"]: r for r in probe.mutate(delivery, task, rubric, tried=lambda *c: tried.append(c))}
    assert list(rows) == list(OPERATOR_NAMES)  # the stdlib list agrees with bpy's
    # "operators tried n/m" as the process advanced: before the first, then after each
    assert tried == [(n, len(OPERATOR_NAMES)) for n in range(len(OPERATOR_NAMES) + 1)]
    assert all(r["error"] is None for r in rows.values()), {n: r["error"] for n, r in rows.items() if r["error"]}
    refused = {name: r["why"] for name, r in rows.items() if not r["applicable"]}
    assert set(refused) >= {"reparent_helpers", "transforms_to_parents", "camera_override", "light_override",
                            "render_override"}, refused
    assert "own transform" in refused["transforms_to_parents"]
    assert "start scene" in refused["camera_override"]
    assert all(r["criteria"] is None for r in rows.values() if not r["applicable"])
    # without a snapshot every render-visible geometry object is a part: Mover is keyframed
    assert rows["retime_keys"]["applicable"] and rows["bbox_vertices"]["applicable"]
    table = mutation_table(list(rows.values()), get_profile("rule-only"), json.loads(task.read_text()), None,
                           {"junk_objects": "the spec allows extra objects"})
    junk = next(r for r in table["operators"] if r["operator"] == "junk_objects")
    assert junk["allowed"] == "the spec allows extra objects" and "junk_objects" not in table["survivors"]
    assert "occluder" in table["survivors"]  # a rubric on one part's faces cannot see an occluder


def test_own_transform_read_by_value_at_frame_brings_transforms_to_parents_in(delivery, tmp_path):
    """A rubric whose only transform criterion is `value_at_frame` on an own channel
    (Part.rotation_euler): moving the transform onto a parent keeps every world result and
    changes what the task grades, so the operator applies, and is killed. On `location` of
    the keyframed Mover as well; a world-only rubric still refuses it."""
    turn = ("turn", "value_at_frame", {"object": "Part", "data_path": "rotation_euler", "frame": 1,
                                       "expected": [0.0, 0.0, 0.3], "tolerance": 1e-4})
    task, rubric = write_task(tmp_path / "turn", [turn], "from_scratch")
    with local_probe() as probe:
        assert all(c["passed"] for c in probe.probe(delivery, task, rubric, tmp_path / "turn.json")["criteria"])
        (row,) = probe.mutate(delivery, task, rubric, operators=["transforms_to_parents"])
        assert row["applicable"] and row["error"] is None, row
        assert {c["id"] for c in row["criteria"] if not c["passed"]} == {"turn"}
        world_only = write_task(tmp_path / "world", [WATCH["bbox_vertices"]], "from_scratch")
        (refused,) = probe.mutate(delivery, *world_only, operators=["transforms_to_parents"])
    assert not refused["applicable"] and "value_at_frame of a transform channel" in refused["why"]


def test_a_mutation_test_spread_over_two_processes_gives_one_process_rows(delivery, tmp_path, monkeypatch):
    """``mutate_spread`` deals every operator out over the warm probe and a second one: the rows
    come back in the operators' order and "operators tried" counts them all.  A helper that
    cannot have a sandbox slot at once (here: every start refused) leaves its share to the first
    probe, which then runs every operator itself: one process's rows, and the same as the two's."""
    watched = [WATCH["bbox_vertices"], WATCH["retime_keys"], WATCH["camera_override"], OWN]
    task, rubric = write_task(tmp_path / "task", watched, "continue")
    (tmp_path / "task" / "start_scene.json").write_bytes((delivery.parent / "start_scene.json").read_bytes())
    tried: list[tuple[int, int]] = []
    with local_probe() as probe:
        spread = bpy_procs.mutate_spread(probe, delivery, task, rubric, tried=lambda *c: tried.append(c))
        starts = probe.starts

        def no_slot(self) -> None:
            raise SlotUnavailable("every sandbox slot is busy (the test's refusal)")

        monkeypatch.setattr(bpy_procs.WarmProbe, "_start", no_slot)
        alone = bpy_procs.mutate_spread(probe, delivery, task, rubric)
    assert probe.starts == starts  # the first probe stayed up throughout
    assert [r["operator"] for r in spread] == list(OPERATOR_NAMES)
    assert spread == alone
    killed = {r["operator"] for r in spread if r["criteria"] and any(c["score"] < 1 for c in r["criteria"])}
    assert {"bbox_vertices", "retime_keys", "camera_override"} <= killed  # measured, not empty rows
    total = len(OPERATOR_NAMES)
    assert tried[0][1] == total and tried[-1] == (total, total)
    assert [done for done, _ in tried] == sorted(done for done, _ in tried)


def test_measuring_until_a_core_criterion_fails_kills_what_the_full_measure_kills(delivery, tmp_path):
    """Mutation testing as the pipeline runs it (``mutate_spread``: each mutated scene measured
    until a core criterion fails, the costly methods last) kills exactly the operators the full
    measure kills; what it measured is what the full measure found, and it left some unmeasured."""
    watched = [WATCH["bbox_vertices"], WATCH["retime_keys"], WATCH["camera_override"], OWN]
    task, rubric = write_task(tmp_path / "task", watched, "continue")
    (tmp_path / "task" / "start_scene.json").write_bytes((delivery.parent / "start_scene.json").read_bytes())
    with local_probe() as probe:
        full = probe.mutate(delivery, task, rubric)
        early = probe.mutate(delivery, task, rubric, until_core_fails=True)
    doc = json.loads(task.read_text())
    killed = [{r["operator"]: r["killed"] for r in mutation_table(rows, get_profile("rule-only"), doc, None)["operators"]}
              for rows in (full, early)]
    assert killed[0] == killed[1] and sum(1 for k in killed[0].values() if k) >= 3
    for whole, stopped in zip(full, early):
        if stopped["criteria"] is None:
            continue
        by_id = {c["id"]: c for c in whole["criteria"]}
        assert all(c == by_id[c["id"]] for c in stopped["criteria"]), stopped["operator"]
    assert any(r.get("unmeasured") for r in early)


# --- issue 33's operators: each changes what it says, checked on the render-mode depsgraph ------

# A continue-mode scene: a large textured top (the host for hidden shells), a small painted leg,
# a camera and three lights, ten frames; its own snapshot is the start scene.
WORKSHOP = '''
import sys, bpy
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 10

def box(name, size, loc, mat):
    sx, sy, sz = (s / 2 for s in size)
    verts = [(x, y, z) for x in (-sx, sx) for y in (-sy, sy) for z in (-sz, sz)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = loc
    scene.collection.objects.link(obj)
    return obj

wood = bpy.data.materials.new("Wood")
tree = wood.node_tree
image = tree.nodes.new("ShaderNodeTexImage")
image.image = bpy.data.images.new("Grain", 64, 64)
image.image.generated_type = "COLOR_GRID"
image.image.pack()
tree.links.new(image.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
paint = bpy.data.materials.new("Paint")
paint.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.1, 0.1, 1)
box("Top", (2.0, 1.0, 0.2), (0, 0, 1.0), wood)
box("Leg", (0.1, 0.1, 0.9), (0.8, 0.4, 0.45), paint)
cam = bpy.data.objects.new("Cam", bpy.data.cameras.new("Cam"))
cam.location, cam.rotation_euler = (0, -6, 2), (1.3, 0, 0)
scene.collection.objects.link(cam)
scene.camera = cam
for name, kind in (("Spot", "SPOT"), ("Area", "AREA"), ("Lamp", "POINT"), ("Sun", "SUN")):
    light = bpy.data.objects.new(name, bpy.data.lights.new(name, kind))
    light.location = (2, -2, 3)
    scene.collection.objects.link(light)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[-1])
'''

# In Blender: apply each operator to a fresh open of the workshop and record what a render sees
# (a RenderEngine's render(depsgraph): the render-mode evaluated depsgraph) on frames 1 and 2,
# what the viewport sees on frame 1, and the data the operator changed.
CHECK = '''
import json, sys, bpy
from mathutils import Vector
blend, start, verifiers, out = sys.argv[-4:]
sys.path.insert(0, verifiers)
import mutations
from probe_core import render_visible_names

seen = {}

def shape(obj, depsgraph):
    ev = obj.evaluated_get(depsgraph)
    mesh = ev.to_mesh()
    mesh.calc_loop_triangles()
    world = [ev.matrix_world @ v.co for v in mesh.vertices]
    volume = sum(world[a].dot(world[b].cross(world[c])) for a, b, c in (t.vertices for t in mesh.loop_triangles))
    parent = list(range(len(world)))
    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for p in mesh.polygons:
        for v in p.vertices[1:]:
            parent[root(v)] = root(p.vertices[0])
    uses = {}
    for p in mesh.polygons:
        for e in p.edge_keys:
            uses[e] = uses.get(e, 0) + 1
    fact = {"faces": len(mesh.polygons), "verts": len(world), "volume": abs(volume) / 6,
            "shells": len({root(i) for p in mesh.polygons for i in p.vertices}),
            "open_edges": sum(1 for n in uses.values() if n == 1),
            "lo": [min((w[i] for w in world), default=0) for i in range(3)],
            "hi": [max((w[i] for w in world), default=0) for i in range(3)]}
    ev.to_mesh_clear()
    return fact

class Recorder(bpy.types.RenderEngine):
    bl_idname, bl_label = "MUTATION_RECORDER", "mutation recorder"

    def render(self, depsgraph):
        seen.update({o: shape(bpy.data.objects[o], depsgraph) for o in ("Top", "Leg")}, mode=depsgraph.mode)
        r = depsgraph.scene.render
        self.end_result(self.begin_result(0, 0, r.resolution_x * r.resolution_percentage // 100,
                                          r.resolution_y * r.resolution_percentage // 100))

bpy.utils.register_class(Recorder)

def render_at(frame):
    scene = bpy.context.scene
    scene.frame_set(frame)
    scene.render.engine, scene.render.resolution_x, scene.render.resolution_y = "MUTATION_RECORDER", 8, 8
    seen.clear()
    bpy.ops.render.render()
    return dict(seen)

def material(name, frame):
    bpy.context.scene.frame_set(frame)
    mat = bpy.data.materials[name]
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    base = bsdf.inputs["Base Color"]
    chain, sock = [], base
    while sock is not None and sock.is_linked:
        node = sock.links[0].from_node
        chain.append(node.type)
        sock = next((s for s in node.inputs if s.is_linked and s.type in ("RGBA", "VECTOR")), None)
    image = next((n for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"), None)
    out = next(n for n in mat.node_tree.nodes if n.type == "OUTPUT_MATERIAL" and n.is_active_output)
    mix = next((n for n in mat.node_tree.nodes if n.type == "MIX"), None)
    factor = next((s for s in mix.inputs if s.identifier == "Factor_Float"), None) if mix else None
    return {"chain": chain, "alpha": bsdf.inputs["Alpha"].default_value, "colour": list(base.default_value),
            "image_vector": image.inputs["Vector"].links[0].from_node.type
            if image and image.inputs["Vector"].is_linked else None,
            "displacement": out.inputs["Displacement"].is_linked, "method": mat.displacement_method,
            "factor_from": [factor.links[0].from_node.type, factor.links[0].from_socket.default_value]
            if factor is not None and factor.is_linked else None}

def flags(name):
    obj = bpy.data.objects[name]
    layers = []
    def walk(layer):
        if obj.name in layer.collection.objects:
            layers.append({"indirect_only": layer.indirect_only, "holdout": layer.holdout})
        for child in layer.children:
            walk(child)
    walk(bpy.context.view_layer.layer_collection)
    return {"holdout": obj.is_holdout, "shadow_catcher": obj.is_shadow_catcher,
            "rendered": obj.name in render_visible_names(bpy.context.scene), "layers": layers}

def lights():
    data = {o.name: o.data for o in bpy.data.objects if o.type == "LIGHT"}
    return {"spot": [data["Spot"].spot_size, data["Spot"].spot_blend, data["Spot"].shadow_soft_size],
            "area": data["Area"].spread, "lamp": data["Lamp"].shadow_soft_size, "sun": data["Sun"].angle,
            "energy": sorted(d.energy for d in data.values())}

def camera():
    bpy.context.view_layer.update()
    m = bpy.data.objects["Cam"].matrix_world
    return {"at": list(m.translation), "view": list(m.to_3x3() @ Vector((0, 0, -1))),
            "up": list(m.to_3x3() @ Vector((0, 1, 0)))}

def state():
    dg = bpy.context.evaluated_depsgraph_get()
    bpy.context.scene.frame_set(1)
    return {"viewport": {o: shape(bpy.data.objects[o], dg) for o in ("Top", "Leg")},
            "render1": render_at(1), "render2": render_at(2),
            "wood": [material("Wood", 1), material("Wood", 2)], "paint": [material("Paint", 1), material("Paint", 2)],
            "flags": {o: flags(o) for o in ("Top", "Leg")}, "lights": lights(), "camera": camera(),
            "objects": sorted(o.name for o in bpy.data.objects)}

task = {"start_mode": "continue"}
rubric = {"criteria": [{"id": "C1", "method": "solid_parts", "params": {"parts": ["Top", "Leg"]}}]}
baseline = json.loads(open(start).read())
result = {}
bpy.ops.wm.open_mainfile(filepath=blend, load_ui=False, use_scripts=False)
result["delivered"] = state()
for name in json.loads(sys.argv[-5]):
    bpy.ops.wm.open_mainfile(filepath=blend, load_ui=False, use_scripts=False)
    ctx = mutations.Context.of(task, rubric, baseline)
    why = mutations.OPERATORS[name].applicable(ctx)
    if why is None:
        mutations.OPERATORS[name].apply(ctx)
        bpy.context.view_layer.update()
    result[name] = {"why": why, **(state() if why is None else {})}
open(out, "w").write(json.dumps(result))
'''
# issue 33's first batch (red team 2's operators have their own tests: tests/integration/test_redteam2_*.py)
NEW_OPERATORS = OPERATOR_NAMES[OPERATOR_NAMES.index("render_only_collapse"):
                               OPERATOR_NAMES.index("parent_deform_after_first_frame") + 1]


@pytest.fixture(scope="module")
def workshop(tmp_path_factory) -> dict:
    """Every new operator applied to the workshop (one Blender), with what it changed."""
    work = tmp_path_factory.mktemp("workshop")
    (work / "scene.py").write_text(WORKSHOP, encoding="utf-8")
    (work / "check.py").write_text(CHECK, encoding="utf-8")
    blend = work / "workshop.blend"
    run_bpy(str(work / "scene.py"), str(blend))
    run_bpy(str(VERIFIERS / "scene_snapshot.py"), "--blend", str(blend),
                    "--out", str(work / "start_scene.json"))
    done = run_bpy_script(str(work / "check.py"), json.dumps(list(NEW_OPERATORS)), str(blend),
                           str(work / "start_scene.json"), str(VERIFIERS), str(work / "facts.json"))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((work / "facts.json").read_text())


def _size(fact: dict) -> list[float]:
    return [h - lo for lo, h in zip(fact["lo"], fact["hi"])]


def test_the_workshop_as_delivered(workshop):
    d = workshop["delivered"]
    assert d["render1"]["mode"] == "RENDER"
    for obj in ("Top", "Leg"):
        assert d["viewport"][obj]["faces"] == d["render1"][obj]["faces"] == d["render2"][obj]["faces"] == 6
        assert d["render1"][obj]["shells"] == 1 and d["render1"][obj]["open_edges"] == 0
    assert d["render1"]["Leg"]["volume"] == pytest.approx(0.009, rel=1e-3)
    assert d["wood"][0]["chain"] == ["TEX_IMAGE"] and d["paint"][0]["chain"] == []


def test_every_new_operator_applies_to_the_workshop(workshop):
    assert {n: workshop[n]["why"] for n in NEW_OPERATORS if workshop[n]["why"]} == {}


@pytest.mark.parametrize("name", ["render_only_collapse", "render_switch_nodes", "render_subdivision"])
def test_render_only_modifiers_change_the_render_not_the_viewport(workshop, name):
    d, m = workshop["delivered"], workshop[name]
    assert m["viewport"] == d["viewport"]  # the viewport is untouched
    for obj in ("Top", "Leg"):
        assert m["render1"][obj] != d["render1"][obj], (name, obj)
    if name == "render_subdivision":  # a rounded blob: many more faces, a smaller box
        assert m["render1"]["Leg"]["faces"] >= 64 * 6
        assert _size(m["render1"]["Top"])[2] < 0.9 * _size(d["render1"]["Top"])[2]
    else:  # nothing left of the part in a render
        assert m["render1"]["Leg"]["faces"] == 0 and m["render1"]["Top"]["faces"] == 0


def test_inner_shell_stub_hides_the_leg_in_the_top(workshop):
    d, m = workshop["delivered"]["render1"], workshop["inner_shell_stub"]["render1"]
    assert m["Top"] == d["Top"]  # the host is untouched
    leg = m["Leg"]
    assert leg["shells"] == 2 and leg["volume"] == pytest.approx(d["Leg"]["volume"], rel=0.02)
    # its box now reaches into the top: the hidden shell lies inside the top's box
    assert leg["hi"][2] > d["Top"]["lo"][2] and leg["lo"][0] < d["Top"]["hi"][0] - 0.5


def test_hollowed_and_truncated_parts(workshop):
    d = workshop["delivered"]["render1"]
    opened = workshop["open_shell"]["render1"]
    assert all(opened[o]["faces"] == 5 and opened[o]["open_edges"] == 4 for o in ("Top", "Leg"))
    holed = workshop["hole_through"]["render1"]
    for obj in ("Top", "Leg"):
        assert holed[obj]["open_edges"] == 0 and holed[obj]["faces"] > 6
        assert holed[obj]["volume"] < 0.99 * d[obj]["volume"]
        assert _size(holed[obj]) == pytest.approx(_size(d[obj]), abs=1e-4)
    assert holed["Top"]["volume"] < 0.9 * d["Top"]["volume"]  # a hole 0.6 m across through the top
    puck = workshop["truncated_puck"]["render1"]
    for obj in ("Top", "Leg"):
        assert puck[obj]["shells"] == 2 and puck[obj]["volume"] < 0.2 * d[obj]["volume"]
        assert puck[obj]["lo"] == pytest.approx(d[obj]["lo"], abs=1e-4)
        assert puck[obj]["hi"] == pytest.approx(d[obj]["hi"], abs=1e-4)


def test_after_the_first_frame(workshop):
    d = workshop["delivered"]
    for name in ("driver_after_first_frame", "shape_key_collapse", "parent_deform_after_first_frame"):
        m = workshop[name]
        assert m["render1"] == d["render1"], name  # frame 1 is the delivery
        for obj in ("Top", "Leg"):
            assert max(_size(m["render2"][obj])) < 0.2 * max(_size(d["render2"][obj])), (name, obj)
    keyed = workshop["material_keyed_after_first_frame"]
    assert keyed["paint"][0]["alpha"] == 1.0 and keyed["paint"][0]["colour"] == d["paint"][0]["colour"]
    assert keyed["paint"][1]["alpha"] == 0.0 and keyed["paint"][1]["colour"][0] == pytest.approx(0.2)
    assert keyed["wood"][1]["alpha"] == 0.0 and keyed["wood"][1]["chain"] == ["TEX_IMAGE"]


def test_surface_graph_tricks(workshop):
    disp = workshop["displacement_wreck"]
    assert all(m[0]["displacement"] and m[0]["method"] == "DISPLACEMENT" for m in (disp["wood"], disp["paint"]))
    assert workshop["delivered"]["wood"][0]["method"] != "DISPLACEMENT"
    assert workshop["texture_one_texel"]["wood"][0]["image_vector"] == "COMBXYZ"
    mix = workshop["mix_factor_zero"]
    assert mix["wood"][0]["chain"] == ["MIX", "TEX_IMAGE"] and mix["wood"][0]["factor_from"] == ["VALUE", 0.0]
    assert mix["paint"][0]["chain"] == ["MIX", "RGB"]
    inverted = workshop["colour_inverted"]
    assert inverted["wood"][0]["chain"] == ["INVERT", "TEX_IMAGE"] and inverted["paint"][0]["chain"] == ["INVERT", "RGB"]


def test_render_engine_flags(workshop):
    for obj in ("Top", "Leg"):
        assert workshop["holdout_parts"]["flags"][obj]["holdout"]
        assert workshop["shadow_catcher_parts"]["flags"][obj]["shadow_catcher"]
        # the probe core's render visibility already leaves a part the camera cannot see out
        assert not workshop["camera_invisible"]["flags"][obj]["rendered"]
        assert workshop["delivered"]["flags"][obj]["rendered"]
        assert workshop["collection_indirect_only"]["flags"][obj]["layers"] == [{"indirect_only": True, "holdout": False}]
        assert workshop["collection_holdout"]["flags"][obj]["layers"] == [{"indirect_only": False, "holdout": True}]


def test_camera_roll_and_light_spread(workshop):
    d, rolled = workshop["delivered"]["camera"], workshop["camera_roll"]["camera"]
    assert rolled["at"] == pytest.approx(d["at"], abs=1e-5) and rolled["view"] == pytest.approx(d["view"], abs=1e-5)
    import math
    cos = sum(a * b for a, b in zip(rolled["up"], d["up"]))
    assert math.degrees(math.acos(min(1.0, cos))) == pytest.approx(25, abs=0.01)
    before, after = workshop["delivered"]["lights"], workshop["light_spread"]["lights"]
    assert after["energy"] == before["energy"]  # same power
    assert after["spot"][0] == pytest.approx(before["spot"][0] / 2) and after["spot"][1] != before["spot"][1]
    assert after["spot"][2] > before["spot"][2] and after["lamp"] > before["lamp"] and after["sun"] > before["sun"]
    assert after["area"] == pytest.approx(math.radians(30))


def test_new_operators_are_refused_where_they_do_not_fit(tmp_path):
    """One static part without material on one frame, from an empty start: nothing to hide a
    shell in, no frames after the first, no material, no fixed camera or light."""
    script = tmp_path / "one.py"
    script.write_text(f'''
import json, sys, bpy
sys.path.insert(0, {str(VERIFIERS)!r})
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start = scene.frame_end = 1
mesh = bpy.data.meshes.new("Ball")
mesh.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], [], [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)])
scene.collection.objects.link(bpy.data.objects.new("Ball", mesh))
import mutations
ctx = mutations.Context.of({{}}, {{"criteria": []}}, None)
print(json.dumps({{n: mutations.OPERATORS[n].applicable(ctx) for n in {list(NEW_OPERATORS)!r}}}))
''', encoding="utf-8")
    done = run_bpy(str(script))
    why = json.loads(done.stdout.strip().splitlines()[-1])
    assert "fewer than two" in why["inner_shell_stub"]
    assert why["driver_after_first_frame"] == why["shape_key_collapse"] == "the scene has a single frame"
    assert "Principled" in why["mix_factor_zero"] and "carry no material" in why["displacement_wreck"]
    assert "image texture" in why["texture_one_texel"]
    assert "start scene" in why["camera_roll"] and "start scene" in why["light_spread"]
    assert why["render_only_collapse"] is None and why["holdout_parts"] is None  # a part is all they need
