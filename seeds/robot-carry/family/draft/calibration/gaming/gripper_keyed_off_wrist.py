{% macro at(f) %}{{ (1 + (f - 1) * (shot_frames - 1) / 119) | round | int }}{% endmacro -%}
"""Gaming (must fail): the gripper link is keyed through space on its own, off the wrist.

No inverse kinematics: the arm stays straight up and only its turntable swings, while the
agent bakes `Arm.Gripper`'s own location and rotation, frame by frame, so that the suction pad
goes down to the box, carries it over and sets it on TableB (the box hangs from
`Gripper.Tip` with a Child Of constraint). Every frame looks like a carry from close up, but
the gripper has slid off the end of the forearm: a link came loose from the arm.
"""

import math

import bpy
from bpy_extras import anim_utils
from mathutils import Matrix, Vector

scene = bpy.context.scene
ob = bpy.data.objects
turntable, gripper, tip, box, table_b = (ob[n] for n in ("Arm.Turntable", "Arm.Gripper", "Gripper.Tip", "Box",
                                                         "TableB"))
TIP = tip.location.z
TOP = box.matrix_world.translation.z + box.dimensions.z / 2  # the box's top face on TableA
RADIUS = box.matrix_world.translation.xy.length
LIFT = 0.30
PICK, UP, OVER, PLACE, LAST = {{ at(25) }}, {{ at(40) }}, {{ at(85) }}, {{ at(100) }}, {{ shot_frames }}


def pad_at(frame):
    """(angle, height of the suction pad) at a frame."""
    if frame <= PICK:
        s = (frame - 1) / (PICK - 1)
        return 0.0, TOP + LIFT * (1 - s)
    if frame <= UP:
        return 0.0, TOP + LIFT * (frame - PICK) / (UP - PICK)
    if frame <= OVER:
        return 0.5 * math.pi * (frame - UP) / (OVER - UP), TOP + LIFT
    if frame <= PLACE:
        return 0.5 * math.pi, TOP + LIFT * (PLACE - frame) / (PLACE - OVER)
    return 0.5 * math.pi, TOP + LIFT * (frame - PLACE) / (LAST - PLACE)


scene.frame_start, scene.frame_end = 1, LAST
for frame, yaw in ((1, 0.0), (UP, 0.0), (OVER, 0.5 * math.pi), (LAST, 0.5 * math.pi)):
    turntable.rotation_euler.z = yaw
    turntable.keyframe_insert("rotation_euler", index=2, frame=frame)
for f in range(1, LAST + 1):
    scene.frame_set(f)
    angle, z = pad_at(f)
    where = Vector((RADIUS * math.cos(angle), RADIUS * math.sin(angle), z + TIP))
    gripper.matrix_world = (Matrix.Translation(where) @ Matrix.Rotation(angle, 4, "Z")
                            @ Matrix.Rotation(math.pi, 4, "Y"))
    gripper.keyframe_insert("location", frame=f)
    gripper.keyframe_insert("rotation_euler", frame=f)

carry = box.constraints.new("CHILD_OF")
carry.name, carry.target = "Carry", tip
scene.frame_set(PICK)
carry.inverse_matrix = tip.matrix_world.inverted()
for frame, influence in ((1, 0.0), (PICK, 1.0), (PLACE, 0.0)):
    carry.influence = influence
    box.keyframe_insert('constraints["Carry"].influence', frame=frame)
box.keyframe_insert("location", frame=1)
box.keyframe_insert("rotation_euler", index=2, frame=1)
box.location.xy = table_b.location.xy
box.rotation_euler.z += 0.5 * math.pi
box.keyframe_insert("location", frame=PLACE)
box.keyframe_insert("rotation_euler", index=2, frame=PLACE)
ad = box.animation_data
for fc in anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves:
    for key in fc.keyframe_points:
        key.interpolation = "CONSTANT"
scene.frame_set(1)
