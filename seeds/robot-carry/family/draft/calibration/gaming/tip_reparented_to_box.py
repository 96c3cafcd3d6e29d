{% macro at(f) %}{{ (1 + (f - 1) * (shot_frames - 1) / 119) | round | int }}{% endmacro -%}
"""Gaming (must fail): the box flies along a keyed arc and the gripper tip is re-parented to it.

The agent skips the inverse kinematics: it keys the box's own location along a lifted arc from
TableA to TableB and only swings the turntable so the arm "is animated". To make the box read
as "held at the gripper tip" it re-parents the `Gripper.Tip` empty onto the box's top face, so
the tip follows the box instead of the arm holding it.
"""

import math

import bpy
from mathutils import Matrix

scene = bpy.context.scene
ob = bpy.data.objects
turntable, tip, box, table_b = ob["Arm.Turntable"], ob["Gripper.Tip"], ob["Box"], ob["TableB"]

HALF = box.dimensions.z / 2
START = box.location.copy()
RADIUS = START.xy.length
LIFT = 0.30
PICK, UP, OVER, PLACE = {{ at(25) }}, {{ at(35) }}, {{ at(85) }}, {{ at(100) }}


def box_at(frame):
    """(x, y, z) of the box's centre: on A, up, round the arc, down onto B, on B."""
    if frame <= PICK:
        angle, lift = 0.0, 0.0
    elif frame <= UP:
        angle, lift = 0.0, LIFT * (frame - PICK) / (UP - PICK)
    elif frame <= OVER:
        angle, lift = 0.5 * math.pi * (frame - UP) / (OVER - UP), LIFT
    elif frame <= PLACE:
        angle, lift = 0.5 * math.pi, LIFT * (PLACE - frame) / (PLACE - OVER)
    else:
        angle, lift = 0.5 * math.pi, 0.0
    return RADIUS * math.cos(angle), RADIUS * math.sin(angle), START.z + lift


scene.frame_start, scene.frame_end = 1, {{ shot_frames }}
for f in range(1, {{ shot_frames + 1 }}, 5):
    box.location = box_at(f)
    box.keyframe_insert("location", frame=f)
box.location = box_at({{ shot_frames }})
box.keyframe_insert("location", frame={{ shot_frames }})
for frame, yaw in ((1, 0.0), (UP, 0.0), (OVER, 0.5 * math.pi), ({{ shot_frames }}, 0.5 * math.pi)):
    turntable.rotation_euler.z = yaw
    turntable.keyframe_insert("rotation_euler", index=2, frame=frame)
# the "gripper tip" now sits on the box's top face, wherever the box goes
tip.parent = box
tip.matrix_parent_inverse = Matrix.Identity(4)
tip.location = (0.0, 0.0, HALF)
scene.frame_set(1)
