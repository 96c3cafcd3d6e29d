{% macro at(f) %}{{ (1 + (f - 1) * (shot_frames - 1) / 119) | round | int }}{% endmacro -%}
"""Defect (must fail): the arm lets go 30 cm above TableB and the box falls onto it.

The box ends on TableB, but for the frames of the fall it is neither resting on a table nor
held by the gripper.
"""

import math

import bpy
from bpy_extras import anim_utils

FALL_FRAMES = 4

scene = bpy.context.scene
ob = bpy.data.objects
turntable, upper, fore, gripper = (ob[n] for n in ("Arm.Turntable", "Arm.UpperArm", "Arm.Forearm", "Arm.Gripper"))
tip, box, table_b = ob["Gripper.Tip"], ob["Box"], ob["TableB"]

L1, L2, L3 = fore.location.z, gripper.location.z, tip.location.z
SHOULDER_Z = upper.matrix_world.translation.z
GRASP_Z = box.matrix_world.translation.z + box.dimensions.z / 2
DROP = 0.30
LIFT_Z = GRASP_Z + DROP
RADIUS = box.matrix_world.translation.xy.length
SWING = 0.5 * math.pi
PICK, RELEASE = {{ at(25) }}, {{ at(90) }}


def ik(theta, z):
    wx, wz = RADIUS, z + L3 - SHOULDER_Z
    elbow = math.acos((wx * wx + wz * wz - L1 * L1 - L2 * L2) / (2 * L1 * L2))
    shoulder = math.atan2(wx, wz) - math.atan2(L2 * math.sin(elbow), L1 + L2 * math.cos(elbow))
    return theta, shoulder, elbow, math.pi - shoulder - elbow


POSES = [
    (1, (0.0, 0.0, 0.0, 0.0)),
    ({{ at(15) }}, ik(0.0, LIFT_Z)),
    (PICK, ik(0.0, GRASP_Z)),
    ({{ at(45) }}, ik(0.0, LIFT_Z)),
    ({{ at(85) }}, ik(SWING, LIFT_Z)),
    ({{ shot_frames }}, ik(SWING, LIFT_Z)),
]


def key_poses():
    for frame, (yaw, shoulder, elbow, wrist) in POSES:
        turntable.rotation_euler.z = yaw
        upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y = shoulder, elbow, wrist
        turntable.keyframe_insert("rotation_euler", index=2, frame=frame)
        for joint in (upper, fore, gripper):
            joint.keyframe_insert("rotation_euler", index=1, frame=frame)


def set_interpolation(obj, kinds):
    """kinds: {frame: interpolation}; a key's interpolation shapes the segment after it."""
    ad = obj.animation_data
    for fc in anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves:
        for key in fc.keyframe_points:
            key.interpolation = kinds.get(round(key.co.x), "CONSTANT")


def attach_and_drop():
    carry = box.constraints.new("CHILD_OF")
    carry.name, carry.target = "Carry", tip
    scene.frame_set(PICK)
    carry.inverse_matrix = tip.matrix_world.inverted()
    for frame, influence in ((1, 0.0), (PICK, 1.0), (RELEASE, 0.0)):
        carry.influence = influence
        box.keyframe_insert('constraints["Carry"].influence', frame=frame)
    box.keyframe_insert("location", frame=1)
    box.keyframe_insert("rotation_euler", index=2, frame=1)
    # let go in the air over TableB, then fall straight down onto it
    box.location.xy = table_b.location.xy
    box.location.z += DROP
    box.rotation_euler.z += SWING
    box.keyframe_insert("location", frame=RELEASE)
    box.keyframe_insert("rotation_euler", index=2, frame=RELEASE)
    box.location.z -= DROP
    box.keyframe_insert("location", frame=RELEASE + FALL_FRAMES)
    set_interpolation(box, {RELEASE: "LINEAR"})  # only the fall is blended


scene.frame_start, scene.frame_end = 1, {{ shot_frames }}
key_poses()
attach_and_drop()
scene.frame_set(1)
