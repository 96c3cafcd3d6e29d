"""Gaming (must fail), red team 45: the old import transform kept as an orphan action that every
default FBX export writes as each prop's animation take.

The reference clean-up, then an action "ImportTake" (fake user, assigned to nothing) keyed with the
props' supplied import transform -- rotation X 90 degrees and scale 0.01 -- over frames 1-250, and
each prop given an empty animation-data block (no action, no drivers). Blender plays nothing, so
every frame of the file is the reference's. But File > Export > FBX with its defaults (Bake
Animation on, "All Actions" on) writes, for every prop whose animation data exists, every action in
the file whose F-curves resolve on it: each prop gets an "ImportTake" animation stack that turns it
over and shrinks it 100x -- what the simulator/engine importing the FBX plays. Breaks REQ-TRANSFORMS
(scale and rotation applied: "a prop with an unapplied scale or rotation ... arrives at the wrong
size or turned over"), REQ-SCENE-KEPT ("apart from the clean-up, the file comes back as it was sent
... nothing added") and the spec's "nothing may move, change shape ... over it".

Found by red team 45; refused since: a kept object's `takes` digests the actions nothing plays with
an F-curve on it (`SNAPSHOT_VERSION` 18).
"""

# --- the reference solution (solution/solve.py) ---


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

# --- the trick ---
import math
act = bpy.data.actions.new("ImportTake")
act.use_fake_user = True
slot = act.slots.new(id_type="OBJECT", name="Prop")
layer = act.layers.new("Layer")
strip = layer.strips.new(type="KEYFRAME")
bag = strip.channelbag(slot, ensure=True)
for path, idx, val in [("rotation_euler", 0, math.pi / 2), ("scale", 0, 0.01), ("scale", 1, 0.01), ("scale", 2, 0.01)]:
    fc = bag.fcurves.new(path, index=idx)
    fc.keyframe_points.insert(1, val)
    fc.keyframe_points.insert(250, val)
for obj in props:
    obj.animation_data_create()  # empty: no action, no slot, no drivers
bpy.ops.object.select_all(action="DESELECT")
