"""Red team 30's open findings and red team 31's, in real Blender (issue 33): a piece that fills
its box, a displacement that tears the surface, a machine that jumps.

* fence-array passed with each picket sheared into a 1 cm stick leaning across its 8 cm box, and
  each post a pyramid in its post's box: every section filled its own outline, and the box was
  the picket's.  ``solid_parts`` ``min_box_filled`` measures the share of a piece's length, from
  its foot, over which its section fills its bounding box across (``box_filled``); red team 32
  stood posts and pickets on thin stilts (80 % of the length filled, at the top) and pinned rails
  to the posts by 1.2 cm pins: the filled share runs from the foot, and a rail is asked all of it.
* mug-material passed with a 0.99 mm true displacement on its flat-shaded facets: each surface
  moved within the 1 mm allowed, the render split every facet edge.  ``render_displacement`` now
  reads the widest gap between the corners of one vertex (``displacement_tear``); a displacement
  along one constant vector, or on a smooth surface, opens none.
* crate-texture passed with its slot linked to the object over a mesh whose own material was
  replaced (``scene_unchanged`` ``material_graphs``: only the slot materials' graphs change) and
  with every UV island mirrored (``uv_stretch`` ``max_flipped``); asset-hygiene with a second
  scene in the file (the render snapshot's ``other_scenes``).  A task may also let only some
  unit settings change ("units:<setting>"), shown here with the mass unit.
* robot-carry passed with the arm snapping from its rest pose to the table in one frame (the
  gripper 1.56 m) and flicking between two poses on alternate frames: only the box's jumps were
  measured.  ``moves_smoothly``: every vertex's step between frames, and its change.

Blender runs unsandboxed (LOCAL): everything it runs here is this test's own code."""

from __future__ import annotations

import pytest

from tests.probe_cases import (
    BPY_SCENE_HELPERS, assert_operators_killed, assert_refused_as_expected, local_probe, probe_local, run_bpy,
    write_rule_task,
)
from verifiers import bpy_procs
from verifiers.mutation_testing import OPERATOR_NAMES

pytestmark = [pytest.mark.blender, pytest.mark.timeout(300)]

