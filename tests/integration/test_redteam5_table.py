"""Red team 5, table-model, in real Blender: extras stay inside the outline and hide no part.

Two deliveries got success: a camera, a light and an empty far outside the table's outline
(``new_objects`` held only rendered geometry to the box; ``all_within`` now holds every other
object: a camera, light or empty by its origin), and four thin "apron" walls from the floor to
the top that close the legs in (every part measure passes; ``parts_unoccluded`` now asks that
each part be seen from outside).  The seed's own scripts build the scenes; Blender runs
unsandboxed (LOCAL): everything it runs here is this repository's own code."""

from __future__ import annotations


import pytest

from tests.probe_cases import local_probe, probe_local, run_bpy, write_rule_task
from tests.table_cases import DRAFT, MAKE_HEAD, OUTLINE, PARTS

pytestmark = pytest.mark.blender

MAKE = MAKE_HEAD + r'''

def box(name, size, centre, collection=None):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    return obj


def walls(collection=None):
    """Four 1 cm walls flush with the outline, floor to the top's underside: a closed skirt."""
    for name, size, c in (("Wall.F", (1.2, 0.01, 0.71), (0, -0.395, 0.355)),
                          ("Wall.B", (1.2, 0.01, 0.71), (0, 0.395, 0.355)),
                          ("Wall.L", (0.01, 0.78, 0.71), (-0.595, 0, 0.355)),
                          ("Wall.R", (0.01, 0.78, 0.71), (0.595, 0, 0.355))):
        box(name, size, c, collection)


def save(name):
    bpy.ops.wm.save_as_mainfile(filepath=str(out / f"{name}.blend"))


build("solution/solve.py")
save("reference")
build("solution/solve.py")
cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
cam.location = (0.5, -0.3, 0.7)  # an extra camera inside the outline: allowed
lamp = bpy.data.objects.new("Lamp", bpy.data.lights.new("Lamp", "POINT"))
lamp.location = (0.0, 0.0, 0.3)
for obj in (cam, lamp):
    bpy.context.scene.collection.objects.link(obj)
box("Apron", (1.0, 0.6, 0.08), (0, 0, 0.67))  # an honest apron under the top
save("extras_inside")
build("calibration/variants/tapered_round_legs.py")
save("variant")
build("calibration/gaming/b_camera_light_outside_outline.py")
save("camera_outside")
build("calibration/gaming/b_skirt_to_floor_chest.py")
save("chest")
build("solution/solve.py")
box("Cabinet", (1.18, 0.78, 0.71), (0, 0, 0.355))  # a solid block the legs stand in
save("cabinet")
build("solution/solve.py")
hidden = bpy.data.collections.new("Skirt")  # the walls drawn only as a collection instance
walls(hidden)
holder = bpy.data.objects.new("Holder", None)
holder.instance_type, holder.instance_collection = "COLLECTION", hidden
bpy.context.scene.collection.objects.link(holder)
save("instanced_chest")
build("solution/solve.py")
walls()
for name in ("Wall.F", "Wall.B", "Wall.L", "Wall.R"):
    bpy.data.objects[name].hide_render = True  # not rendered: hides nothing
save("walls_not_rendered")
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_plane_add(size=1.0)
save("flat")
'''

CRITERIA = {
    "WITHIN_ALL": ("new_objects", {"expected": PARTS, "others_within": OUTLINE, "all_within": True}),
    "WITHIN_DRAWN": ("new_objects", {"expected": PARTS, "others_within": OUTLINE}),
    "SEEN": ("parts_unoccluded", {"objects": PARTS, "min_share": 0.5, "elevations": [15, 45]}),
}
# scene -> the criteria that fail there (every other one passes)
FAILS = {
    "reference": set(),
    "extras_inside": set(),
    "variant": set(),
    "camera_outside": {"WITHIN_ALL"},
    "chest": {"SEEN"},
    "cabinet": {"SEEN"},
    "instanced_chest": {"SEEN"},
    "walls_not_rendered": set(),  # walls the render does not draw hide nothing
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("redteam5-table")
    script = tmp / "make.py"
    script.write_text(MAKE, encoding="utf-8")
    run_bpy(script, DRAFT, tmp)
    task, rubric = write_rule_task(tmp / "task", CRITERIA, "redteam5-table")
    out = {"tmp": tmp, "task": (task, rubric)}
    for scene in FAILS:
        report = probe_local(tmp / f"{scene}.blend", task, rubric, tmp / f"{scene}.json")
        out[scene] = {c["id"]: c for c in report["criteria"]}
    return out


@pytest.mark.parametrize("scene", sorted(FAILS))
def test_verdicts(graded, scene):
    for cid, c in graded[scene].items():
        assert c.get("error") is None, (scene, cid, c.get("error"))
        assert c["passed"] is (cid not in FAILS[scene]), (scene, cid, c["detail"])


def test_the_details_name_what_is_wrong(graded):
    outside = graded["camera_outside"]["WITHIN_ALL"]
    assert set(outside["evidence"]["outside"]) == {"Camera", "Lamp", "Marker"}, outside
    assert graded["camera_outside"]["WITHIN_DRAWN"]["passed"]  # what let it through before
    chest = graded["chest"]["SEEN"]
    # the top is seen but where the legs' top faces lie on its underside (red team 28: a face of
    # another drawer on a part's own covers it)
    assert 0.95 < chest["measured"]["Tabletop"] < 1.0
    assert all(chest["measured"][leg] == 0.0 for leg in PARTS[1:]), chest["measured"]
    assert "Leg.FL (0% of its surface seen)" in chest["detail"]
    # honest tables: the legs are seen far above the bar (only their top ends are covered), and the
    # top but where an apron's top face lies on its underside (0.6 of its 2.08 m2: red team 28)
    for scene in ("reference", "variant", "extras_inside"):
        seen = graded[scene]["SEEN"]["measured"]
        assert min(seen[leg] for leg in PARTS[1:]) >= 0.8, seen
        assert seen["Tabletop"] >= (0.7 if scene == "extras_inside" else 0.95), seen


# --- the operator (verifiers/mutations.py, "red team 5: table") ----------------------------------


def test_enclosing_shell_is_refused_by_the_parts_being_unseen(graded):
    task, rubric = graded["task"]
    with local_probe() as probe:
        (row,) = probe.mutate(graded["tmp"] / "reference.blend", task, rubric, operators=["enclosing_shell"])
        (flat,) = probe.mutate(graded["tmp"] / "flat.blend", task, rubric, operators=["enclosing_shell"])
    assert row["applicable"] and row["error"] is None, row
    refused = {c["id"]: c for c in row["criteria"] if not c["passed"]}
    assert set(refused) == {"SEEN"}, row["criteria"]  # the walls stand inside the outline
    assert all(refused["SEEN"]["measured"][leg] == 0.0 for leg in PARTS[1:]), refused["SEEN"]
    assert not flat["applicable"] and flat["why"] == "the parts span no volume to wall in", flat
