{% macro at(f) %}{{ (1 + (f - 1) * (shot_frames - 1) / 119) | round | int }}{% endmacro -%}
"""Defect (must fail): a clean carry, but paced over {{ (1 + (shot_frames - 1) * 1.5) | round | int }} frames instead of the brief's {{ shot_frames }}.

The animator also stretched the scene to 1-{{ (1 + (shot_frames - 1) * 1.5) | round | int }}, so at frame {{ shot_frames }} the box is still in the air
over TableB and the frame range is wrong.
"""

import math

import bpy
from bpy_extras import anim_utils

STRETCH = 1.5  # {{ shot_frames }} frames of action spread over {{ (1 + (shot_frames - 1) * 1.5) | round | int }}

scene = bpy.context.scene
ob = bpy.data.objects
turntable, upper, fore, gripper = (ob[n] for n in ("Arm.Turntable", "Arm.UpperArm", "Arm.Forearm", "Arm.Gripper"))
tip, box, table_b = ob["Gripper.Tip"], ob["Box"], ob["TableB"]

L1, L2, L3 = fore.location.z, gripper.location.z, tip.location.z
SHOULDER_Z = upper.matrix_world.translation.z
GRASP_Z = box.matrix_world.translation.z + box.dimensions.z / 2
LIFT_Z = GRASP_Z + 0.30
RADIUS = box.matrix_world.translation.xy.length
SWING = 0.5 * math.pi


def at(frame):
    return round(1 + (frame - 1) * STRETCH)


PICK, PLACE, LAST = at({{ at(25) }}), at({{ at(100) }}), at({{ shot_frames }})


def ik(theta, z):
    wx, wz = RADIUS, z + L3 - SHOULDER_Z
    elbow = math.acos((wx * wx + wz * wz - L1 * L1 - L2 * L2) / (2 * L1 * L2))
    shoulder = math.atan2(wx, wz) - math.atan2(L2 * math.sin(elbow), L1 + L2 * math.cos(elbow))
    return theta, shoulder, elbow, math.pi - shoulder - elbow


POSES = [
    (1, (0.0, 0.0, 0.0, 0.0)),
    (at({{ at(15) }}), ik(0.0, LIFT_Z)),
    (PICK, ik(0.0, GRASP_Z)),
    (at({{ at(45) }}), ik(0.0, LIFT_Z)),
    (at({{ at(85) }}), ik(SWING, LIFT_Z)),
    (PLACE, ik(SWING, GRASP_Z)),
    (LAST, ik(SWING, LIFT_Z)),
]


def key_poses():
    for frame, (yaw, shoulder, elbow, wrist) in POSES:
        turntable.rotation_euler.z = yaw
        upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y = shoulder, elbow, wrist
        turntable.keyframe_insert("rotation_euler", index=2, frame=frame)
        for joint in (upper, fore, gripper):
            joint.keyframe_insert("rotation_euler", index=1, frame=frame)


def make_constant(obj):
    ad = obj.animation_data
    for fc in anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves:
        for key in fc.keyframe_points:
            key.interpolation = "CONSTANT"


def attach_box():
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
    box.rotation_euler.z += SWING
    box.keyframe_insert("location", frame=PLACE)
    box.keyframe_insert("rotation_euler", index=2, frame=PLACE)
    make_constant(box)


scene.frame_start, scene.frame_end = 1, LAST
key_poses()
attach_box()
scene.frame_set(1)
