{% macro at(f) %}{{ (1 + (f - 1) * (shot_frames - 1) / 119) | round | int }}{% endmacro -%}
"""Variant (should pass): a carry with no pause at the pickup or the set-down.

Differences from the reference solution: the arm is keyed at a few poses with Linear
interpolation and never stops at the box (it comes down, and goes straight back up, so the box
changes between resting and held from one frame to the next); the box hangs from the
`Arm.Gripper` link (not `Gripper.Tip`) through a Child Of constraint keyed on at the pickup
frame, and at the set-down frame its own keys take over at the visual transform the constraint
gave it, so it stays exactly where it was put.
"""

import math

import bpy
from bpy_extras import anim_utils

scene = bpy.context.scene
ob = bpy.data.objects
turntable, upper, fore, gripper = (ob[n] for n in ("Arm.Turntable", "Arm.UpperArm", "Arm.Forearm", "Arm.Gripper"))
tip, box, table_b = ob["Gripper.Tip"], ob["Box"], ob["TableB"]

L1, L2, L3 = fore.location.z, gripper.location.z, tip.location.z
SHOULDER_Z = upper.matrix_world.translation.z
GRASP_Z = box.matrix_world.translation.z + box.dimensions.z / 2
LIFT_Z = GRASP_Z + 0.35
RADIUS = box.matrix_world.translation.xy.length
SWING = math.atan2(table_b.location.y, table_b.location.x)
PICK, PLACE = {{ at(30) }}, {{ at(95) }}


def ik(theta, z):
    wx, wz = RADIUS, z + L3 - SHOULDER_Z
    elbow = math.acos((wx * wx + wz * wz - L1 * L1 - L2 * L2) / (2 * L1 * L2))
    shoulder = math.atan2(wx, wz) - math.atan2(L2 * math.sin(elbow), L1 + L2 * math.cos(elbow))
    return theta, shoulder, elbow, math.pi - shoulder - elbow


POSES = [
    (1, (0.0, 0.0, 0.0, 0.0)),
    ({{ at(18) }}, ik(0.0, LIFT_Z)),
    (PICK, ik(0.0, GRASP_Z)),
    ({{ at(42) }}, ik(0.0, LIFT_Z)),
    ({{ at(83) }}, ik(SWING, LIFT_Z)),
    (PLACE, ik(SWING, GRASP_Z)),
    ({{ at(110) }}, ik(SWING, LIFT_Z)),
]


def channels(obj):
    ad = obj.animation_data
    return anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves


def key_poses():
    for frame, (yaw, shoulder, elbow, wrist) in POSES:
        turntable.rotation_euler.z = yaw
        upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y = shoulder, elbow, wrist
        turntable.keyframe_insert("rotation_euler", index=2, frame=frame)
        for joint in (upper, fore, gripper):
            joint.keyframe_insert("rotation_euler", index=1, frame=frame)
    for joint in (turntable, upper, fore, gripper):
        for fc in channels(joint):
            for key in fc.keyframe_points:
                key.interpolation = "LINEAR"


def attach_box():
    """Child Of the gripper link from PICK; from PLACE the box's own keys hold the visual pose."""
    carry = box.constraints.new("CHILD_OF")
    carry.name, carry.target = "Carry", gripper
    scene.frame_set(PICK)
    carry.inverse_matrix = gripper.matrix_world.inverted()
    box.keyframe_insert("location", frame=1)
    box.keyframe_insert("rotation_euler", frame=1)
    for frame, influence in ((1, 0.0), (PICK, 1.0)):
        carry.influence = influence
        box.keyframe_insert('constraints["Carry"].influence', frame=frame)
    scene.frame_set(PLACE)
    placed = box.matrix_world.copy()  # where the constraint puts it at the set-down
    carry.influence = 0.0
    box.keyframe_insert('constraints["Carry"].influence', frame=PLACE)
    box.matrix_world = placed
    box.keyframe_insert("location", frame=PLACE)
    box.keyframe_insert("rotation_euler", frame=PLACE)
    for fc in channels(box):
        for key in fc.keyframe_points:
            key.interpolation = "CONSTANT"


scene.frame_start, scene.frame_end = 1, {{ shot_frames }}
key_poses()
attach_box()
scene.frame_set(1)
