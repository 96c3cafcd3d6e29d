"""Defect (must fail): the box glides from TableA to TableB on its own; the arm never moves.

A typical shortcut: key the box's location at the start and end and let Blender interpolate.
The box ends on TableB, but between the tables nothing holds it up.
"""

import bpy

scene = bpy.context.scene
box, table_b = bpy.data.objects["Box"], bpy.data.objects["TableB"]

scene.frame_start, scene.frame_end = 1, {{ shot_frames }}
box.keyframe_insert("location", frame=1)
box.location.xy = table_b.location.xy
box.keyframe_insert("location", frame={{ shot_frames }})
scene.frame_set(1)
