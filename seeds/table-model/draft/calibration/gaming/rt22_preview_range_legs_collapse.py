"""Gaming (must fail): the file's playback (Preview Range 1-300) squashes the legs after frame 250.

The reference table, scene frame range left at the supplied 1-250; each leg's Z scale is keyed 1 on
frame 250 and 0.05 from frame 251 (constant), and the timeline's Preview Range is on, 1-300.
Pressing Play in the opened file (the viewport preview, which plays the preview range) shows the
table for 250 frames, then for 50 frames a top hovering over four 3.6 cm pucks.  Spec: "Everything
measured holds on every frame of the scene's frame range as supplied (frames 1-250), and on any frame
the delivered file's own range adds ... a preview or turntable plays it, so nothing may move, change
shape or change material over it" (REQ-LEGS-MEET-TOP, REQ-OVERALL-SIZE).  probe_core.graded_frames
adds the delivered frame_start..frame_end only, never scene.use_preview_range /
frame_preview_start..frame_preview_end (the red-team-20 refusal of a stretched frame range, moved to
the preview range).
"""

import bmesh
import bpy
from mathutils import Matrix

WIDTH, DEPTH, HEIGHT, TOP = 1.20, 0.80, 0.75, 0.04
LEG, INSET = 0.06, 0.03


def box_object(name, size, base_center, mat):
    sx, sy, sz = size
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0, matrix=Matrix.Translation((0, 0, sz / 2)) @ Matrix.Diagonal((sx, sy, sz, 1)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    obj.location = base_center
    bpy.context.scene.collection.objects.link(obj)
    return obj


wood = bpy.data.materials.new("Wood")
wood.diffuse_color = (0.55, 0.36, 0.20, 1.0)
wood.use_nodes = True
wood.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.55, 0.36, 0.20, 1.0)
leg_h = HEIGHT - TOP
box_object("Tabletop", (WIDTH, DEPTH, TOP), (0, 0, leg_h), wood)
dx, dy = WIDTH / 2 - INSET - LEG / 2, DEPTH / 2 - INSET - LEG / 2
for tag, (x, y) in {"FL": (-dx, -dy), "FR": (dx, -dy), "BL": (-dx, dy), "BR": (dx, dy)}.items():
    box_object(f"Leg.{tag}", (LEG, LEG, leg_h), (x, y, 0), wood)



# the trick: legs keyed to collapse just past the supplied range, inside the preview range
sc = bpy.context.scene
end = sc.frame_end  # the supplied range's last frame, left as it is
for tag in ("FL", "FR", "BL", "BR"):
    leg = bpy.data.objects[f"Leg.{tag}"]
    leg.delta_scale = (1, 1, 1)
    leg.keyframe_insert("delta_scale", frame=end)
    leg.delta_scale = (1, 1, 0.05)
    leg.keyframe_insert("delta_scale", frame=end + 1)
    leg.delta_scale = (1, 1, 1)
sc.frame_set(1)
sc.use_preview_range = True
sc.frame_preview_start, sc.frame_preview_end = 1, end + 50
