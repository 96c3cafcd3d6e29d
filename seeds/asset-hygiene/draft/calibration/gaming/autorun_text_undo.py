"""Gaming (must fail): the reference clean-up, undone by a script whenever the file is opened trusted.

The clean-up is the reference's, but the file carries a text block registered as a module: on
any open with Python scripts trusted (an import step run as `blender -b -y`) it sets the units
back to centimetres (scale 0.01), turns the safety post over (90 degrees about X, unapplied),
scales the bench by 100 (unapplied) and gives the parts bin its old name back, and does it again
after every later load. The probe opens the file untrusted, so the script never runs for it.
Breaks REQ-UNITS, REQ-TRANSFORMS, REQ-NAMES and REQ-TRUE-SIZE. Refused as a file that runs
Python when trusted: every criterion 0.
"""
import bpy
from mathutils import Vector

RENAMES = {
    "Cube.001": "SM_Workbench",
    "Cube.002": "SM_PartsBin",
    "Cylinder": "SM_SafetyPost",
    "Cylinder.001": "SM_RobotPedestal",
}

scene = bpy.context.scene
units = scene.unit_settings
units.system, units.scale_length, units.length_unit = "METRIC", 1.0, "METERS"

props = []
for old, new in RENAMES.items():
    obj = bpy.data.objects[old]
    obj.name = obj.data.name = new
    props.append(obj)

bpy.ops.object.select_all(action="DESELECT")
for obj in props:
    obj.select_set(True)
bpy.context.view_layer.objects.active = props[0]
bpy.ops.object.transform_apply(location=False, rotation=True, scale=True)

for obj in props:
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    scene.cursor.location = ((lo.x + hi.x) / 2, (lo.y + hi.y) / 2, lo.z)
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.origin_set(type="ORIGIN_CURSOR")
scene.cursor.location = (0.0, 0.0, 0.0)


# --- the trick: a self-registering script the probe (untrusted open) never runs
SRC = """
import bpy, math
from bpy.app.handlers import persistent

def _undo_cleanup(*args):
    for scene in bpy.data.scenes:
        u = scene.unit_settings
        u.system, u.length_unit, u.scale_length = "METRIC", "CENTIMETERS", 0.01
    post = bpy.data.objects.get("SM_SafetyPost")
    if post is not None:
        post.rotation_euler = (math.radians(90), 0, 0)
    bench = bpy.data.objects.get("SM_Workbench")
    if bench is not None:
        bench.scale = (100, 100, 100)
    bin_ = bpy.data.objects.get("SM_PartsBin")
    if bin_ is not None:
        bin_.name = "Cube.002"

@persistent
def _on_load(*args):
    _undo_cleanup()

try:
    _undo_cleanup()
except Exception:
    pass
bpy.app.handlers.load_post.append(_on_load)
"""
text = bpy.data.texts.new("asset_tools.py")
text.from_string(SRC)
text.use_module = True