MAKE = BPY_SCENE_HELPERS + r'''
def piece(name, verts, faces, bevel=0.0):
    """A fresh scene holding "Part", one closed piece (verts, faces), with a Bevel if asked."""
    fresh()
    bm = bmesh.new()
    v = [bm.verts.new(p) for p in verts]
    for f in faces:
        bm.faces.new([v[i] for i in f])
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    mesh = bpy.data.meshes.new("Part")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("Part", mesh)
    bpy.context.scene.collection.objects.link(obj)
    if bevel:
        mod = obj.modifiers.new("Bevel", "BEVEL")
        mod.width, mod.segments = bevel, 3
    save(name)


W, D, H = 0.08, 0.02, 0.95
HEX = ((0, 1, 2, 3), (7, 6, 5, 4), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0))
box_verts = [(x, y, z) for y in (0.0, D) for (x, z) in ((0, 0), (W, 0), (W, H), (0, H))]
piece("picket", box_verts, HEX)
piece("picket_bevelled", box_verts, HEX, bevel=0.005)
# a pointed picket: the box and a gable 8 cm high on top
pointed = [(x, y, z) for y in (0.0, D) for (x, z) in ((0, 0), (W, 0), (W, H - 0.08), (W / 2, H), (0, H - 0.08))]
piece("picket_pointed", pointed, ((0, 1, 2, 3, 4), (9, 8, 7, 6, 5), (0, 5, 6, 1), (1, 6, 7, 2), (2, 7, 8, 3),
                                  (3, 8, 9, 4), (4, 9, 5, 0)))
# red team 30: a 1 cm stick leaning from one corner of the picket's box to the other
stick = [(x, y, z) for y in (0.0, D) for (x, z) in ((0, 0), (0.01, 0), (W, H), (W - 0.01, H))]
piece("picket_sheared", stick, HEX)
def loft(name, rings):
    """"Part": one closed piece through rectangular rings [(x0, x1, y0, y1, z)], bottom to top."""
    verts = [(x, y, z) for (x0, x1, y0, y1, z) in rings for (x, y) in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    faces = [(3, 2, 1, 0), tuple(4 * (len(rings) - 1) + k for k in range(4))]
    for r in range(len(rings) - 1):
        a, b = 4 * r, 4 * (r + 1)
        faces += [(a + k, a + (k + 1) % 4, b + (k + 1) % 4, b + k) for k in range(4)]
    piece(name, verts, faces)


# red team 32: the picket's full width only from 19 cm up, a 1.5 cm stick under it
loft("picket_on_stilt", [(0.0325, 0.0475, 0.0025, 0.0175, 0.0), (0.0325, 0.0475, 0.0025, 0.0175, 0.19),
                         (0.0, W, 0.0, D, 0.19), (0.0, W, 0.0, D, H)])
# red team 32: a rail whose last 4 cm at each end is a 1.2 cm pin (lying along X: its ends are its
# "foot" and its top)
loft("rail_pinned", [(0.009, 0.021, 0.029, 0.041, 0.0), (0.009, 0.021, 0.029, 0.041, 0.04),
                     (0.0, 0.03, 0.0, 0.07, 0.04), (0.0, 0.03, 0.0, 0.07, 1.56),
                     (0.009, 0.021, 0.029, 0.041, 1.56), (0.009, 0.021, 0.029, 0.041, 1.6)])
# red team 30: a pyramid on the post's 0.10 x 0.10 base, its apex over a corner
piece("post_pyramid", [(0, 0, 0), (0.1, 0, 0), (0.1, 0.1, 0), (0, 0.1, 0), (0.1, 0, 1.1)],
      ((3, 2, 1, 0), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)))


def displacement(mat, height, normal=None):
    tree = mat.node_tree
    output = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    node = tree.nodes.new("ShaderNodeDisplacement")
    node.inputs["Height"].default_value, node.inputs["Midlevel"].default_value = height, 0.0
    node.inputs["Scale"].default_value = 1.0
    if normal is not None:
        vec = tree.nodes.new("ShaderNodeCombineXYZ")
        vec.inputs[0].default_value, vec.inputs[1].default_value, vec.inputs[2].default_value = normal
        tree.links.new(vec.outputs[0], node.inputs["Normal"])
    tree.links.new(node.outputs["Displacement"], output.inputs["Displacement"])
    mat.displacement_method = "DISPLACEMENT"


def displaced(name, smooth, heights, normal=None):
    """"Part": a flat-shaded 0.2 m cube or a smooth-shaded UV sphere, its halves (x < 0, x >= 0)
    in one material each displaced by ``heights`` (m) along their corners' normals or ``normal``."""
    fresh()
    if smooth:
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.1, location=(0.0, 0.0, 0.1))
        bpy.ops.object.shade_smooth()
        part = bpy.context.active_object
    else:
        part = box("Part", (0.2, 0.2, 0.2), (0.0, 0.0, 0.1))
    part.name = "Part"
    for i, height in enumerate(heights):
        mat = bpy.data.materials.new(f"Glaze{i}")
        mat.use_nodes = True
        displacement(mat, height, normal)
        part.data.materials.append(mat)
    if len(heights) > 1:
        for poly in part.data.polygons:
            poly.material_index = 0 if poly.center.x < 0 else 1
    save(name)


displaced("sphere_smooth", True, [0.0009])
displaced("cube_flat", False, [0.0009])
displaced("cube_flat_one_vector", False, [0.0009], normal=(0.0, 0.0, 1.0))
displaced("sphere_two_materials", True, [0.0009, -0.0009])


def moving(name, keys, interpolation="BEZIER"):
    """"Link": a 0.1 m cube keyed along X at {frame: x}, frames 1-48."""
    scene = fresh()
    scene.frame_start, scene.frame_end = 1, 48
    link = box("Link", (0.1, 0.1, 0.1), (0.0, 0.0, 0.05))
    for frame, x in sorted(keys.items()):
        link.location.x = x
        link.keyframe_insert("location", index=0, frame=frame)
    for fc in link.animation_data.action.layers[0].strips[0].channelbag(link.animation_data.action_slot).fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = interpolation
    save(name)


moving("glides", {1: 0.0, 48: 2.0})  # 2 m in 47 frames, eased: at most ~6.5 cm a frame
# red team 31: snapped into the far pose on the second frame and held there
moving("snaps", {1: 0.0, 2: 2.0, 48: 2.0}, "CONSTANT")
# red team 31: flicked 20 cm out and back on alternate frames (each step under 25 cm), then the glide
moving("flickers", {1: 0.0, 2: 0.2, 3: 0.0, 4: 0.2, 5: 0.0, 48: 2.0}, "LINEAR")


def repainted(scene, obj):
    bsdf = next(n for n in obj.data.materials[0].node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (0.4, 0.2, 0.1, 1.0)


def object_slot(scene, obj):
    """red team 31: the slot linked to the object keeps Wood, the mesh's own material replaced"""
    wood = obj.data.materials[0]
    obj.material_slots[0].link = "OBJECT"
    obj.material_slots[0].material = wood
    obj.data.materials[0] = bpy.data.materials.new("Plain")


def metres_to_centimetres(scene, obj):
    scene.unit_settings.length_unit, scene.unit_settings.scale_length = "CENTIMETERS", 0.01


def mass_in_grams(scene, obj):
    scene.unit_settings.mass_unit = "GRAMS"


def second_scene(scene, obj):
    """red team 31: a scene "Preview" with a camera of its own"""
    other = bpy.data.scenes.new("Preview")
    other.collection.objects.link(bpy.data.objects.new("Cam2", bpy.data.cameras.new("Cam2")))


def uv_mirrored(scene, obj):
    for corner in obj.data.uv_layers["CrateUV"].data:
        corner.uv = (1.0 - corner.uv[0], corner.uv[1])


def scaled_negative(scene, obj):
    obj.scale.x = -1.0


def scaled_negative_uv_mirrored(scene, obj):
    scaled_negative(scene, obj)
    uv_mirrored(scene, obj)


prop("prop")
for extra in (repainted, object_slot, metres_to_centimetres, mass_in_grams, second_scene, uv_mirrored,
              scaled_negative, scaled_negative_uv_mirrored):
    prop(f"prop_{extra.__name__}", extra)
'''

