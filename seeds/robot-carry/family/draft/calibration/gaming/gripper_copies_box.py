{% macro at(f) %}{{ (1 + (f - 1) * (shot_frames - 1) / 119) | round | int }}{% endmacro -%}
"""Gaming (must fail): the gripper link is pulled onto the box by a constraint, off the arm.

The agent keys the box along a lifted arc from TableA to TableB and, instead of posing the
joints, adds a helper empty on the box's top face and gives `Arm.Gripper` a Copy Transforms
constraint to it (constraints on the joints are allowed). The suction pad and `Gripper.Tip`
now ride on the box at every frame -- the box looks "held" -- but the gripper has left the
end of the forearm: the arm itself only swings its turntable.
"""

import math

import bpy

scene = bpy.context.scene
ob = bpy.data.objects
turntable, gripper, tip, box = ob["Arm.Turntable"], ob["Arm.Gripper"], ob["Gripper.Tip"], ob["Box"]

HALF = box.dimensions.z / 2
START = box.location.copy()
RADIUS = START.xy.length
LIFT = 0.30
PICK, UP, OVER, PLACE = {{ at(25) }}, {{ at(35) }}, {{ at(85) }}, {{ at(100) }}


def box_at(frame):
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

# a pad target on the box: the gripper's wrist 20 cm above the top face, pointing down
pad = bpy.data.objects.new("PadTarget", None)
scene.collection.objects.link(pad)
pad.parent = box
pad.location = (0.0, 0.0, HALF + tip.location.z)
pad.rotation_euler = (0.0, math.pi, 0.0)
follow = gripper.constraints.new("COPY_TRANSFORMS")
follow.name, follow.target = "OnBox", pad
scene.frame_set(1)
