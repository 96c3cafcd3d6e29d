{% set s = (shot_frames - 1) / 119 %}{% set sw_min = 9.75 / (max_jump_cm / 100) %}{% if 60 * s >= sw_min %}{% set k = s %}{% set sw = 60 * s %}{% else %}{% set sw = sw_min %}{% set k = (shot_frames - 1 - sw) / 59 %}{% endif %}{% macro v(f) %}{{ (1 + (f - 1) * k) | round | int }}{% endmacro %}{% macro w(f) %}{{ (1 + 37 * k + sw + (f - 98) * k) | round | int }}{% endmacro -%}
"""Variant (should pass): a different, equally valid way to do the carry.

Differences from the reference solution: the arm is posed at a handful of key poses with
Blender's default Bezier interpolation (no per-frame bake); the box is attached with a
Child Of constraint whose influence is keyed on/off; the lift is higher (0.45 m); and the
turntable swings the long way round (-270 degrees) to reach TableB.
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
LIFT_Z = GRASP_Z + 0.45
RADIUS = box.matrix_world.translation.xy.length
SWING = -1.5 * math.pi  # the long way round, ending at the same heading as TableB
PICK, PLACE = {{ v(22) }}, {{ w(108) }}


def ik(theta, z):
    wx, wz = RADIUS, z + L3 - SHOULDER_Z
    elbow = math.acos((wx * wx + wz * wz - L1 * L1 - L2 * L2) / (2 * L1 * L2))
    shoulder = math.atan2(wx, wz) - math.atan2(L2 * math.sin(elbow), L1 + L2 * math.cos(elbow))
    return theta, shoulder, elbow, math.pi - shoulder - elbow


POSES = [
    (1, (0.0, 0.0, 0.0, 0.0)),
    ({{ v(12) }}, ik(0.0, LIFT_Z)),
    (PICK, ik(0.0, GRASP_Z)),
    ({{ v(38) }}, ik(0.0, LIFT_Z)),
    ({{ w(98) }}, ik(SWING, LIFT_Z)),
    (PLACE, ik(SWING, GRASP_Z)),
    ({{ shot_frames }}, ik(SWING, LIFT_Z)),
]


def key_poses():
    for frame, (yaw, shoulder, elbow, wrist) in POSES:
        turntable.rotation_euler.z = yaw
        upper.rotation_euler.y, fore.rotation_euler.y, gripper.rotation_euler.y = shoulder, elbow, wrist
        turntable.keyframe_insert("rotation_euler", index=2, frame=frame)
        for joint in (upper, fore, gripper):
            joint.keyframe_insert("rotation_euler", index=1, frame=frame)


def make_constant(obj):
    """Switch-like channels must not blend between their keys."""
    ad = obj.animation_data
    for fc in anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot).fcurves:
        for key in fc.keyframe_points:
            key.interpolation = "CONSTANT"


def attach_box():
    """Child Of the tip between PICK and PLACE; the box's own keys hold it on A before, on B after."""
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


scene.frame_start, scene.frame_end = 1, {{ shot_frames }}
key_poses()
attach_box()
scene.frame_set(1)