CASES = {
    "box": {"SOLID": ("solid_parts", {"object": "Part", "min_fill": 0.9, "min_box_filled": 0.8, "max_holes": 0})},
    "rail": {"SOLID": ("solid_parts", {"object": "Part", "min_box_filled": {"Part": 1.0}})},
    "shape": {"SHAPE": ("surface_shader", {"object": "Part", "shader": "BSDF_PRINCIPLED", "max_displacement": 0.001})},
    "kept": {"KEPT": ("scene_unchanged", {"frame": 1, "allow_changed": {
        "SM_Box": ["material_graphs", "matrix_world", "world_scale", "uv"],
        "render": ["units:system", "units:length_unit", "units:scale_length"]}})},
    "uv": {"UV": ("uv_stretch", {"object": "SM_Box", "uv_map": "CrateUV", "max_anisotropy": 10.0, "max_flipped": 0.0})},
    "motion": {"MOVE": ("moves_smoothly", {"objects": ["Link"], "max_step": 0.25, "max_step_change": 0.1,
                                           "frame_start": 1, "frame_end": 48})},
}
EXPECTED = {
    ("box", "picket"): {},
    ("box", "picket_bevelled"): {},
    ("box", "picket_pointed"): {},  # 8 cm of a 95 cm picket pointed: still fills its box
    ("box", "picket_sheared"): {"SOLID": "min_box_filled"},
    ("box", "post_pyramid"): {"SOLID": "min_box_filled"},
    ("box", "picket_on_stilt"): {"SOLID": "min_box_filled"},  # 80 % filled, but from 19 cm up
    ("rail", "picket"): {},
    ("rail", "rail_pinned"): {"SOLID": "min_box_filled"},
    ("shape", "sphere_smooth"): {},  # every corner of a vertex moves along one normal
    ("shape", "cube_flat"): {"SHAPE": "moved up to 0.0013 m"},  # 0.9 mm along three normals: 1.27 mm apart
    ("shape", "cube_flat_one_vector"): {},  # every corner moves 0.9 mm up: nothing opens
    ("shape", "sphere_two_materials"): {"SHAPE": "moved up to 0.0018 m"},  # +0.9 mm against -0.9 mm at the seam
    ("kept", "prop_repainted"): {},  # the slot material's graph may change
    ("kept", "prop_object_slot"): {"KEPT": "SM_Box (materials)"},
    ("kept", "prop_metres_to_centimetres"): {},  # the units the task lets change
    ("kept", "prop_mass_in_grams"): {"KEPT": "render units"},
    ("kept", "prop_second_scene"): {"KEPT": "render other_scenes"},
    ("uv", "prop"): {},
    ("uv", "prop_uv_mirrored"): {"UV": "stretched or uneven UVs"},
    ("uv", "prop_scaled_negative"): {"UV": "stretched or uneven UVs"},  # the render mirrors the faces
    ("uv", "prop_scaled_negative_uv_mirrored"): {},  # mirrored twice: reads the right way round
    ("motion", "glides"): {},
    ("motion", "snaps"): {"MOVE": "a step of 2.000 m from frame 1 to 2"},
    ("motion", "flickers"): {"MOVE": "its step changed by 0.400 m"},
}
NEW_OPERATORS = ("pieces_sheared_thin", "moving_parts_flicker", "uv_islands_mirrored", "material_slot_linked_to_object",
                 "second_scene_added")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam31")
    (tmp / "make.py").write_text(MAKE, encoding="utf-8")
    run_bpy(tmp / "make.py", tmp)
    tasks = {task: write_rule_task(tmp / task, cases, f"redteam31-{task}",
                                   start_mode=None if task == "kept" else "from_scratch")
             for task, cases in CASES.items()}
    run_bpy(bpy_procs.VERIFIERS / "scene_snapshot.py", "--blend", tmp / "prop.blend",
            "--out", tmp / "kept" / "start_scene.json")
    return {"tmp": tmp, **tasks}


@pytest.mark.parametrize(("task", "delivery"), sorted(EXPECTED))
def test_a_piece_fills_its_box_and_a_displacement_does_not_tear(scenes, task, delivery):
    task_path, rubric = scenes[task]
    report = probe_local(scenes["tmp"] / f"{delivery}.blend", task_path, rubric,
                         scenes["tmp"] / f"report-{task}-{delivery}.json")
    assert_refused_as_expected(report, EXPECTED[(task, delivery)], delivery)


def test_the_new_operators_apply_and_are_killed(scenes):
    task_path, rubric = scenes["box"]
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "picket.blend", task_path, rubric, None, operators=["pieces_sheared_thin"])
    assert_operators_killed(rows, {"pieces_sheared_thin": {"SOLID"}})
    task_path, rubric = scenes["motion"]
    with local_probe() as probe:
        rows = probe.mutate(scenes["tmp"] / "glides.blend", task_path, rubric, None, operators=["moving_parts_flicker"])
    assert_operators_killed(rows, {"moving_parts_flicker": {"MOVE"}})
    for task, blend, operators, killed_by in (
            ("kept", "prop_repainted", ["material_slot_linked_to_object", "second_scene_added"], {"KEPT"}),
            ("uv", "prop", ["uv_islands_mirrored"], {"UV"})):
        task_path, rubric = scenes[task]
        with local_probe() as probe:
            rows = probe.mutate(scenes["tmp"] / f"{blend}.blend", task_path, rubric, None, operators=operators)
        assert_operators_killed(rows, {op: killed_by for op in operators})


def test_the_new_operators_are_listed():
    assert set(NEW_OPERATORS) <= set(OPERATOR_NAMES)
